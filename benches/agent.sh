#!/usr/bin/env bash
# benches/agent.sh — issue 15's small agent run: `cfsim agent -K -f ./POLICY` (this machine, read-only)
# side by side with the real `cf-agent -K -f ./POLICY`, run alternately (cfsim, cf-agent, cfsim, …) from the
# policy's directory; medians, means, the ratio and each tool's peak RSS are printed (goal: 30x).
#
#   benches/agent.sh [RUNS] [POLICY...]   default 30 runs; policies: benches/agent-hello.cf (one report)
#                                          and the hENC demo (policies/henc/demo/promises.cf)
#   CFSIM=/path/to/cfsim benches/agent.sh  bench that binary (else CARGO_TARGET_DIR's release build, built first)
#
# Safety: each policy is validated with `cf-promises -c` first and skipped if rejected (cf-agent would run
# its failsafe policy); both bundled policies only report (the hENC demo's module runs `cfsim henc`, which
# only reads files: cfsim's directory is put first on PATH, as benches/fleet.sh does).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runs="${1:-30}"
shift || true
[ $# -gt 0 ] || set -- "$root/benches/agent-hello.cf" "$root/policies/henc/demo/promises.cf"
for tool in python3 cf-agent cf-promises; do
    command -v "$tool" >/dev/null || { echo "agent.sh: '$tool' not found" >&2; exit 2; }
done
if [ -n "${CFSIM:-}" ]; then
    cfsim=$CFSIM
else
    (cd "$root" && cargo build --release --quiet)
    cfsim=${CARGO_TARGET_DIR:-$root/target}/$(rustc --print host-tuple)/release/cfsim
fi
cfsim=$(cd "$(dirname "$cfsim")" && pwd)/$(basename "$cfsim")
export PATH="$(dirname "$cfsim"):$PATH"
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
for policy in "$@"; do
    dir=$(cd "$(dirname "$policy")" && pwd)
    base=$(basename "$policy")
    if ! (cd "$dir" && cf-promises -c -f "./$base" >/dev/null 2>&1); then
        echo "agent.sh: $policy rejected by cf-promises -c; skipped" >&2
        continue
    fi
    (cd "$dir" && python3 - "$runs" "$cfsim" "$base" <<'PY'
import statistics, subprocess, sys, time

runs, cfsim, base = int(sys.argv[1]), sys.argv[2], sys.argv[3]
cmds = {
    "cfsim": [cfsim, "agent", "-K", "-f", "./" + base],
    "cf-agent": ["cf-agent", "-K", "-f", "./" + base],
}

def run(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t

for cmd in cmds.values():  # warm-up: file cache, dynamic loader
    for _ in range(2):
        run(cmd)
times = {name: [] for name in cmds}
for _ in range(runs):
    for name, cmd in cmds.items():
        times[name].append(run(cmd))

def peak_kb(cmd):
    try:
        out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        return int(out.stderr.strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        return 0

print(f"{base}: {runs} alternating runs of -K -f ./{base}")
for name, cmd in cmds.items():
    t = times[name]
    print(f"  {name:9s} median {statistics.median(t)*1000:7.2f} ms   mean {statistics.mean(t)*1000:7.2f} ms"
          f"   min {min(t)*1000:7.2f} ms   peak RSS {peak_kb(cmd)/1024:5.1f} MB")
med = statistics.median(times["cf-agent"]) / statistics.median(times["cfsim"])
mean = statistics.mean(times["cf-agent"]) / statistics.mean(times["cfsim"])
print(f"  cfsim is {med:.1f}x faster (medians), {mean:.1f}x (means); goal: 30x")
PY
    )
done
