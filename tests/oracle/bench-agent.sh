#!/usr/bin/env bash
# Benchmark: every policies/eval policy run as a whole process by `cfsim agent` and by `cf-agent -K`
# (via cf-oracle, which also runs cf-promises -c first: the agent's own validation step, so it is counted),
# side by side. Usage: tests/oracle/bench-agent.sh [CFSIM_BINARY]   (default target/<host tuple>/release/cfsim)
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${1:-$root/target/$(rustc --print host-tuple)/release/cfsim}
now() { date +%s.%N; }
tc=0; ta=0; n=0
# subtotals of the policies run with --exec (real commands and modules run, with their sleeps and
# timeouts, in both tools) and of the pure simulations
xc=0; xa=0; xn=0
printf '%-48s %10s %10s %7s\n' policy cfsim_s cf-agent_s ratio
for f in $(find "$root/policies/eval" -name '*.cf' | sort); do
  d=$(dirname "$f"); b=$(basename "$f")
  args=$(grep -m1 '^# args:' "$f" | sed 's/^# args://')
  ex=""; grep -q '^# cfsim: --exec' "$f" && ex=--exec
  t0=$(now); (cd "$d" && "$bin" agent -K -f "./$b" $args $ex >/dev/null 2>&1); t1=$(now)
  (/work/shared/tools/cf-oracle agent "$f" >/dev/null 2>&1); t2=$(now)
  c=$(echo "$t1 - $t0" | bc -l); a=$(echo "$t2 - $t1" | bc -l)
  tc=$(echo "$tc + $c" | bc -l); ta=$(echo "$ta + $a" | bc -l); n=$((n+1))
  if [ -n "$ex" ]; then xc=$(echo "$xc + $c" | bc -l); xa=$(echo "$xa + $a" | bc -l); xn=$((xn+1)); fi
  printf '%-48s %10.4f %10.4f %7.1f\n' "${f#$root/policies/eval/}" "$c" "$a" "$(echo "$a / $c" | bc -l)"
done
sc=$(echo "$tc - $xc" | bc -l); sa=$(echo "$ta - $xa" | bc -l)
printf '%-48s %10.3f %10.3f %7.1f\n' "simulated, no --exec ($((n-xn)) policies)" "$sc" "$sa" "$(echo "$sa / $sc" | bc -l)"
printf '%-48s %10.3f %10.3f %7.1f\n' "--exec: real commands run ($xn policies)" "$xc" "$xa" "$(echo "$xa / $xc" | bc -l)"
printf '%-48s %10.3f %10.3f %7.1f\n' "TOTAL ($n policies)" "$tc" "$ta" "$(echo "$ta / $tc" | bc -l)"
