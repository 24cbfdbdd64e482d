#!/bin/sh
# module for henc_pitfall.cf / henc_fix_sequence.cf
echo "+from_module"
echo "=modvar=hello"
