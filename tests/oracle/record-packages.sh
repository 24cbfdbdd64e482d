#!/bin/sh
# Record what the real cf-agent 3.21.0 does with each packages-promise fixture in policies/packages/<NAME>/.
#
#   tests/oracle/record-packages.sh [NAME...]      record the named cases (default: all)
#   tests/oracle/record-packages.sh --only verbose [NAME...]   record only verbose.out (the other files stay)
#
# A case is policies/packages/<NAME>/{inventory.json,setup.sh,policy.cf}. setup.sh (run in the empty scratch
# directory /srv/cfsim-packages/<NAME>/) copies the fake package module policies/packages/lib/fakepkg and
# the fake legacy commands there and turns inventory.json into their text inventories
# (policies/packages/lib/mkinv.py). The policy's package_module / package_method bodies point only at those
# scripts: nothing on this machine is installed or removed; the fakes edit their text files.
# Same safety rules as record-files.sh: for every mode the scratch directory is rebuilt, the policy is
# validated with `cf-promises -c -f ./policy.cf` and cf-agent is NOT run when it is rejected; cf-agent runs
# as `timeout 60 cf-agent -K <flags> -f ./policy.cf` (cwd = the case directory), stdout+stderr together.
#
# Agent state reset before every mode and after the case (found by listing /var/lib/cfengine3/state before
# and after runs): the package module caches /var/lib/cfengine3/state/packages_{installed,updates}_fakepkg*.lmdb*
# (the module body is always named `fakepkg`), and, for legacy package_method cases, the agent's legacy
# inventory /var/lib/cfengine3/state/software_packages.csv and software_patch_status.csv (removed only when
# they did not exist before the recording started). So every mode starts with an empty package cache.
#
# Written to policies/packages/<NAME>/expected/:
#   I.out I.rc installed    -K -I (fresh scratch), exit code, the fake inventory after it (sorted installed.txt,
#                           or dpkg.txt for a legacy package_method case)
#   I2.out                  -K -I again on what the first run left (convergence)
#   n.out n.rc              -K -n
#   default.out             -K
#   diff.out manifest.out   -K -I --simulate=diff / --simulate=manifest
#   verbose.out             -K -v, normalised, then reduced to the evaluation trace by
#                           tests/oracle/eval-filter.sh verbose <case dir> (as record-files.sh)
# Normalisation: as record-files.sh (only the simulate chroot's pid shows up here).
set -u
umask 022
root=$(cd "$(dirname "$0")/../.." && pwd)
cases="$root/policies/packages"
scratch_base=/srv/cfsim-packages
state=/var/lib/cfengine3/state
normalise() { sh "$root/tests/oracle/record-files.sh" --normalise; }

had_csv=no; [ -e "$state/software_packages.csv" ] && had_csv=yes
had_patch=no; [ -e "$state/software_patch_status.csv" ] && had_patch=yes
reset_state() {
  rm -f "$state"/packages_installed_fakepkg.lmdb* "$state"/packages_updates_fakepkg.lmdb*
  [ $had_csv = no ] && rm -f "$state/software_packages.csv"
  [ $had_patch = no ] && rm -f "$state/software_patch_status.csv"
  return 0
}

recorder=record-packages
. "$root/tests/oracle/lib-record.sh"
record_parse_args "$@"

status=0
for name in $case_names; do
  dir="$cases/$name"
  scratch="$scratch_base/$name"
  exp="$dir/expected"
  if [ ! -f "$dir/policy.cf" ] || [ ! -f "$dir/setup.sh" ]; then
    echo "record-packages: $name: no policy.cf/setup.sh" >&2; status=1; continue
  fi
  tmp=$(mktemp -d)
  ok=yes
  fresh() {
    reset_state
    rm -rf "$scratch" && mkdir -p "$scratch" && (cd "$scratch" && sh "$dir/setup.sh") || {
      echo "record-packages: $name: setup.sh failed" >&2; return 1; }
    validate_policy || return 1
  }
  if [ "$only" = verbose ]; then
    if fresh; then agent verbose -v; keep_verbose_only; else status=1; fi
    rm -rf "$scratch" "$tmp"; reset_state
    continue
  fi
  if fresh; then
    agent I -I; echo "$rc" >"$tmp/I.rc"; if grep -q package_method "$dir/policy.cf"; then sort "$scratch/dpkg.txt"; else sort "$scratch/installed.txt"; fi >"$tmp/installed" 2>/dev/null
    agent I2 -I
  else ok=no; fi
  if [ $ok = yes ] && fresh; then agent n -n; echo "$rc" >"$tmp/n.rc"; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent default; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent diff -I --simulate=diff; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent manifest -I --simulate=manifest; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent verbose -v; reduce_verbose; else ok=no; fi
  rm -rf "$scratch"
  reset_state
  if [ $ok = yes ]; then
    rm -rf "$exp" && mkdir -p "$exp"
    for f in I.out I.rc installed I2.out n.out n.rc default.out diff.out manifest.out verbose.out; do
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
