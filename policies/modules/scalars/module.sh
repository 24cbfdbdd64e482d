#!/bin/sh
# Scalars and classic arrays: name up to the first '=', value kept verbatim, 256-byte name limit.
echo "=scalar=some value with = sign"
echo "=  spaced  = val "
echo "=noeq"
echo "="
echo "=arr[k1]=v1"
echo "=arr[k 2]=v2"
echo "=v=trailing  "
echo "=$(printf 'n%.0s' $(seq 1 300))=long"
echo "=$(printf 'm%.0s' $(seq 1 256))=kept"
