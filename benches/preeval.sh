#!/usr/bin/env bash
# benches/preeval.sh — issue 4's benchmark: parse and pre-evaluate the masterfiles' promises.cf with cfsim
# and with the real cf-promises, side by side (hyperfine), and print the ratio of the mean times.
# Usage: benches/preeval.sh [MASTERFILES_DIR] [RUNS]   (builds target/release/cfsim first)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mf="${1:-/usr/share/cfengine3/masterfiles}"
runs="${2:-20}"
for tool in hyperfine cf-promises; do
    command -v "$tool" >/dev/null || { echo "preeval.sh: '$tool' not found" >&2; exit 2; }
done
[ -f "$mf/promises.cf" ] || { echo "preeval.sh: no promises.cf in $mf" >&2; exit 2; }
(cd "$root" && cargo build --release --quiet)
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
cd "$mf"
hyperfine -N -w 3 -r "$runs" --export-json "$out" \
    "$root/target/release/cfsim promises -f ./promises.cf --show-vars" \
    "cf-promises -f ./promises.cf --show-vars"
python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
cfsim, real = r[0]["mean"], r[1]["mean"]
print(f"cfsim {cfsim*1000:.1f} ms, cf-promises {real*1000:.1f} ms: cfsim is {real/cfsim:.2f}x faster (goal: 5x)")
PY
