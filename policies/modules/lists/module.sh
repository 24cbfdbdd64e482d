#!/bin/sh
# Lists: the 3.21 list literal (no empty list, no trailing comma, no escapes).
echo '@lst= { "a", "b", "c" }'
echo "@sq={'x','y'}"
echo '@mixed={ "it'"'"'s", '"'"'say "hi"'"'"' }'
echo '@empty={ }'
echo '@nobrace=a,b'
echo '@tc={ "a", }'
echo '@esc={ "say \"hi\"" }'
echo '@after={ "z" } x'
echo '@'
echo '@noeq'
