#!/bin/sh
# module for henc_list_convergence.cf: prints the ENC files given as arguments, in order
for f in "$@"; do cat "$f"; done
