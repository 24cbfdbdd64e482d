#!/bin/sh
# module for module_output_shown.cf
echo "+shown_class"
echo "a plain line"
echo "=x=1"
