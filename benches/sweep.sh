#!/usr/bin/env bash
# sweep.sh: whole-process parse sweep over the installed masterfiles, cfsim vs the real cf-promises.
#
#   benches/sweep.sh [RUNS]        default 5 runs per tool (hyperfine: RUNS runs after 1 warm-up)
#
# One sweep = for every .cf file under $MASTERFILES (79 on cfengine3 3.21.0), one process
#   cfsim promises -p json -f ./F      resp.      cf-promises -p json -f ./F
# run from the masterfiles root with output discarded. Prints the mean time of a sweep per tool and the
# ratio cfsim / cf-promises. Uses hyperfine when installed (apt-get install hyperfine), else a loop timed
# with `date +%s%N`. A sweep also counts files on which a tool exits non-zero: a fast failure must not pass
# for a fast parse, so the script exits 1 if cfsim fails on any file.
# Env: CFSIM (default target/<host tuple>/release/cfsim — CARGO_TARGET_DIR's when set —, built with `cargo build --release` if missing),
#      CF_PROMISES (default: cf-promises on PATH), MASTERFILES (default /usr/share/cfengine3/masterfiles).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
masterfiles=${MASTERFILES:-/usr/share/cfengine3/masterfiles}

# Internal mode: one sweep with one tool; prints the number of failing files on stderr.
if [ "${1:-}" = --once ]; then
  tool=$2
  cd "$masterfiles"
  failed=0
  while IFS= read -r f; do
    if [ "$tool" = cf-promises ]; then
      "${CF_PROMISES:-cf-promises}" -p json -f "$f" >/dev/null 2>&1 || failed=$((failed + 1))
    else
      "$tool" promises -p json -f "$f" >/dev/null 2>&1 || failed=$((failed + 1))
    fi
  done < <(find . -name '*.cf' | LC_ALL=C sort)
  echo "$failed" >&2
  exit 0
fi

runs=${1:-5}
case "$runs" in '' | *[!0-9]* | 0) echo "sweep: RUNS must be a positive integer" >&2; exit 2 ;; esac
[ -d "$masterfiles" ] || { echo "sweep: $masterfiles missing (apt-get install cfengine3)" >&2; exit 2; }
command -v "${CF_PROMISES:-cf-promises}" >/dev/null || { echo "sweep: cf-promises not installed" >&2; exit 2; }
cfsim=${CFSIM:-${CARGO_TARGET_DIR:-$root/target}/$(rustc --print host-tuple)/release/cfsim}
if [ ! -x "$cfsim" ]; then
  echo "sweep: building $cfsim (cargo build --release)" >&2
  (cd "$root" && cargo build --release -q)
fi
cfsim=$(cd "$(dirname "$cfsim")" && pwd)/$(basename "$cfsim")
files=$(find "$masterfiles" -name '*.cf' | wc -l)
echo "sweep: $files files under $masterfiles, $runs runs per tool"

# Failure counts (one extra sweep each, also serves as warm-up of the page cache).
cfsim_failed=$("$0" --once "$cfsim" 2>&1 >/dev/null)
cf_failed=$("$0" --once cf-promises 2>&1 >/dev/null)
echo "sweep: non-zero exits: cfsim $cfsim_failed/$files, cf-promises $cf_failed/$files"

if command -v hyperfine >/dev/null 2>&1; then
  csv=$(mktemp)
  trap 'rm -f "$csv"' EXIT
  hyperfine --style basic --warmup 1 --runs "$runs" --export-csv "$csv" \
    -n cfsim "'$0' --once '$cfsim'" -n cf-promises "'$0' --once cf-promises" >&2
  # CSV columns: command,mean,stddev,median,user,system,min,max (seconds)
  cfsim_s=$(awk -F, '$1 == "cfsim" { print $2 }' "$csv")
  cf_s=$(awk -F, '$1 == "cf-promises" { print $2 }' "$csv")
else
  echo "sweep: hyperfine not installed; timing with date +%s%N" >&2
  time_sweeps() {
    local start end
    start=$(date +%s%N)
    for _ in $(seq "$runs"); do "$0" --once "$1" 2>/dev/null; done
    end=$(date +%s%N)
    awk -v ns=$((end - start)) -v n="$runs" 'BEGIN { printf "%.6f", ns / n / 1e9 }'
  }
  cfsim_s=$(time_sweeps "$cfsim")
  cf_s=$(time_sweeps cf-promises)
fi
awk -v a="$cfsim_s" -v b="$cf_s" -v n="$files" 'BEGIN {
  printf "cfsim       : %8.3f s per sweep (%6.2f ms per file)\n", a, a * 1000 / n
  printf "cf-promises : %8.3f s per sweep (%6.2f ms per file)\n", b, b * 1000 / n
  printf "ratio cfsim / cf-promises: %.3f (%s)\n", a / b, (a < b ? "cfsim faster" : "cf-promises faster")
}'
[ "$cfsim_failed" -eq 0 ] || { echo "sweep: cfsim failed on $cfsim_failed files; timings are not comparable" >&2; exit 1; }
