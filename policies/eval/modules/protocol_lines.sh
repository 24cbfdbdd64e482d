#!/bin/sh
# module for protocol_lines.cf: every line kind of the module protocol
echo "+plain_class"
echo "+bad class-name.x"
echo "=scalar=some value with = sign"
echo "=arr[k1]=v1"
echo "=arr[k 2]=v2"
echo "@lst= { \"a\", \"b\", \"c\" }"
echo '%js={"k": [1, 2, {"n": "deep"}]}'
echo "junk line ignored"
echo "+via_stderr" >&2
