#!/usr/bin/env bash
# Record what the real cf-agent 3.21 prints on this machine, together with a portable profile of the
# machine's facts taken in the same run (clock and uptime pinned to the agent's own values).
# Usage (from the repository root): policies/hosts/recorded/record.sh
set -euo pipefail
root=$(pwd)
out=$root/policies/hosts/recorded
work=$(mktemp -d)
cp "$root/policies/hosts/live/trivial.cf" "$root/policies/hosts/iprange/iprange_cases.cf" "$work/"
cd "$work"
cf-promises -c -f ./trivial.cf
cf-agent -K -f ./trivial.cf --show-evaluated-classes --show-evaluated-vars='sys\..*' > agent.txt
systime=$(awk '/^default:sys.systime /{print $2}' agent.txt)
uptime=$(awk '/^default:sys.uptime /{print $2}' agent.txt)
grep -v 'source=persistent' agent.txt | sed -n '/^Class name/,/^Variable name/p' | sed '$d' > "$out/ci-machine.classes.txt"
# sys.interfaces_data and sys.inet6 are kernel counters cfsim does not simulate; not recorded.
sed -n '/^Variable name/,$p' agent.txt | grep -v -E '^default:sys\.(interfaces_data|inet6) ' > "$out/ci-machine.vars.txt"
cd "$root"
cargo run -q --example host_profile -- local --time "$systime" --uptime "$uptime" --portable > "$root/policies/hosts/ci-machine.json"
cd "$work"
cf-promises -c -f ./iprange_cases.cf
cf-agent -K -f ./iprange_cases.cf | grep -E '^R: |error:' > "$out/iprange.txt" || true
rm -rf "$work"
echo "recorded into $out"
