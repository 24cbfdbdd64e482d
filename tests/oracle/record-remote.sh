#!/bin/sh
# Record what the real cf-agent 3.21.0 does with each remote-copy fixture in policies/remote/<NAME>/:
# files promises whose copy_from names `servers => { "127.0.0.1" }`, served by a real cf-serverd 3.21.0
# that this script starts (port 5309, foreground, its PID remembered) and stops by that PID at the end.
#
#   tests/oracle/record-remote.sh [NAME...]      record the named cases (default: all)
#   tests/oracle/record-remote.sh --normalise    filter stdin to stdout with the normalisation below
#
# Layout and modes as tests/oracle/record-files.sh (policies/files/README.md): a case is
# policies/remote/<NAME>/{setup.sh,policy.cf,NOTES}; its policy works on /srv/cfsim-remote/<NAME>/ only
# (the served tree is its `served/` directory, the copies go to `dst/`). For every mode the scratch directory
# is rebuilt (rm -rf, mkdir -p, `sh setup.sh` inside it, umask 022); the policy is validated with
# `cf-promises -c -f ./policy.cf` first and cf-agent is NOT run when it is rejected; cf-agent runs as
# `timeout 60 cf-agent -K <flags> -f ./policy.cf` with cwd = the case directory, stdout+stderr together.
# Written to policies/remote/<NAME>/expected/: I.out I.rc tree I2.out tree2 n.out n.rc n.tree default.out
# diff.out manifest-full.out manifest.out (as for the files corpus).
#
# The server: /srv/cfsim-remote/server/promises.cf (written here, validated with cf-promises -c): it
# listens on 127.0.0.1 port 5309 only, allows and trusts 127.0.0.1 and admits 127.0.0.1 to each case's
# /srv/cfsim-remote/<NAME>/served (or, for a case with a file `admit`, to the paths it lists, relative to
# /srv/cfsim-remote/<NAME>, one a line).
# Port 5310 has nothing listening (remote-unreachable), nor has 127.0.0.3:5309 (remote-failover).
# Keys: cf-agent and cf-serverd share this host's key pair
# (/var/lib/cfengine3/ppkeys/localhost.{pub,priv}, made by `cf-key` when missing). The agent trusts the
# server once ppkeys holds root-<digest>.pub, a copy of the server's public key (what `trustkey` saves);
# this script makes sure it is there, except for a case with a file `untrusted-key`, for which it is
# moved aside before each mode's first run and put back after the case. At exit it runs `cf-key -r
# <digest>`: the lastseen entries of these connections go (the real agent's hostsseen() lists them
# otherwise), and with them the key file, which is put back only if it was there before the run.
#
# Normalisation (every .out and tree file): that of record-files.sh (simulate chroot PID, stat-block dates,
# timestamp backup names, a link's size in a stat block), and 5. key digests `MD5=<32 hex>` -> `MD5=<KEY>`,
# `SHA=<64 hex>` -> `SHA=<KEY>` (they are this host's key's).
# Run as root, sequentially.
set -u
umask 022
root=$(cd "$(dirname "$0")/../.." && pwd)
cases="$root/policies/remote"
tree="$root/tests/oracle/files-tree.py"
scratch_base=/srv/cfsim-remote
ppkeys=/var/lib/cfengine3/ppkeys
port=5309

normalise() {
  "$root/tests/oracle/record-files.sh" --normalise |
  sed -E -e 's#MD5=[0-9a-f]{32}#MD5=<KEY>#g' -e 's#SHA=[0-9a-f]{64}#SHA=<KEY>#g'
}

if [ "${1:-}" = "--normalise" ]; then normalise; exit 0; fi

