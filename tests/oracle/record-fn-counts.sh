#!/usr/bin/env bash
# Record what the real cf-agent 3.21 prints for policies/functions/counts/*.cf (how often function errors
# are logged at each evaluation stage). cf-oracle validates with cf-promises -c first.
# Usage: tests/oracle/record-fn-counts.sh [NAME...]
set -u
dir="$(cd "$(dirname "$0")/../../policies/functions/counts" && pwd)"
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$dir"/*.cf; do b=$(basename "$f" .cf); names+=("$b"); done
fi
for n in "${names[@]}"; do
  /work/shared/tools/cf-oracle agent "$dir/$n.cf" > "$dir/$n.expected" || { echo "failed: $n" >&2; exit 1; }
  echo "recorded $n ($(wc -l < "$dir/$n.expected") lines)"
done
