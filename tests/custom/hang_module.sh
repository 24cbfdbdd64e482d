#!/bin/sh
# A promise module that answers the header, then never answers a request (tests/custom_promises.rs).
read -r header
read -r empty
printf 'hang 0.0.1 v1 line_based\n\n'
sleep 30
