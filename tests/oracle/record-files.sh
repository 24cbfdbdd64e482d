#!/bin/sh
# Record what the real cf-agent 3.21.0 does with each files-promise fixture in policies/files/<NAME>/.
#
#   tests/oracle/record-files.sh [NAME...]      record the named cases (default: all)
#   tests/oracle/record-files.sh --only verbose [NAME...]   record only verbose.out (the other files stay)
#   tests/oracle/record-files.sh --normalise    filter stdin to stdout with the normalisation below
#
# A case is policies/files/<NAME>/{setup.sh,policy.cf}; its policy works on /srv/cfsim-files/<NAME>/ only.
# For every mode the scratch directory is rebuilt: rm -rf /srv/cfsim-files/<NAME>; mkdir -p it; run
# `sh <case>/setup.sh` inside it. The policy is then validated with `cf-promises -c -f ./policy.cf` (cwd = the
# case directory); if it is rejected cf-agent is NOT run (an invalid policy makes cf-agent run its failsafe
# policy, which starts daemons), the case is reported and the script exits 1 at the end. cf-agent runs as
# `timeout 60 cf-agent -K <flags> -f ./policy.cf` with cwd = the case directory, stdout+stderr together.
#
# Written to policies/files/<NAME>/expected/:
#   I.out I.rc tree       -K -I                      (fresh tree), exit code, tree after it
#   I2.out tree2          -K -I again on what the first run left (convergence)
#   n.out n.rc n.tree     -K -n                      (fresh tree)
#   default.out           -K                         (fresh tree)
#   diff.out              -K -I --simulate=diff      (fresh tree)
#   manifest-full.out     -K -I --simulate=manifest-full (fresh tree)
#   manifest.out          -K -I --simulate=manifest  (fresh tree)
#   verbose.out           -K -v                      (fresh tree), normalised, then reduced to the evaluation
#                         trace by tests/oracle/eval-filter.sh verbose <case dir> (its header says how)
# Trees are listed by tests/oracle/files-tree.py (format in its header).
#
# Normalisation (every .out file and every tree file; nothing else is changed):
#   1. /var/lib/cfengine3/state/<digits>.changes     -> /var/lib/cfengine3/state/<PID>.changes  (simulate chroot)
#   2. a stat-block line "Access: YYYY-MM-DD HH:MM:SS +0000" (also Modify:, Change:) -> "Access: <TIME>" etc.
#      (the "Access: (0600/rw-------)  Uid: ..." line is not a date line and stays)
#   3. timestamp backup names: _<epoch>_<Day>_<Mon>_<d>_<HH>_<MM>_<SS>_<YYYY> (copy_backup / edit_backup =>
#      "timestamp") -> _<TS>; e.g. d_1795686356_Thu_Nov_26_09_45_56_2026.cfsaved -> d_<TS>.cfsaved. Tree lines
#      are not re-sorted after this.
#   4. in a manifest/diff stat block of a symbolic link (the line after "'P' is a symbolic link" or "'P' changed
#      type from ... to symbolic link"), "Size: N" -> "Size: <LINKSIZE>" (N = length of the chroot path + target)
#
# State kept by the agent between runs: a case whose policy.cf uses a `changes` attribute gets the agent's
# change database /var/lib/cfengine3/state/cf_changes.lmdb* removed before every mode and after the case, so
# each mode's first run is a first run (the database holds nothing but changes-promise hashes). Not reset, so
# no case may depend on it: the setuid list in /var/log/cfengine3/cfagent.<host>.log (no case makes a
# root-owned setuid/setgid file, whose first sighting prints 'NEW SETUID root PROGRAM').
# Order: the agent visits directory entries in readdir order (ext4 hash order here). The recorder warns when a
# starting directory below the scratch root does not list in sorted order; the cases name their files so that
# every directory whose order shows in the output lists sorted, i.e. a simulator that visits entries sorted by
# name matches. (No case depends on the order of the scratch root itself.)
# Run as root (the agent is installed system-wide) with umask 022 (setup.sh also chmods what it creates). Sequential on purpose: runs of the agent share its locks.
set -u
umask 022
root=$(cd "$(dirname "$0")/../.." && pwd)
cases="$root/policies/files"
tree="$root/tests/oracle/files-tree.py"
scratch_base=/srv/cfsim-files

