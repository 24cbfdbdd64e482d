#!/bin/sh
# Record what cf-agent 3.21.0 makes of a policy_server.dat: sys.policy_hub and sys.policy_hub_port.
#
#   tests/oracle/record-policy-hub.sh [NAME...]      record the named cases (default: all)
#
# A case is a directory policies/hosts/policy_hub/<NAME>/ holding the policy_server.dat to use (none: the
# host is not bootstrapped); every case runs the shared policies/hosts/policy_hub/policy.cf. The agent reads
# the file from its work directory, so the recorder never touches the real /var/lib/cfengine3: it runs the
# agent with a scratch work directory (`cf-agent -w /srv/cfsim-policyhub/<NAME>/work`, the agent's
# documented test override of WORKDIR, also CFENGINE_TEST_OVERRIDE_WORKDIR), rebuilt for every mode:
# rm -rf, mkdir, `bin` a symbolic link to /usr/bin (the agent validates the policy with WORKDIR/bin/cf-promises;
# without it, it would fall back to its failsafe policy), the case's policy_server.dat copied in. The policy
# is validated with `cf-promises -c -f ./policy.cf` first and cf-agent is NOT run when it is rejected.
# cf-agent runs as `timeout 60 cf-agent -K <flags> -w WORK -f ./policy.cf` (cwd = policies/hosts/policy_hub),
# stdout+stderr together. Name resolution is this machine's (/etc/hosts: `127.0.0.1 localhost`; no DNS).
#
# Written to policies/hosts/policy_hub/<NAME>/expected/:
#   default.out default.rc   -K
#   I.out                    -K -I
# Normalisation: the line `    info: Setting workdir to '<WORK>'` that -w itself prints under -I is removed.
set -u
umask 022
root=$(cd "$(dirname "$0")/../.." && pwd)
cases="$root/policies/hosts/policy_hub"
scratch_base=/srv/cfsim-policyhub

if [ $# -eq 0 ]; then
  set -- $(cd "$cases" && for d in */; do printf '%s\n' "${d%/}"; done)
fi
if ! (cd "$cases" && timeout 60 cf-promises -c -f ./policy.cf); then
  echo "record-policy-hub: policy rejected by cf-promises; cf-agent not run" >&2; exit 1
fi
status=0
for name in "$@"; do
  dir="$cases/$name"
  work="$scratch_base/$name/work"
  [ -d "$dir" ] || { echo "record-policy-hub: $name: no such case" >&2; status=1; continue; }
  fresh() {
    rm -rf "$scratch_base/$name" && mkdir -p "$work" && ln -s /usr/bin "$work/bin" || return 1
    if [ -f "$dir/policy_server.dat" ]; then cp "$dir/policy_server.dat" "$work/" || return 1; fi
  }
  mkdir -p "$dir/expected"
  if fresh; then
    (cd "$cases" && timeout 60 cf-agent -K -w "$work" -f ./policy.cf) >"$dir/expected/default.out" 2>&1
    echo $? >"$dir/expected/default.rc"
  else status=1; fi
  if fresh; then
    (cd "$cases" && timeout 60 cf-agent -K -I -w "$work" -f ./policy.cf) 2>&1 | grep -v "^    info: Setting workdir to '" >"$dir/expected/I.out"
  else status=1; fi
  rm -rf "$scratch_base/$name"
  echo "recorded $name (rc $(cat "$dir/expected/default.rc"))"
done
rmdir "$scratch_base" 2>/dev/null
exit $status
