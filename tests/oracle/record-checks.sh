#!/usr/bin/env bash
# Re-record policies/parse/checks/*.expected from the real cf-promises 3.21.0.
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
for f in *.cf; do
  name=${f%.cf}
  set +e
  timeout 60 cf-promises -f "./$f" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  set -e
  {
    echo "# exit: $rc"
    echo "# stderr:"
    cat "$tmp/err"
    echo "# stdout:"
    cat "$tmp/out"
  } >"$name.expected"
done
echo "record-checks: recorded $(ls ./*.cf | wc -l) cases in $dir"
