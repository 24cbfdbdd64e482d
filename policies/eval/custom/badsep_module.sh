#!/bin/sh
# Promise module for custom_module_bad_header.cf: its header is not followed by the empty line.
read -r header
read -r empty
printf 'badsep 0.0.1 v1 line_based\nnot empty\n'
read -r rest
