#!/bin/sh
# Promise module for custom_module_bad_header.cf: reads the agent's header and exits without answering.
read -r header
read -r empty
exit 0
