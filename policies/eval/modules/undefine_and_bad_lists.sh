#!/bin/sh
# module for undefine_and_bad_lists.cf
echo "-from_cli,second_cli"
echo "-never_defined"
echo "@empty= { }"
echo "@nobraces=a,b"
echo "@good={'x','y'}"
echo "%prim=3"
echo "%bad={nope"
