#!/bin/sh
# module protocol data for data_reals.cf: a container with reals
echo "^context=realsmod"
echo '%d={"r": 1.5, "i": 2, "t": 0.00499}'
