#!/usr/bin/env bash
# benches/preeval.sh — issue 4's benchmark: parse and pre-evaluate the masterfiles' promises.cf with cfsim
# and with the real cf-promises, side by side, and print the ratio (issue 4: at least 5x faster; issue 15: 10x with less memory).
# Usage: benches/preeval.sh [MASTERFILES_DIR] [RUNS] [EXTRA_FLAG]   (builds target/<host tuple>/release/cfsim first,
#   in CARGO_TARGET_DIR when that is set; CFSIM=/path/to/cfsim benches that binary instead, e.g. an older build)
#   EXTRA_FLAG defaults to --show-vars (both tools also print the variables table); pass "" for a bare
#   `-f ./promises.cf` check.
# The two commands are run alternately (cfsim, cf-promises, cfsim, …) rather than one batch after the
# other: on a shared machine the speed of both drifts by ±30% within a minute, and alternating keeps
# each pair of runs moments apart. Medians and means of the wall times are printed, their ratios, and
# each tool's peak resident memory.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mf="${1:-/usr/share/cfengine3/masterfiles}"
runs="${2:-50}"
flag="${3---show-vars}"
for tool in python3 cf-promises; do
    command -v "$tool" >/dev/null || { echo "preeval.sh: '$tool' not found" >&2; exit 2; }
done
[ -f "$mf/promises.cf" ] || { echo "preeval.sh: no promises.cf in $mf" >&2; exit 2; }
if [ -n "${CFSIM:-}" ]; then
    cfsim=$CFSIM
else
    (cd "$root" && cargo build --release --quiet)
    cfsim=${CARGO_TARGET_DIR:-$root/target}/$(rustc --print host-tuple)/release/cfsim
fi
cd "$mf"
python3 - "$runs" "$cfsim" "$flag" <<'PY'
import resource, statistics, subprocess, sys, time

runs, cfsim, flag = int(sys.argv[1]), sys.argv[2], sys.argv[3]
extra = [flag] if flag else []
cmds = {
    "cfsim": [cfsim, "promises", "-f", "./promises.cf"] + extra,
    "cf-promises": ["cf-promises", "-f", "./promises.cf"] + extra,
}

def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t

for cmd in cmds.values():  # warm-up: file cache, dynamic loader
    for _ in range(3):
        run(cmd)
times = {name: [] for name in cmds}
for _ in range(runs):
    for name, cmd in cmds.items():
        times[name].append(run(cmd))

def peak_kb(cmd):
    # GNU time's %M (ru_maxrss of its child); 0 when /usr/bin/time is missing
    try:
        out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        return int(out.stderr.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        return 0

print(f"{runs} alternating runs of: {' '.join(cmds['cfsim'][1:])}")
for name, cmd in cmds.items():
    t = times[name]
    print(f"  {name:12s} median {statistics.median(t)*1000:7.1f} ms   mean {statistics.mean(t)*1000:7.1f} ms"
          f"   min {min(t)*1000:7.1f} ms   peak RSS {peak_kb(cmd)/1024:5.1f} MB")
med = statistics.median(times["cf-promises"]) / statistics.median(times["cfsim"])
mean = statistics.mean(times["cf-promises"]) / statistics.mean(times["cfsim"])
print(f"cfsim is {med:.2f}x faster (medians), {mean:.2f}x (means); goal (issue 15): 10x")
PY
