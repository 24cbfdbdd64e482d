#!/bin/sh
# Record what the real cf-agent 3.21.0 does with each processes-promise fixture in policies/processes/<NAME>/.
#
#   tests/oracle/record-processes.sh [NAME...]      record the named cases (default: all)
#   tests/oracle/record-processes.sh --only verbose [NAME...]   record only verbose.out (the other files stay)
#
# A case is policies/processes/<NAME>/{policy.cf,procs}; `procs` lists the case's fake processes, one a
# line: NAME USER ARGS... (ARGS are numbers: the processes are copies of /bin/sleep named NAME, so they
# sleep for the sum of ARGS seconds). For every mode the scratch directory /srv/cfsim-processes/<NAME>/ is
# rebuilt (rm -rf, mkdir, /bin/sleep copied to each NAME, lib/keeper and procs copied), and each process is
# started as `setsid sh /srv/cfsim-processes/<NAME>/keeper N`, which runs
# /srv/cfsim-processes/<NAME>/NAME ARGS as USER (setpriv for non-root), writes its pid to N.pid and waits
# for it (so a signalled process is reaped: PID 1 here does not reap). The recorder waits for every pid
# file, validates the policy with `cf-promises -c -f ./policy.cf` (cwd = the case directory; cf-agent is
# NOT run when it is rejected), runs `timeout 60 cf-agent -K <flags> -f ./policy.cf` (cwd = the case
# directory, stdout+stderr), then kills ONLY the pids it recorded (kill PID, never by name), waits for the
# keepers to end and removes the scratch directory. A process left alive when a case starts is an error.
#
# Written to policies/processes/<NAME>/expected/:
#   I.out I.rc    -K -I and its exit code
#   n.out n.rc    -K -n
#   default.out   -K
#   diff.out      -K -I --simulate=diff
#   verbose.out   -K -v, normalised, then reduced to the evaluation trace by
#                 tests/oracle/eval-filter.sh verbose <case dir> (as record-files.sh)
#   alive.I alive.n   which of the case's processes were still alive after the -I / -n run (line numbers of procs)
#
# Normalisation (tests/processes_fixtures.rs applies the same to cfsim's output), see normalise():
#   1. a ps line the agent quotes (`process entry '<line>'`, `to process <pid> (<line>)`, `Matched '<line>'`):
#      USER PID PPID PGID %CPU %MEM VSZ NI RSS TTY NLWP STIME ELAPSED TIME ARGS -> USER <PS> ARGS
#   2. `to process <digits>` -> `to process <PID>`, `to pid <digits>` -> `to pid <PID>`
#   3. the simulate chroot /var/lib/cfengine3/state/<digits>.changes -> <PID>.changes (as record-files.sh)
set -u
umask 022
root=$(cd "$(dirname "$0")/../.." && pwd)
cases="$root/policies/processes"
scratch_base=/srv/cfsim-processes

normalise() {
  sed -E \
    -e 's#^(.*(process entry '"'"'|to process [0-9]+ \(|Matched '"'"'))([^ ]+) +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+ +-?[0-9]+ +[0-9]+ +[^ ]+ +[0-9]+ +[^ ]+ +[^ ]+ +[^ ]+ (.*)$#\1\3 <PS> \4#' \
    -e 's#to process [0-9]+#to process <PID>#g' \
    -e 's#to pid [0-9]+#to pid <PID>#g' \
    -e 's#/var/lib/cfengine3/state/[0-9]+\.changes#/var/lib/cfengine3/state/<PID>.changes#g'
}
if [ "${1:-}" = "--normalise" ]; then normalise; exit 0; fi

recorder=record-processes
. "$root/tests/oracle/lib-record.sh"
record_parse_args "$@"

status=0
for name in $case_names; do
  dir="$cases/$name"
  scratch="$scratch_base/$name"
  exp="$dir/expected"
  if [ ! -f "$dir/policy.cf" ] || [ ! -f "$dir/procs" ]; then
    echo "record-processes: $name: no policy.cf/procs" >&2; status=1; continue
  fi
  tmp=$(mktemp -d)
  ok=yes
  count=$(grep -c . "$dir/procs")
  start() {
    rm -rf "$scratch" && mkdir -p "$scratch" || return 1
    cp "$dir/procs" "$cases/lib/keeper" "$scratch/" && chmod 755 "$scratch" || return 1
    for n in $(cut -d' ' -f1 "$dir/procs"); do cp /bin/sleep "$scratch/$n" || return 1; done
    # one at a time, so the pids ascend in procs order (the profile's table does too)
    i=1
    while [ $i -le $count ]; do
      (setsid sh "$scratch/keeper" $i >/dev/null 2>&1 &)
      tries=0
      while [ ! -s "$scratch/$i.pid" ] && [ $tries -lt 50 ]; do sleep 0.1; tries=$((tries+1)); done
      [ -s "$scratch/$i.pid" ] || { echo "record-processes: $name: process $i did not start" >&2; return 1; }
      i=$((i+1))
    done
    sleep 0.3
    validate_policy || return 1
  }
  # alive FILE: the line numbers of procs whose recorded pid still runs (and is not a zombie)
  alive() {
    i=1; : >"$tmp/$1"
    while [ $i -le $count ]; do
      p=$(cat "$scratch/$i.pid" 2>/dev/null)
      if [ -n "$p" ] && [ -d /proc/$p ] && ! grep -q '^State:.*Z' /proc/$p/status 2>/dev/null; then echo $i >>"$tmp/$1"; fi
      i=$((i+1))
    done
  }
  stop() {
    for f in "$scratch"/*.pid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done
    tries=0
    while ps -eo args | grep -q "^sh $scratch/keeper" && [ $tries -lt 50 ]; do sleep 0.1; tries=$((tries+1)); done
    rm -rf "$scratch"
  }
  if [ "$only" = verbose ]; then
    if start; then agent verbose -v; keep_verbose_only; else status=1; fi
    stop; rm -rf "$tmp"
    continue
  fi
  if start; then agent I -I; echo "$rc" >"$tmp/I.rc"; sleep 0.3; alive alive.I; else ok=no; fi
  stop
  if [ $ok = yes ] && start; then agent n -n; echo "$rc" >"$tmp/n.rc"; alive alive.n; else ok=no; fi
  stop
  if [ $ok = yes ] && start; then agent default; else ok=no; fi
  stop
  if [ $ok = yes ] && start; then agent diff -I --simulate=diff; else ok=no; fi
  stop
  if [ $ok = yes ] && start; then agent verbose -v; reduce_verbose; else ok=no; fi
  stop
  if [ $ok = yes ]; then
    rm -rf "$exp" && mkdir -p "$exp"
    for f in I.out I.rc n.out n.rc default.out diff.out verbose.out alive.I alive.n; do cp "$tmp/$f" "$exp/$f"; done
    echo "recorded $name (I rc $(cat "$exp/I.rc"), n rc $(cat "$exp/n.rc"))"
  else
    status=1
  fi
  rm -rf "$tmp"
done
rmdir "$scratch_base" 2>/dev/null
exit $status
