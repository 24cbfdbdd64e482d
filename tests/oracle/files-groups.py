#!/usr/bin/env python3
"""files-groups.py: run cfsim on every files-corpus case in one mode and group the differences.

    tests/oracle/files-groups.py MODE [--bin PATH] [--jobs N] [--diffs DIR] [PREFIX...]

MODE is one of I n default diff manifest manifest-full verbose (the modes of tests/files_fixtures.rs that
compare output; trees are not compared here). For each case (or only those whose names start with a
PREFIX) the case's setup.sh builds a scratch tree in a temporary directory, cfsim runs the policy as
tests/files_fixtures.rs runs it (cwd = the case directory, `-K <flags> -f ./policy.cf --host PROFILE`,
the profile being policies/hosts/ci-machine.json with `files_root` = the scratch root), its output goes
through the recorder's normalisation (record-files.sh --normalise) and, for verbose, through
tests/oracle/eval-filter.sh verbose, and is compared with expected/<MODE>.out.

Prints the number of identical cases, then the differing cases grouped by their first differing line
(the recorded line and cfsim's, with the case name replaced by <NAME>), biggest group first. With
--diffs DIR, each differing case's unified diff is written to DIR/<NAME>.diff. A development aid only:
the test that counts is tests/files_fixtures.rs.
"""
import argparse
import concurrent.futures
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
FLAGS = {
    "I": ["-I"],
    "n": ["-n"],
    "default": [],
    "diff": ["-I", "--simulate=diff"],
    "manifest": ["-I", "--simulate=manifest"],
    "manifest-full": ["-I", "--simulate=manifest-full"],
    "verbose": ["-v"],
}


LISTING_END = re.compile(r"^(=+|\s*[a-z]+: .*|R: .*)$")


def sort_dir_listings(text):
    """Each `Directory contents:` block with its names sorted, on both sides, as tests/files_fixtures.rs
    compares them (its sort_dir_listings: the agent lists the chroot directory in the
    recording machine's ext4 hash order, which no simulator can reproduce)."""
    out, block = [], None
    for line in text.splitlines(True):
        if block is not None:
            if not LISTING_END.match(line.rstrip("\n")) and line.endswith("\n"):
                block.append(line)
                continue
            out.extend(sorted(block, key=lambda l: l.encode()))
            block = None
        out.append(line)
        if line.rstrip("\n") == "Directory contents:":
            block = []
    if block is not None:
        out.extend(sorted(block, key=lambda l: l.encode()))
    return "".join(out)


def pipe(cmd, data):
    return subprocess.run(cmd, input=data, stdout=subprocess.PIPE).stdout


def run_case(mode, binary, case):
    name = os.path.basename(case)
    want_path = os.path.join(case, "expected", mode + ".out")
    if not os.path.exists(want_path):
        return name, None
    tmp = tempfile.mkdtemp(prefix="cfsim-groups-")
    try:
        scratch = os.path.join(tmp, "r", "srv", "cfsim-files", name)
        os.makedirs(scratch)
        subprocess.run(["sh", os.path.join(case, "setup.sh")], cwd=scratch,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(os.path.join(ROOT, "policies/hosts/ci-machine.json")) as f:
            prof = json.load(f)
        prof.pop("files", None)
        prof["files_root"] = os.path.join(tmp, "r")
        prof_path = os.path.join(tmp, "profile.json")
        with open(prof_path, "w") as f:
            json.dump(prof, f)
        out_dir = os.path.join(tmp, "out")
        p = subprocess.run([binary, "agent", "-K"] + FLAGS[mode] +
                           ["-f", "./policy.cf", "--host", prof_path, "--write-root", out_dir],
                           cwd=case, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        got = pipe([os.path.join(ROOT, "tests/oracle/record-files.sh"), "--normalise"], p.stdout + p.stderr)
        if mode == "verbose":
            got = pipe(["bash", os.path.join(ROOT, "tests/oracle/eval-filter.sh"), "verbose", case], got)
        got = got.decode("utf-8", "replace")
        with open(want_path, encoding="utf-8", errors="replace") as f:
            want = f.read()
        want, got = sort_dir_listings(want), sort_dir_listings(got)
        if got == want:
            return name, None
        w, g = want.splitlines(), got.splitlines()
        i = 0
        while i < len(w) and i < len(g) and w[i] == g[i]:
            i += 1
        first = (w[i] if i < len(w) else "<end>", g[i] if i < len(g) else "<end>")
        diff = "".join(difflib.unified_diff(want.splitlines(True), got.splitlines(True), "recorded", "cfsim"))
        return name, (first, diff)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=sorted(FLAGS))
    # the debug build: cargo builds for the host tuple (.cargo/config.toml), in target/<tuple>/debug/
    tuple = subprocess.run(["rustc", "--print", "host-tuple"], capture_output=True, text=True).stdout.strip()
    ap.add_argument("--bin", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                                                  tuple, "debug", "cfsim"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--diffs")
    ap.add_argument("prefix", nargs="*")
    a = ap.parse_intermixed_args()
    base = os.path.join(ROOT, "policies", "files")
    cases = sorted(os.path.join(base, d) for d in os.listdir(base)
                   if os.path.isfile(os.path.join(base, d, "policy.cf"))
                   and (not a.prefix or any(d.startswith(p) for p in a.prefix)))
    groups = defaultdict(list)
    same = 0
    if a.diffs:
        os.makedirs(a.diffs, exist_ok=True)
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        for name, res in ex.map(lambda c: run_case(a.mode, a.bin, c), cases):
            if res is None:
                same += 1
                continue
            (w, g), diff = res
            key = (w.replace(name, "<NAME>"), g.replace(name, "<NAME>"))
            groups[key].append(name)
            if a.diffs:
                with open(os.path.join(a.diffs, name + ".diff"), "w") as f:
                    f.write(diff)
    print(f"{a.mode}: {same}/{len(cases)} identical")
    for (w, g), names in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"\n[{len(names)}] recorded: {w}\n     cfsim:    {g}\n     cases: {' '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
