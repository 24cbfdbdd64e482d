#!/bin/sh
# Size limits: class lines over 1024 bytes, =/@ lines over 4352 bytes, @ items over 1024 bytes are
# skipped with an error; = values are cut at 4095 bytes, ^meta at 1024, ^context at 50; % has no limit.
v() { printf "$1%.0s" $(seq 1 $2); }
echo "+$(v a 1023)"
echo "+$(v b 1024)"
echo "-$(v c 1024)"
echo "=cut=$(v x 4096)"
echo "=fits=$(v x 4346)"
echo "=over=$(v x 4347)"
echo "@item1024={\"$(v y 1024)\"}"
echo "@item1025={\"$(v y 1025)\"}"
echo "@overline={\"$(v y 1000)\",\"$(v y 1000)\",\"$(v y 1000)\",\"$(v y 1000)\",\"$(v y 1000)\"}"
echo "%bigdata={\"k\":\"$(v z 5000)\"}"
echo "^meta=$(v t 1030)"
echo "+tagged"
echo "^context=$(v q 60)"
echo "=in_cut_context=1"
