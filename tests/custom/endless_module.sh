#!/bin/sh
# A promise module that answers the header, then sends key=value lines forever (tests/custom_promises.rs).
read -r header
read -r empty
printf 'endless 0.0.1 v1 line_based\n\n'
read -r request
yes 'x=y'
