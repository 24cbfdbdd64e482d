#!/usr/bin/env bash
# Record the slot class names cf-agent computes for splayclass() (its verbose log):
#   policies/functions/splayclass.cf --cf-agent -K -v--> policies/functions/splayclass.expected
set -eu
cd "$(dirname "$0")/../../policies/functions"
timeout 60 cf-promises -c -f ./splayclass.cf >/dev/null
timeout 60 cf-agent -K -v -f ./splayclass.cf | grep 'Computed context' | sed 's/^.*verbose: //' | sort -u > splayclass.expected
echo "recorded policies/functions/splayclass.expected ($(wc -l < splayclass.expected) lines)"
