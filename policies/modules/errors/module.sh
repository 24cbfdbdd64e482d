#!/bin/sh
# stderr is parsed too; junk and indented lines are ignored; a line containing cfengine-die stops reading
# (it is the last line here: output after it would race with the agent closing the pipe).
echo "+via_stdout"
echo "+via_stderr" >&2
echo "junk line"
echo " =indented=x"
echo " +indented_class"
echo "=before_die=1"
echo "+x_cfengine-die"
