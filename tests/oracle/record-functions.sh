#!/usr/bin/env bash
# Record the real cf-agent's answers for every function case file:
#   policies/functions/<family>.cases --gen-policy.py--> <family>.cf --cf-agent -K--> <family>.expected
#                                                         <family>.cf --cf-promises--> <family>.promises.expected
# Usage: tests/oracle/record-functions.sh [family...]   (default: all families)
# Needs cfengine3 (3.21.0) installed; runs cf-promises -c first so an invalid policy never reaches cf-agent.
set -eu
# the system family reads this variable through getenv()
export CFSIM_TEST_VAR=value-of-test
cd "$(dirname "$0")/../.."
dir=policies/functions
fams=("$@")
if [ ${#fams[@]} -eq 0 ]; then
  for f in "$dir"/*.cases; do b=$(basename "$f" .cases); fams+=("$b"); done
fi
for fam in "${fams[@]}"; do
  python3 tests/oracle/gen-policy.py "$dir/$fam.cases" > "$dir/$fam.cf"
  ( cd "$dir" && timeout 60 cf-promises -c -f "./$fam.cf" >/dev/null ) || { echo "cf-promises rejected $dir/$fam.cf" >&2; exit 1; }
  ( cd "$dir" && timeout 120 cf-agent -K -f "./$fam.cf" ) > "$dir/$fam.expected"
  # what cf-promises itself prints (its pre-evaluation's function errors), for `cfsim promises`
  ( cd "$dir" && timeout 60 cf-promises -f "./$fam.cf" ) > "$dir/$fam.promises.expected"
  echo "recorded $dir/$fam.expected ($(grep -c '^R: ' "$dir/$fam.expected") report lines)"
done
