#!/usr/bin/env bash
# cf-promises-as-cfsim.sh: stands in for `cfsim promises …` by running the real cf-promises, to self-check
# the conformance harness (a harness that fails against the reference itself is wrong, not cfsim):
#   CFSIM_BIN=$PWD/tests/oracle/cf-promises-as-cfsim.sh INSTA_FORCE_PASS=1 cargo test --test parse_conformance
set -u
[ "${1:-}" = promises ] || { echo "usage: $0 promises [cf-promises flags]" >&2; exit 2; }
shift
exec timeout 120 cf-promises "$@"