normalise() {
  sed -E \
    -e 's#/var/lib/cfengine3/state/[0-9]+\.changes#/var/lib/cfengine3/state/<PID>.changes#g' \
    -e 's#^(Access|Modify|Change): [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2} [+-][0-9]{4}$#\1: <TIME>#' \
    -e 's#_[0-9]{9,11}_[A-Z][a-z]{2}_[A-Z][a-z]{2}_+[0-9]{1,2}_[0-9]{2}_[0-9]{2}_[0-9]{2}_[0-9]{4}#_<TS>#g' |
  awk '{
    if (link && $0 ~ /^Size: [0-9]+$/) { print "Size: <LINKSIZE>"; link = 0; next }
    link = ($0 ~ /^'"'"'.*'"'"' is a symbolic link$/ || $0 ~ /^'"'"'.*'"'"' changed type from .* to symbolic link$/)
    print
  }'
}

if [ "${1:-}" = "--normalise" ]; then normalise; exit 0; fi

recorder=record-files
. "$root/tests/oracle/lib-record.sh"
record_parse_args "$@"

status=0
for name in $case_names; do
  dir="$cases/$name"
  scratch="$scratch_base/$name"
  exp="$dir/expected"
  if [ ! -f "$dir/policy.cf" ] || [ ! -f "$dir/setup.sh" ]; then
    echo "record-files: $name: no policy.cf/setup.sh" >&2; status=1; continue
  fi
  uses_changes=no
  grep -Eq '^[^#]*\bchanges[[:space:]]*=>' "$dir/policy.cf" && uses_changes=yes
  tmp=$(mktemp -d)
  ok=yes

  fresh() {
    rm -rf "$scratch" && mkdir -p "$scratch" && (cd "$scratch" && sh "$dir/setup.sh") || {
      echo "record-files: $name: setup.sh failed" >&2; return 1; }
    [ $uses_changes = yes ] && rm -f /var/lib/cfengine3/state/cf_changes.lmdb /var/lib/cfengine3/state/cf_changes.lmdb-lock /var/lib/cfengine3/state/cf_changes.lmdb.lock
    validate_policy || return 1
  }
  # agent OUTNAME FLAGS... : run, write normalised OUTNAME.out, return the exit code in $rc
  listtree() { python3 "$tree" "$scratch" | normalise >"$tmp/$1"; }

  if [ "$only" = verbose ]; then
    if fresh; then agent verbose -v; keep_verbose_only; else status=1; fi
    rm -rf "$scratch" "$tmp"
    [ $uses_changes = yes ] && rm -f /var/lib/cfengine3/state/cf_changes.lmdb /var/lib/cfengine3/state/cf_changes.lmdb-lock /var/lib/cfengine3/state/cf_changes.lmdb.lock
    continue
  fi
  if fresh; then
    python3 "$tree" --check-order "$scratch" || echo "record-files: $name: warning: a starting directory does not list in sorted order" >&2
    agent I -I; echo "$rc" >"$tmp/I.rc"; listtree tree
    agent I2 -I; listtree tree2
  else ok=no; fi
  if [ $ok = yes ] && fresh; then agent n -n; echo "$rc" >"$tmp/n.rc"; listtree n.tree; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent default; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent diff -I --simulate=diff; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent manifest-full -I --simulate=manifest-full; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent manifest -I --simulate=manifest; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent verbose -v; reduce_verbose; else ok=no; fi
  rm -rf "$scratch"
  [ $uses_changes = yes ] && rm -f /var/lib/cfengine3/state/cf_changes.lmdb /var/lib/cfengine3/state/cf_changes.lmdb-lock /var/lib/cfengine3/state/cf_changes.lmdb.lock

  if [ $ok = yes ]; then
    rm -rf "$exp" && mkdir -p "$exp"
    for f in I.out I.rc tree I2.out tree2 n.out n.rc n.tree default.out diff.out manifest-full.out manifest.out verbose.out; do
      cp "$tmp/$f" "$exp/$f"
    done
    echo "recorded $name (I rc $(cat "$exp/I.rc"), n rc $(cat "$exp/n.rc"))"
  else
    status=1
  fi
  rm -rf "$tmp"
done
rmdir "$scratch_base" 2>/dev/null
exit $status