if [ $# -eq 0 ]; then
  set -- $(cd "$cases" && for d in */; do [ -f "$d/policy.cf" ] && printf '%s\n' "${d%/}"; done)
fi

# keys
[ -f "$ppkeys/localhost.pub" ] || cf-key || { echo "record-remote: cf-key failed" >&2; exit 1; }
digest=$(cf-key -p "$ppkeys/localhost.pub") || exit 1
serverkey="$ppkeys/root-$digest.pub"
had_serverkey=no
[ -f "$serverkey" ] && had_serverkey=yes
[ -f "$serverkey" ] || cp -p "$ppkeys/localhost.pub" "$serverkey"

# the server
srvdir="$scratch_base/server"
mkdir -p "$srvdir"
cat >"$srvdir/promises.cf" <<POLICY
body common control
{
  bundlesequence => { "main" };
}
bundle agent main
{
}
body server control
{
  allowconnects => { "127.0.0.1" };
  allowallconnects => { "127.0.0.1" };
  trustkeysfrom => { "127.0.0.1" };
  bindtointerface => "127.0.0.1";
  port => "$port";
}
bundle server access_rules
{
  access:
$(for name in "$@"; do
    if [ -f "$cases/$name/admit" ]; then paths=$(cat "$cases/$name/admit"); else paths=served; fi
    for p in $paths; do printf '    "%s/%s/%s"\n      admit => { "127.0.0.1" };\n' "$scratch_base" "$name" "$p"; done
  done)
}
POLICY
# cf-serverd drops access paths that do not exist when it starts: make them first (each case's setup
# rebuilds its scratch directory anyway)
for name in "$@"; do
  if [ -f "$cases/$name/admit" ]; then paths=$(cat "$cases/$name/admit"); else paths=served; fi
  for p in $paths; do mkdir -p "$scratch_base/$name/$p"; done
done
if ! (cd "$srvdir" && cf-promises -c -f ./promises.cf); then
  echo "record-remote: server policy rejected; not starting cf-serverd" >&2; exit 1
fi
if ss -ltn | grep -q ":$port "; then
  echo "record-remote: port $port is in use" >&2; exit 1
fi
if ss -ltn | grep -q ":5310 "; then
  echo "record-remote: port 5310 is in use (remote-unreachable needs it free)" >&2; exit 1
fi
(cd "$srvdir" && exec cf-serverd -F -f ./promises.cf >"$srvdir/serverd.log" 2>&1) &
srvpid=$!
# at exit: the server stopped by its PID, its policy and log removed, the scratch base removed if empty,
# and the agent's lastseen database cleared of the connections made here (`cf-key -r <digest>`, which also
# removes the trusted key file; it is put back when it was there before): the real agent's hostsseen()
# reads that database (policies/functions/inventory.expected is recorded with it empty)
stop_server() {
  kill "$srvpid" 2>/dev/null; wait "$srvpid" 2>/dev/null
  rm -rf "$srvdir"; rmdir "$scratch_base" 2>/dev/null
  cf-key -r "$digest" >/dev/null 2>&1
  [ $had_serverkey = yes ] && cp -p "$ppkeys/localhost.pub" "$serverkey"
}
trap stop_server EXIT
i=0
until ss -ltn | grep -q ":$port "; do
  i=$((i + 1)); [ $i -gt 50 ] && { echo "record-remote: cf-serverd did not start" >&2; exit 1; }
  sleep 0.2
done

status=0
for name in "$@"; do
  dir="$cases/$name"
  scratch="$scratch_base/$name"
  exp="$dir/expected"
  if [ ! -f "$dir/policy.cf" ] || [ ! -f "$dir/setup.sh" ]; then
    echo "record-remote: $name: no policy.cf/setup.sh" >&2; status=1; continue
  fi
  untrusted=no
  [ -f "$dir/untrusted-key" ] && untrusted=yes
  tmp=$(mktemp -d)
  ok=yes

  fresh() {
    rm -rf "$scratch" && mkdir -p "$scratch" && (cd "$scratch" && sh "$dir/setup.sh") || {
      echo "record-remote: $name: setup.sh failed" >&2; return 1; }
    if [ $untrusted = yes ]; then
      [ -f "$serverkey" ] && mv "$serverkey" "$tmp/serverkey"
    else
      [ -f "$serverkey" ] || cp -p "$ppkeys/localhost.pub" "$serverkey"
    fi
    if ! (cd "$dir" && timeout 60 cf-promises -c -f ./policy.cf) >"$tmp/promises" 2>&1; then
      echo "record-remote: $name: policy rejected by cf-promises; cf-agent not run:" >&2
      cat "$tmp/promises" >&2
      return 1
    fi
  }
  agent() {
    out=$1; shift
    (cd "$dir" && timeout 60 cf-agent -K "$@" -f ./policy.cf) >"$tmp/raw" 2>&1
    rc=$?
    normalise <"$tmp/raw" >"$tmp/$out.out"
  }
  listtree() { python3 "$tree" "$scratch" | normalise >"$tmp/$1"; }

  if fresh; then
    python3 "$tree" --check-order "$scratch" || echo "record-remote: $name: warning: a starting directory does not list in sorted order" >&2
    agent I -I; echo "$rc" >"$tmp/I.rc"; listtree tree
    agent I2 -I; listtree tree2
  else ok=no; fi
  if [ $ok = yes ] && fresh; then agent n -n; echo "$rc" >"$tmp/n.rc"; listtree n.tree; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent default; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent diff -I --simulate=diff; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent manifest-full -I --simulate=manifest-full; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent manifest -I --simulate=manifest; else ok=no; fi
  rm -rf "$scratch"
  # the server's key trusted again, as before the case
  [ -f "$serverkey" ] || cp -p "$ppkeys/localhost.pub" "$serverkey"

  if [ $ok = yes ]; then
    rm -rf "$exp" && mkdir -p "$exp"
    for f in I.out I.rc tree I2.out tree2 n.out n.rc n.tree default.out diff.out manifest-full.out manifest.out; do
      cp "$tmp/$f" "$exp/$f"
    done
    echo "recorded $name (I rc $(cat "$exp/I.rc"), n rc $(cat "$exp/n.rc"))"
  else
    status=1
  fi
  rm -rf "$tmp"
done
exit $status
