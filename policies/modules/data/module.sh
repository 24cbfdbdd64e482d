#!/bin/sh
# Data containers: JSON objects/arrays only; '&' loads a file.
d=$(dirname "$0")
echo '%js={"k": [1, 2, {"n": "deep"}]}'
echo '%arr=[1,"two",null,true]'
echo '%prim=null'
echo '%num=42'
echo '%str="s"'
echo '%bad={oops'
echo '%bad2=[1,'
echo "&fromfile=$d/d.json"
echo "&missing=$d/nope.json"
echo "&txt=$d/d.txt"
