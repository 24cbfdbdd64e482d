#!/usr/bin/env bash
# Re-record policies/parse/runnable/*.expected and *.c.expected from the real cf-promises 3.21.0: the
# checks of a runnable policy (undefined bodies, required comments, bundle arity over the whole policy)
# and `-c`'s verification of the bundlesequence.
#
# Each NAME.cf is checked from its own directory with `cf-promises -f ./NAME.cf ARGS` (NAME.expected) and
# `cf-promises -c -f ./NAME.cf ARGS` (NAME.c.expected), ARGS from a `# args:` line. cf-agent is never run
# (it would fall back to its failsafe policy on the rejected ones). Format, as policies/parse/checks:
#   # exit: N
#   # stderr:
#   <stderr, verbatim>
#   # stdout:
#   <stdout, verbatim>
# tests/parse_runnable.rs re-checks these recordings against the live binary and against cfsim.
set -euo pipefail
command -v cf-promises >/dev/null || { echo "record-runnable: cf-promises is not installed" >&2; exit 2; }
cf-promises --version | grep -q '3\.21\.0' || { echo "record-runnable: need CFEngine 3.21.0" >&2; exit 2; }
dir=$(cd "$(dirname "$0")/../../policies/parse/runnable" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$dir"
count=0
for f in *.cf; do
  name=${f%.cf}
  read -r -a extra <<<"$(grep -m1 '^# args:' "$f" | sed 's/^# args://' || true)"
  for mode in plain c; do
    flags=()
    [ "$mode" = c ] && flags=(-c)
    set +e
    timeout 60 cf-promises "${flags[@]}" -f "./$f" "${extra[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
    out=$name.expected
    [ "$mode" = c ] && out=$name.c.expected
    { echo "# exit: $rc"; echo "# stderr:"; cat "$tmp/err"; echo "# stdout:"; cat "$tmp/out"; } >"$out"
    count=$((count + 1))
  done
done
echo "record-runnable: recorded $count runs in $dir"
