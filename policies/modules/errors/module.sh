#!/bin/sh
# stderr is parsed too; junk and indented lines are ignored; CR stays (class canonified, value kept); a line containing cfengine-die stops reading
# (it is the last line here: output after it would race with the agent closing the pipe).
echo "+via_stdout"
echo "+via_stderr" >&2
echo "junk line"
echo " =indented=x"
echo " +indented_class"
printf '+crlf_class\r\n'
printf '=crlf=val\r\n'
echo "=before_die=1"
echo "+x_cfengine-die"
