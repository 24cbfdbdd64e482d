#!/bin/sh
# module for cfengine_die_last_line.cf: cfengine-die on the last line; the module has finished when the
# agent stops reading, so it ends normally
echo "+before_die"
echo "=v=1"
echo "done: cfengine-die"
