#!/usr/bin/env bash
# record-eval.sh: (re-)record the eval corpus policies/eval/<topic>/NAME.cf with the real cf-agent 3.21.0.
#
#   tests/oracle/record-eval.sh [POLICY.cf ...]      default: every policies/eval/*/*.cf
#
# Per policy, run from its directory as ./NAME.cf through /work/shared/tools/cf-oracle (validates with
# `cf-promises -c` first, passes -K and the policy's "# args:" line), it writes:
#   NAME.out      stdout of the default run            NAME.exit  its exit status
#   NAME.info.out stdout of the run with -I
#   NAME.classes  --show-evaluated-classes table, filtered by tests/oracle/eval-filter.sh classes
#   NAME.vars     --show-evaluated-vars table, filtered by tests/oracle/eval-filter.sh vars
# In every file the absolute path of the fixture directory is replaced by the literal text `$DIR`.
# Policies that need scratch files use /tmp/cfsim-eval-NAME, removed before and after each run.
# Idempotent: recording twice gives identical files (the corpus is deterministic).
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
oracle=${CF_ORACLE:-/work/shared/tools/cf-oracle}
filter="$root/tests/oracle/eval-filter.sh"
if [ $# -eq 0 ]; then set -- "$root"/policies/eval/*/*.cf; fi

# replace the literal text $1 by $DIR on stdin
subdir() { awk -v dir="$1" '{ s = $0; out = ""; while ((i = index(s, dir)) > 0) { out = out substr(s, 1, i - 1) "$DIR"; s = substr(s, i + length(dir)) } print out s }'; }

fail=0
for policy in "$@"; do
  dir=$(cd "$(dirname "$policy")" && pwd) || exit 2
  base=$(basename "$policy" .cf)
  scratch="/tmp/cfsim-eval-$base"
  run() { rm -rf "$scratch"; (cd "$dir" && "$oracle" agent "./$base.cf" "$@"); local rc=$?; rm -rf "$scratch"; return $rc; }
  run > "$dir/$base.raw" 2>&1; rc=$?
  subdir "$dir" < "$dir/$base.raw" > "$dir/$base.out"
  echo "$rc" > "$dir/$base.exit"
  run -I 2>&1 | subdir "$dir" > "$dir/$base.info.out"
  run --show-evaluated-classes 2>&1 | "$filter" classes "$dir" > "$dir/$base.classes"
  run --show-evaluated-vars 2>&1 | "$filter" vars "$dir" > "$dir/$base.vars"
  rm -f "$dir/$base.raw"
  if grep -q 'policy rejected by cf-promises' "$dir/$base.out"; then
    echo "record-eval: $policy rejected by cf-promises" >&2; fail=1
  fi
  echo "recorded ${dir#$root/}/$base (exit $rc, $(wc -l < "$dir/$base.out") lines)"
done
exit $fail
