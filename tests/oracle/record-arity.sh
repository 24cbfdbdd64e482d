#!/usr/bin/env bash
# Record cf-promises' verdict on calls with wrong arity or argument types:
#   policies/functions/arity.list (lines "TYPE CALL") --> policies/functions/arity.expected
# Each call is validated alone in a one-promise policy with `cf-promises -c` (cf-agent is never run).
set -eu
cd "$(dirname "$0")/../.."
list=policies/functions/arity.list
out=policies/functions/arity.expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: > "$out"
grep -v '^#' "$list" | grep -v '^$' | while IFS= read -r line; do
  ty=${line%% *}; call=${line#* }
  printf 'bundle agent main\n{\nvars:\n  "x" %s => %s;\n}\n' "$ty" "$call" > "$tmp/x.cf"
  printf '== %s\n' "$call" >> "$out"
  ( cd "$tmp" && timeout 60 cf-promises -c -f ./x.cf 2>&1; echo "exit $?" ) >> "$out" || true
done
echo "recorded $out"
