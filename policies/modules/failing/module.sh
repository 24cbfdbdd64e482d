#!/bin/sh
# A failing module: what it printed before exiting 3 stays defined.
echo "+before_fail"
echo "=v=1"
exit 3
