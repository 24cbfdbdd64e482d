#!/usr/bin/env bash
# Re-record policies/parse/checks/*.expected and policies/parse/checks/sweep/*.expected from the real
# cf-promises 3.21.0 (the sweep inputs come from tests/oracle/gen-sweep-checks.py).
#
# Each NAME.cf is parsed with `cf-promises -f ./NAME.cf` from its own directory (parse-time checks only; the
# policies are never run). NAME.expected holds, in this order:
#   # exit: N
#   # stderr:
#   <stderr, verbatim>
#   # stdout:
#   <stdout, verbatim>
# tests/parse_checks.rs re-checks these recordings against the live binary and against syntax::check.
set -euo pipefail
command -v cf-promises >/dev/null || { echo "record-checks: cf-promises is not installed" >&2; exit 2; }
cf-promises --version | grep -q '3\.21\.0' || { echo "record-checks: need CFEngine 3.21.0" >&2; exit 2; }
dir=$(cd "$(dirname "$0")/../../policies/parse/checks" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir"
count=0
for f in *.cf sweep/*.cf; do
  [ -e "$f" ] || continue
  name=${f%.cf}
  set +e
  (cd "$(dirname "$f")" && timeout 60 cf-promises -f "./$(basename "$f")") >"$tmp/out" 2>"$tmp/err"
  rc=$?
  set -e
  count=$((count + 1))
  {
    echo "# exit: $rc"
    echo "# stderr:"
    cat "$tmp/err"
    echo "# stdout:"
    cat "$tmp/out"
  } >"$name.expected"
done
echo "record-checks: recorded $count cases in $dir"
