#!/usr/bin/env bash
# benches/symbol-order.sh — regenerate benches/cfsim.order, the order in which the linker lays out the
# functions of the `cfsim` binary (build.rs passes it to LLD as `--symbol-ordering-file`).
#
# A small cfsim process touches ~1 MB of its 7.5 MB of code; left in the compiler's order, that code is
# spread over the whole text segment, and every 64 KB window of it costs a page fault at each start.
# Laid out together (the functions of a small agent run first, then those a per-file parse adds, then
# the masterfiles check's), the same runs take ~60 fewer page faults and 5-10% less CPU (README "Pre-
# evaluation speed", session 28). The list names the functions callgrind saw executed in these runs:
#
#   cfsim agent -K -f benches/agent-hello.cf                       (a small agent run)
#   cfsim agent -K -f policies/henc/demo/promises.cf --host ...    (the demo: hENC, modules, a profile)
#   cfsim promises -p json -f F                                    (two masterfiles files, as the sweep)
#   cfsim promises -f promises.cf                                  (the masterfiles check)
#
# Names the linker does not find (a function renamed or gone since) are skipped without a word, so an
# old list only lays out less; run this again after large changes. Needs valgrind and the masterfiles
# (MASTERFILES, default /usr/share/cfengine3/masterfiles).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
mf=${MASTERFILES:-/usr/share/cfengine3/masterfiles}
command -v valgrind >/dev/null || { echo "symbol-order.sh: valgrind not found" >&2; exit 2; }
[ -r "$mf/promises.cf" ] || { echo "symbol-order.sh: no masterfiles at $mf" >&2; exit 2; }
(cd "$root" && cargo build --release --quiet --bin cfsim)
cfsim=${CARGO_TARGET_DIR:-$root/target}/$(rustc --print host-tuple)/release/cfsim
cfsim=$(cd "$(dirname "$cfsim")" && pwd)/$(basename "$cfsim")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { # NAME DIR ARGS...: the run's callgrind profile, function names not demangled
    local name=$1 dir=$2
    shift 2
    (cd "$dir" && valgrind -q --tool=callgrind --demangle=no --callgrind-out-file="$tmp/$name.cg" \
        "$cfsim" "$@" >/dev/null 2>&1) || true
}
run 1-hello "$root/benches" agent -K -f ./agent-hello.cf
run 2-demo "$root/policies/henc/demo" agent -K -f ./promises.cf --host ../../hosts/web1-oslo-debian.json
run 3-small "$mf" promises -p json -f ./services/main.cf
run 4-files "$mf" promises -p json -f ./lib/files.cf
run 5-check "$mf" promises -f ./promises.cf
python3 - "$tmp" "$root/benches/cfsim.order" <<'PY'
import os, re, sys
tmp, out = sys.argv[1], sys.argv[2]
order, seen = [], set()
for f in sorted(os.listdir(tmp)):
    # callgrind names each function once, as "fn=(id) name" or "cfn=(id) name", in the order it met them
    for line in open(os.path.join(tmp, f), errors="replace"):
        m = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if not m:
            continue
        name = re.sub(r"'\d+$", "", m.group(1))  # callgrind's recursion marks
        if name.startswith(("(", "0x")) or " " in name or name in seen:
            continue
        seen.add(name)
        order.append(name)
with open(out, "w") as o:
    o.write("".join(n + "\n" for n in order))
print(f"{out}: {len(order)} functions")
PY
