#!/usr/bin/env bash
# Record the real cf-agent's output for the expression-layer case files:
#   policies/expr/<name>.cases --gen-policy.py--> <name>.cf --cf-agent -K--> <name>.expected
# Usage: tests/oracle/record-expr.sh [name...]   (default: all)
set -eu
cd "$(dirname "$0")/../.."
dir=policies/expr
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$dir"/*.cases; do names+=("$(basename "$f" .cases)"); done
fi
for n in "${names[@]}"; do
  python3 tests/oracle/gen-policy.py "$dir/$n.cases" > "$dir/$n.cf"
  ( cd "$dir" && timeout 60 cf-promises -c -f "./$n.cf" >/dev/null ) || { echo "cf-promises rejected $dir/$n.cf" >&2; exit 1; }
  ( cd "$dir" && timeout 120 cf-agent -K -f "./$n.cf" ) > "$dir/$n.expected"
  echo "recorded $dir/$n.expected ($(grep -c '^R: ' "$dir/$n.expected") report lines)"
done
