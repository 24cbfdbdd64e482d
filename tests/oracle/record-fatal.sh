#!/usr/bin/env bash
# Record what the real cf-promises 3.21 prints for policies/functions/fatal/*.cf (a function's fatal error
# stops it): NAME.expected = "# exit: N" then stdout. cf-agent is never run on these (its validation would
# fail and it would fall back to its failsafe policy).
set -u
dir="$(cd "$(dirname "$0")/../../policies/functions/fatal" && pwd)"
cd "$dir"
for f in *.cf; do
  n=${f%.cf}
  out=$(timeout 60 cf-promises -f "./$f" 2>&1); rc=$?
  { echo "# exit: $rc"; printf '%s\n' "$out"; } > "$n.expected"
  echo "recorded $n (exit $rc)"
done
