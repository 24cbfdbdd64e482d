#!/bin/sh
# Record what the real cf-agent 3.21.0 does with each services-promise fixture in policies/services/<NAME>/.
#
#   tests/oracle/record-services.sh [NAME...]      record the named cases (default: all)
#   tests/oracle/record-services.sh --only verbose [NAME...]   record only verbose.out (the other files stay)
#
# A case is policies/services/<NAME>/{policy.cf,services.json}. Its scratch directory
# /srv/cfsim-services/<NAME>/ is rebuilt for every mode: rm -rf, mkdir, copy the fake service tools
# policies/services/fake/{systemctl,service,chkconfig} into it and write one state file per service of
# services.json (state/<name>: line 1 running|stopped, line 2 enabled|disabled) and an init script
# init.d/<name> (fake/init-script, which runs the fake `service <name> VERB`); the cfsim test gives the
# same services.json to cfsim as the profile's `services` inventory. The policy is validated with
# `cf-promises -c -f ./policy.cf` (cwd = the case directory) and cf-agent is NOT run when it is rejected.
# cf-agent runs as `timeout 60 cf-agent -K <flags> -f ./policy.cf`, cwd = the case directory, stdout and
# stderr together. The std-* cases use the stdlib's standard_services, which on this host (no systemd)
# runs the real /usr/sbin/service with fake service names (cfsimfakesvcN): it only answers
# "cfsimfakesvcN: unrecognized service" (no /etc/init.d script exists, so nothing is started or stopped);
# the recorder checks that /etc/init.d did not change.
#
# Written to policies/services/<NAME>/expected/:
#   I.out I.rc I.state   -K -I, its exit code, the state files after it ("name running enabled" lines)
#   n.out n.rc n.state   -K -n
#   default.out          -K
#   diff.out             -K -I --simulate=diff
#   verbose.out          -K -v, normalised, then reduced to the evaluation trace by
#                        tests/oracle/eval-filter.sh verbose <case dir> (as record-files.sh)
# Normalisation: the simulate chroot /var/lib/cfengine3/state/<digits>.changes -> <PID>.changes (as
# record-files.sh); nothing else varies.
set -u
umask 022
root=$(cd "$(dirname "$0")/../.." && pwd)
cases="$root/policies/services"
scratch_base=/srv/cfsim-services

normalise() { sed -E 's#/var/lib/cfengine3/state/[0-9]+\.changes#/var/lib/cfengine3/state/<PID>.changes#g'; }

recorder=record-services
. "$root/tests/oracle/lib-record.sh"
record_parse_args "$@"

initd_before=$(ls -l --time-style=full-iso /etc/init.d 2>/dev/null | md5sum)
status=0
for name in $case_names; do
  dir="$cases/$name"
  scratch="$scratch_base/$name"
  exp="$dir/expected"
  if [ ! -f "$dir/policy.cf" ] || [ ! -f "$dir/services.json" ]; then
    echo "record-services: $name: no policy.cf/services.json" >&2; status=1; continue
  fi
  tmp=$(mktemp -d)
  ok=yes
  fresh() {
    rm -rf "$scratch" && mkdir -p "$scratch/state" &&
      cp "$cases/fake/systemctl" "$cases/fake/service" "$cases/fake/chkconfig" "$scratch/" &&
      chmod 755 "$scratch/systemctl" "$scratch/service" "$scratch/chkconfig" && mkdir "$scratch/init.d" &&
      python3 -c '
import json, sys
for n, s in json.load(open(sys.argv[1])).items():
    with open(sys.argv[2] + "/" + n, "w") as f:
        f.write(("running" if s.get("running") else "stopped") + "\n" + ("enabled" if s.get("enabled") else "disabled") + "\n")
' "$dir/services.json" "$scratch/state" &&
      for f in "$scratch"/state/*; do [ -f "$f" ] || continue; n=$(basename "$f");
        cp "$cases/fake/init-script" "$scratch/init.d/$n" && chmod 755 "$scratch/init.d/$n" || return 1; done || { echo "record-services: $name: setup failed" >&2; return 1; }
    validate_policy || return 1
  }
  state() { for f in "$scratch"/state/*; do [ -f "$f" ] && printf '%s %s\n' "$(basename "$f")" "$(tr '\n' ' ' <"$f" | sed 's/ $//')"; done >"$tmp/$1"; }
  if [ "$only" = verbose ]; then
    if fresh; then agent verbose -v; keep_verbose_only; else status=1; fi
    rm -rf "$scratch" "$tmp"
    continue
  fi
  if fresh; then agent I -I; echo "$rc" >"$tmp/I.rc"; state I.state; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent n -n; echo "$rc" >"$tmp/n.rc"; state n.state; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent default; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent diff -I --simulate=diff; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent verbose -v; reduce_verbose; else ok=no; fi
  rm -rf "$scratch"
  if [ $ok = yes ]; then
    rm -rf "$exp" && mkdir -p "$exp"
    for f in I.out I.rc I.state n.out n.rc n.state default.out diff.out verbose.out; do cp "$tmp/$f" "$exp/$f"; done
    echo "recorded $name (I rc $(cat "$exp/I.rc"), n rc $(cat "$exp/n.rc"))"
  else
    status=1
  fi
  rm -rf "$tmp"
done
rmdir "$scratch_base" 2>/dev/null
if [ "$(ls -l --time-style=full-iso /etc/init.d 2>/dev/null | md5sum)" != "$initd_before" ]; then
  echo "record-services: /etc/init.d changed during the recording!" >&2; status=1
fi
exit $status
