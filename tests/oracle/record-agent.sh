#!/usr/bin/env bash
# Record what the real cf-agent 3.21.0 prints for each policies/agent/*.cf (via cf-oracle, which validates
# first and honours the policy's "# args:" line; "# agent-args:" flags go to cf-agent only). Writes NAME.expected: "# exit: N" then stdout, with the
# fixture directory replaced by $DIR. Usage: tests/oracle/record-agent.sh [NAME...]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
dir="$root/policies/agent"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$dir"/*.cf "$dir"/*/*.cf; do n=${f#"$dir"/}; names+=("${n%.cf}"); done
fi
for n in "${names[@]}"; do
  tmp=$(mktemp)
  aargs=$(grep -m1 '^# agent-args:' "$dir/$n.cf" | sed 's/^# agent-args://')
  /work/shared/tools/cf-oracle agent "$dir/$n.cf" $aargs >"$tmp" 2>&1; rc=$?
  pdir=$(dirname "$dir/$n.cf")
  { echo "# exit: $rc"; sed "s#$pdir#\$DIR#g" "$tmp"; } > "$dir/$n.expected"
  rm -f "$tmp"
  echo "recorded $n (exit $rc)"
done
