#!/usr/bin/env bash
# Benchmark: the cost of `cfsim agent --timeline` on the masterfiles run. The same run is timed with and
# without --timeline, alternating (so that a change in the machine's speed hits both), ROUNDS times;
# the medians and their ratio are printed (issue 13: under 2x), with the CPU time of each (the wall time
# of a run this short also holds waits that are not computation). Then the size of the page and the
# browser's load time, navigation start to the load event, as the browser test (tests/timeline_browser.rs,
# headless Chromium) measures it.
#
#   benches/timeline.sh [ROUNDS] [HOST]   (default 21 rounds, policies/hosts/web1-oslo-debian.json)
#   TIMELINE_BROWSER=0 benches/timeline.sh   skip the browser part
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-21}
host=${2:-$PWD/policies/hosts/web1-oslo-debian.json}
mf=/usr/share/cfengine3/masterfiles/promises.cf
[ -r "$mf" ] || { echo "masterfiles missing ($mf): install cfengine3" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/timeline-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet
bin=$PWD/target/$(rustc --print host-tuple)/release/cfsim
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}

# wall and CPU (user+sys) seconds of one run (bash's `time`, millisecond resolution), output discarded
measure() {
  local TIMEFORMAT='%3R %3U %3S'
  { time "$@" >/dev/null 2>&1 || true; } 2>"$work/time"
  awk '{ print $1, $2 + $3 }' "$work/time"
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

"$bin" agent -f "$mf" --host "$host" >/dev/null 2>&1 || true # warm the page cache
: >"$work/plain"; : >"$work/timeline"
for _ in $(seq "$rounds"); do
  measure "$bin" agent -f "$mf" --host "$host" >>"$work/plain"
  measure "$bin" agent -f "$mf" --host "$host" --timeline "$work/mf.html" >>"$work/timeline"
done
pw=$(cut -d' ' -f1 "$work/plain" | median); pc=$(cut -d' ' -f2 "$work/plain" | median)
tw=$(cut -d' ' -f1 "$work/timeline" | median); tc=$(cut -d' ' -f2 "$work/timeline" | median)
events=$("$bin" agent -f "$mf" --host "$host" --trace-file - 2>/dev/null | grep -c '^{"version"' || true)
size=$(stat -c %s "$work/mf.html")
echo "masterfiles on $(basename "$host"): $events evaluations, $rounds alternating rounds, medians (load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) cores)"
printf '  run alone           wall %.3f s  cpu %.3f s\n' "$pw" "$pc"
printf '  run + --timeline    wall %.3f s  cpu %.3f s\n' "$tw" "$tc"
awk -v a="$pw" -v b="$tw" -v c="$pc" -v d="$tc" 'BEGIN { printf "  ratio               wall %.2fx  cpu %.2fx  (budget: under 2x)\n", b / a, d / c }'
echo "  page size           $size bytes ($(awk -v s="$size" 'BEGIN { printf "%.0f", s / 1024 }') KiB)"

if [ "${TIMELINE_BROWSER:-1}" != 0 ]; then
  # the browser test loads the masterfiles page among others and prints its load time
  cargo test --release --quiet --test timeline_browser -- --nocapture 2>/dev/null | grep '^timeline .*load_ms' | sed 's/^/  browser: /' || echo "  browser: the test did not run (chromium missing?)"
fi
