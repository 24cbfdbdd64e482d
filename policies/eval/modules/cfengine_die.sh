#!/bin/sh
# module for cfengine_die.cf: a line containing cfengine-die stops the reading; the pause makes the
# agent close the pipe before the next line is written (so the outcome does not depend on timing)
echo "+before_die"
echo "stop here: cfengine-die"
sleep 1
echo "+after_die"
