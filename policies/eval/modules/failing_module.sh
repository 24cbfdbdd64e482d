#!/bin/sh
# module for failing_module.cf: emits a class and a var, then fails
echo "+emitted_before_failure"
echo "=v=kept"
exit 3
