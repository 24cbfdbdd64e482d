#!/usr/bin/env python3
"""benches/cputime.py — CPU time (user + system, of the process and its children) of cfsim builds and
the real tools on issue 14/15's workloads, run alternately, medians printed. On a shared machine the
wall-clock benches (preeval.sh, sweep.sh, agent.sh, fleet.sh) swing with the other users' load; CPU
time swings much less, and for a single-threaded tool it is what its wall time is on a quiet machine.

    benches/cputime.py ROUNDS CFSIM [CFSIM...]     e.g. benches/cputime.py 10 old/cfsim target/x86_64-unknown-linux-gnu/release/cfsim

Workloads: `promises -f ./promises.cf` of the masterfiles (vs cf-promises), the per-file sweep of the
79 masterfiles `-p json` (vs cf-promises), `agent -K` on benches/agent-hello.cf (vs cf-agent -K, validated
by cf-promises -c first), and `fleet` on the hENC demo and the masterfiles for HOSTS generated hosts
(CPU per node; no real-tool counterpart). Env: MASTERFILES, HOSTS (default 200).
"""
import os, resource, statistics, subprocess, sys, tempfile, time

rounds = int(sys.argv[1])
builds = sys.argv[2:]
# Each build is run from a copy that is written out, evicted from the page cache and read back, as an
# installed binary that has been on disk is. How the file came into the page cache changes every start's
# cost: a binary the linker has just written ran a small agent run in 2.5 ms where the same bytes copied
# took 2.0 ms, and as fast once evicted and read back; a copy still being written back to disk measured
# differently again. This puts the builds on an equal footing whatever wrote them last.
copies = tempfile.mkdtemp(prefix="cputime-bin-")
def settle(i, b):
    c = os.path.join(copies, f"{i}-{os.path.basename(b)}")
    subprocess.run(["cp", b, c], check=True)
    fd = os.open(c, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    with open(c, "rb") as f:
        while f.read(1 << 20):
            pass
    return c
runs_of = {b: settle(i, b) for i, b in enumerate(builds)}
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
mf = os.environ.get("MASTERFILES", "/usr/share/cfengine3/masterfiles")
nhosts = int(os.environ.get("HOSTS", "200"))

PERF = subprocess.run(["perf", "stat", "-x,", "-e", "task-clock", "true"], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode == 0 if os.path.exists("/usr/bin/perf") else False
out = tempfile.mktemp(prefix="cputime-perf-")

def cpu(cmds, cwd):
    """CPU seconds and wall seconds of running `cmds` one after the other. With perf: its task-clock
    (the scheduler's exact run time of the process and its threads and children); else getrusage,
    whose user/system split is sampled at the clock tick (coarse for processes of a few ms)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    total = 0.0
    wall = 0.0
    for c in cmds:
        t0 = time.perf_counter()
        if PERF:
            subprocess.run(["perf", "stat", "-x,", "-o", out, "-e", "task-clock", "--"] + c, cwd=cwd,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            wall += time.perf_counter() - t0
            for line in open(out):
                f = line.strip().split(",")
                if len(f) > 2 and f[2] == "task-clock":
                    total += float(f[0]) / 1000.0
        else:
            subprocess.run(c, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            wall += time.perf_counter() - t0
    if not PERF:
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        total = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return total, wall

files = sorted(os.path.relpath(os.path.join(d, f), mf) for d, _, fs in os.walk(mf) for f in fs if f.endswith(".cf"))
hosts = tempfile.mkdtemp(prefix="cputime-hosts-")
H = os.path.join(root, "policies/hosts")
subprocess.run([builds[-1], "host", "generate", "--from", f"{H}/web1-oslo-debian.json", f"{H}/db1-rhel-private.json",
                f"{H}/laptop-ubuntu-ipv6.json", "--count", str(nhosts), "--vary", "hostname=node{n:05}",
                "--vary", "domain=example.com,example.net", "--vary",
                "ipv4=203.0.113.0/24,10.20.0.0/16,198.51.100.0/24,192.168.10.0/23,192.0.2.0/24", "--out", hosts],
               stdout=subprocess.DEVNULL, check=True)
hello = os.path.join(root, "benches")
if subprocess.run(["cf-promises", "-c", "-f", "./agent-hello.cf"], cwd=hello, stdout=subprocess.DEVNULL,
                  stderr=subprocess.DEVNULL).returncode != 0:
    sys.exit("agent-hello.cf rejected by cf-promises -c")
demo = os.path.join(root, "policies/henc/demo/promises.cf")
env_path = os.environ["PATH"]

# A small agent run takes ~2 ms, and a single run's CPU time swings by a quarter on this VM: each round
# runs it HELLO_RUNS times (the real agent too) and the figures are per run.
HELLO_RUNS = 20

def workloads(b):
    b = runs_of.get(b, b)
    return {
        "promises.cf": ([[b, "promises", "-f", "./promises.cf"]], mf),
        "sweep (79 files)": ([[b, "promises", "-p", "json", "-f", "./" + f] for f in files], mf),
        "agent hello": ([[b, "agent", "-K", "-f", "./agent-hello.cf"]] * HELLO_RUNS, hello),
        f"fleet hENC {nhosts}": ([[b, "fleet", "-f", demo, "--hosts", hosts]], root),
        f"fleet masterfiles {nhosts}": ([[b, "fleet", "-f", mf + "/promises.cf", "--hosts", hosts]], root),
    }

real = {
    "promises.cf": ([["cf-promises", "-f", "./promises.cf"]], mf),
    "sweep (79 files)": ([["cf-promises", "-p", "json", "-f", "./" + f] for f in files], mf),
    "agent hello": ([["cf-agent", "-K", "-f", "./agent-hello.cf"]] * HELLO_RUNS, hello),
}
res = {}
for _ in range(rounds):
    for name in workloads("x"):
        contenders = [(b, workloads(b)[name]) for b in builds]
        if name in real:
            contenders.append(("real", real[name]))
        for who, (cmds, cwd) in contenders:
            res.setdefault((name, who), []).append(cpu(cmds, cwd))
print(f"{rounds} rounds, CPU by {'perf task-clock' if PERF else 'getrusage'}, load at end {open('/proc/loadavg').read().split()[:3]}")
per = {"agent hello": HELLO_RUNS}
for name in workloads("x"):
    base = None
    k = per.get(name, 1)
    unit = " per run" if k > 1 else ""
    if (name, "real") in res:
        base = statistics.median(c for c, _ in res[(name, "real")]) / k
        print(f"{name}: real tool  CPU {base*1000:8.2f} ms  wall {statistics.median(w for _, w in res[(name, 'real')])/k*1000:8.1f} ms{unit}")
    for b in builds:
        c = statistics.median(x for x, _ in res[(name, b)]) / k
        w = statistics.median(x for _, x in res[(name, b)]) / k
        extra = f"  -> {base / c:5.1f}x less CPU than the real tool" if base else ""
        if name.startswith("fleet"):
            extra = f"  = {c / nhosts * 1000:5.2f} ms CPU per node"
        print(f"{name}: {b}  CPU {c*1000:8.2f} ms  wall {w*1000:8.1f} ms{unit}{extra}")
subprocess.run(["rm", "-rf", hosts, out, copies])
