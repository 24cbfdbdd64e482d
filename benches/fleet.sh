#!/usr/bin/env bash
# Benchmark: `cfsim fleet` (one process, the policy loaded once, all cores) against N separate
# `cfsim agent --host` processes and against the real cf-agent (which runs one host — this machine — per
# process), on the hENC demo and on the masterfiles. Rounds alternate the contenders so that a change in
# the machine's speed hits all of them; medians, ratios and peak memory (max RSS) are printed.
#
#   benches/fleet.sh [HOSTS] [ROUNDS]     (default 1000 hosts, 3 rounds)
#   FLEET_10K=0 benches/fleet.sh          skip the 10,000-host memory runs
#   (the binary is CARGO_TARGET_DIR's when that is set, as cargo builds it there)
#   FLEET_BIN=/path/to/cfsim benches/fleet.sh   bench that binary (e.g. a copy of an older build)
#
# cf-agent is run only on the hENC demo (its commands only read files, like the tests' recordings); the
# masterfiles would change this machine, so their real-tool baseline is `cf-promises` (the validation
# every cf-agent run starts with: a lower bound of cf-agent's cost per host).
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${1:-1000}
rounds=${2:-3}
work=$(mktemp -d "${TMPDIR:-/tmp}/fleet-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -n "${FLEET_BIN:-}" ]; then
  bin=$FLEET_BIN
else
  cargo build --release --quiet
  bin=${CARGO_TARGET_DIR:-$PWD/target}/$(rustc --print host-tuple)/release/cfsim
fi
demo=$PWD/policies/henc/demo/promises.cf
mf=/usr/share/cfengine3/masterfiles/promises.cf
H=$PWD/policies/hosts

# the five location ranges of the hENC demo (a /24 holds 245 generated hosts: up to 1,225 hosts)
ranges=203.0.113.0/24,10.20.0.0/16,198.51.100.0/24,192.168.10.0/23,192.0.2.0/24
generate() { # N DIR [RANGES]
  "$bin" host generate --from "$H/web1-oslo-debian.json" "$H/db1-rhel-private.json" "$H/laptop-ubuntu-ipv6.json" \
    --count "$1" --vary 'hostname=node{n:05}' --vary domain=example.com,example.net \
    --vary "ipv4=${3:-$ranges}" --out "$2" >/dev/null
}
generate "$hosts" "$work/hosts"
mkdir -p "$work/sample"
ls "$work/hosts"/*.json | head -n 100 | xargs -I{} cp {} "$work/sample/"
sample=$(ls "$work/sample" | wc -l)
echo "machine: $(nproc) cores; hosts: $hosts generated, $sample in the per-process sample; rounds: $rounds"

# wall seconds and max RSS (KB) of one command, stdout and stderr discarded
measure() { /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>&1 || true; cat "$work/time"; }
# wall seconds of a shell function
wall() { local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N); awk -v s="$s" -v e="$e" 'BEGIN { print e - s }'; }
# N separate cfsim agent processes, one per sample host
separate() { for f in "$work/sample"/*.json; do "$bin" agent -f "$1" --host "$f" >/dev/null 2>&1 || true; done; }
# cf-agent -K run 10 times (this machine is its only host), validated first as cf-oracle does
cfagent10() { for _ in 1 2 3 4 5 6 7 8 9 10; do (cd "$(dirname "$1")" && PATH="$(dirname "$bin"):$PATH" cf-agent -K -f "./$(basename "$1")" >/dev/null 2>&1) || true; done; }
cfpromises10() { for _ in 1 2 3 4 5 6 7 8 9 10; do cf-promises -f "$1" >/dev/null 2>&1 || true; done; }
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

bench() { # NAME POLICY NODES REAL(cfagent10|cfpromises10|none)
  local name=$1 policy=$2 n=$3 real=$4
  local hostsdir=$work/hosts
  if [ "$n" -lt "$hosts" ]; then
    hostsdir=$work/hosts-$n; mkdir -p "$hostsdir"
    ls "$work/hosts"/*.json | head -n "$n" | xargs -I{} cp {} "$hostsdir/"
  fi
  : >"$work/f" ; : >"$work/s" ; : >"$work/r"; local rss=0
  for _ in $(seq "$rounds"); do
    read -r w m < <(measure "$bin" fleet -f "$policy" --hosts "$hostsdir")
    echo "$w" >>"$work/f"; rss=$m
    wall separate "$policy" >>"$work/s"
    if [ "$real" != none ] && command -v cf-agent >/dev/null; then
      wall "$real" "$policy" >>"$work/r"
    fi
  done
  local f s r
  f=$(median <"$work/f"); s=$(median <"$work/s")
  r=$( [ -s "$work/r" ] && median <"$work/r" || echo 0)
  awk -v name="$name" -v n="$n" -v f="$f" -v s="$s" -v ns="$sample" -v r="$r" -v real="$real" -v rss="$rss" 'BEGIN {
    fps = n / f; sps = ns / s
    printf "%s: fleet %d nodes in %.2f s = %.0f nodes/s (peak %.1f MB)\n", name, n, f, fps, rss / 1024
    printf "%s: separate cfsim agent processes: %.1f ms/node = %.0f nodes/s -> fleet %.1fx\n", name, 1000 * s / ns, sps, fps / sps
    if (r > 0) {
      label = (real == "cfagent10") ? "cf-agent -K" : "cf-promises (lower bound of cf-agent)"
      printf "%s: %s: %.1f ms/run = %.1f hosts/s -> fleet %.0fx\n", name, label, 100 * r, 10 / r, fps / (10 / r)
    }
  }'
}

bench "hENC demo" "$demo" "$hosts" cfagent10
mfn=$(( hosts < 400 ? hosts : 400 ))
bench "masterfiles" "$mf" "$mfn" cfpromises10

if [ "${FLEET_10K:-1}" = 1 ]; then
  # 10,000 hosts do not fit the /24s: all in Oslo's private /16
  generate 10000 "$work/hosts10k" 10.20.0.0/16
  read -r w m < <(measure "$bin" fleet -f "$demo" --hosts "$work/hosts10k")
  awk -v w="$w" -v m="$m" 'BEGIN { printf "hENC demo, 10,000 hosts: %.2f s = %.0f nodes/s, peak %.1f MB\n", w, 10000 / w, m / 1024 }'
  read -r w m < <(measure "$bin" fleet -f "$mf" --hosts "$work/hosts10k")
  awk -v w="$w" -v m="$m" 'BEGIN { printf "masterfiles, 10,000 hosts: %.2f s = %.0f nodes/s, peak %.1f MB\n", w, 10000 / w, m / 1024 }'
fi
