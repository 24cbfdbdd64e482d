#!/bin/sh
# Record what the real cf-agent 3.21.0 does with each users-promise fixture in policies/users/<NAME>/.
#
#   tests/oracle/record-users.sh [NAME...]      record the named cases (default: all)
#   tests/oracle/record-users.sh --only verbose [NAME...]   record only verbose.out (the other files stay)
#   tests/oracle/record-users.sh --normalise    filter stdin to stdout with the normalisation below
#
# A case is policies/users/<NAME>/{setup.sh,policy.cf}. setup.sh runs (cwd = the scratch directory
# /srv/cfsim-users/<NAME>, created empty) and may create the case's own starting accounts with
# useradd/groupadd: users named cfsimu*, groups named cfsimg*, homes under /srv/cfsim-users/<NAME>/.
# The policy may create, change and delete only such accounts (cf-agent -n runs against real accounts
# are harmless: nothing is run).
#
# Safety, for every mode: /etc/passwd, shadow, group, gshadow, their "-" backups, /etc/subuid, /etc/subgid
# (when they exist) are copied aside and their sha256 taken before setup.sh; after the run they are
# copied back byte for byte (cp -p), /var/mail/cfsimu* and the scratch directory are removed, and the
# sha256 of every file is checked against the value before the run. A mismatch stops the recorder with
# exit 3 and leaves the backup directory in place (its path is printed). The policy is validated with
# `cf-promises -c -f ./policy.cf` (cwd = the case directory) first; a rejected policy is never run by
# cf-agent (it would fall back to the failsafe policy, which starts daemons).
#
# Written to policies/users/<NAME>/:
#   start/passwd start/group       /etc/passwd and /etc/group after setup.sh (the machine's accounts at
#                                  record time; tests/users_fixtures.rs builds the cfsim profile from them)
#   start/shadow                   name:password:expire (fields 1, 2 and 8) of every /etc/shadow line
#   expected/I.out I.rc accounts   -K -I, exit code, the case's accounts after it (see below)
#   expected/I2.out accounts2      -K -I again on what the first run left (convergence)
#   expected/n.out n.rc n.accounts -K -n (fresh accounts)
#   expected/default.out           -K (fresh)
#   expected/diff.out manifest.out -K -I --simulate=diff / --simulate=manifest (fresh)
#   expected/verbose.out           -K -v (fresh), normalised, then reduced to the evaluation trace by
#                                  tests/oracle/eval-filter.sh verbose <case dir> (as record-files.sh)
# A case with a file named n-only works on the machine's own accounts (root, nobody, ...) and is
# recorded with -n only (n.out n.rc n.accounts, and verbose.out from -K -n -v): the dry run runs no command.
# "accounts" lists the cfsimu*/cfsimg* lines of /etc/passwd, of /etc/group and name:password:expire of
# /etc/shadow (each prefixed by the file name), then the scratch tree (tests/oracle/files-tree.py).
#
# Normalisation (every .out and accounts file):
#   1. /var/lib/cfengine3/state/<digits>.changes -> /var/lib/cfengine3/state/<PID>.changes
#   2. a SHA-512 crypt hash made by the agent from a plaintext password ($6$<salt>$<hash>, random salt)
#      -> $6$<SALT>$<HASH> unless it is one of the fixed hashes the cases use (they contain "cfsim");
#      a yescrypt hash ($y$<params>$<salt>$<hash>, what PAM makes of a plaintext password) -> $y$<SALT>$<HASH>
# Run as root, sequentially (runs of the agent share locks; the account files are global).
set -u
umask 022
root=$(cd "$(dirname "$0")/../.." && pwd)
cases="$root/policies/users"
tree="$root/tests/oracle/files-tree.py"
scratch_base=/srv/cfsim-users
files="/etc/passwd /etc/shadow /etc/group /etc/gshadow /etc/passwd- /etc/shadow- /etc/group- /etc/gshadow- /etc/subuid /etc/subgid"

normalise() {
  sed -E \
    -e 's#/var/lib/cfengine3/state/[0-9]+\.changes#/var/lib/cfengine3/state/<PID>.changes#g' \
    -e '/cfsim/!s#\$6\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{86}#$6$<SALT>$<HASH>#g' \
    -e 's#\$y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{43}#$y$<SALT>$<HASH>#g'
}

if [ "${1:-}" = "--normalise" ]; then normalise; exit 0; fi

recorder=record-users
. "$root/tests/oracle/lib-record.sh"
record_parse_args "$@"

backup=$(mktemp -d /root/cfsim-users-backup.XXXXXX)
sums() { for f in $files; do [ -e "$f" ] && sha256sum "$f"; done; }
save() {
  for f in $files; do [ -e "$f" ] && cp -p "$f" "$backup/$(basename "$f")"; done
  sums >"$backup/sums"
}
restore() {
  for f in $files; do [ -e "$backup/$(basename "$f")" ] && cp -p "$backup/$(basename "$f")" "$f"; done
  rm -f /var/mail/cfsimu*
  if ! sums | cmp -s - "$backup/sums"; then
    echo "record-users: FATAL: account files differ after restore; backup kept in $backup" >&2
    sums | diff "$backup/sums" - >&2
    exit 3
  fi
}
accounts() {
  grep -E '^cfsim[ug]' /etc/passwd | sed 's#^#passwd:#'
  grep -E '^cfsim[ug]' /etc/group | sed 's#^#group:#'
  grep -E '^cfsimu' /etc/shadow | cut -d: -f1,2,8 | sed 's#^#shadow:#'
  echo "tree:"
  [ -d "$scratch" ] && python3 "$tree" "$scratch"
}

status=0
for name in $case_names; do
  dir="$cases/$name"
  scratch="$scratch_base/$name"
  exp="$dir/expected"
  if [ ! -f "$dir/policy.cf" ] || [ ! -f "$dir/setup.sh" ]; then
    echo "record-users: $name: no policy.cf/setup.sh" >&2; status=1; continue
  fi
  tmp=$(mktemp -d)
  ok=yes

  fresh() {
    save
    rm -rf "$scratch" && mkdir -p "$scratch" && (cd "$scratch" && sh "$dir/setup.sh") || {
      echo "record-users: $name: setup.sh failed" >&2; restore; return 1; }
    validate_policy || { restore; return 1; }
  }
  done_mode() { rm -rf "$scratch"; restore; }

  vflags=-v; [ -f "$dir/n-only" ] && vflags="-n -v"
  if [ "$only" = verbose ]; then
    if fresh; then agent verbose $vflags; done_mode; keep_verbose_only; else status=1; fi
    rm -rf "$tmp"
    continue
  fi
  if [ -f "$dir/n-only" ]; then
    # a case on the machine's own accounts: only the dry run, which runs nothing
    if fresh; then
      mkdir -p "$tmp/start"
      cp /etc/passwd "$tmp/start/passwd"; cp /etc/group "$tmp/start/group"
      cut -d: -f1,2,8 /etc/shadow >"$tmp/start/shadow"
      agent n -n; echo "$rc" >"$tmp/n.rc"; accounts | normalise >"$tmp/n.accounts"; done_mode
    else ok=no; fi
    if [ $ok = yes ] && fresh; then agent verbose $vflags; done_mode; reduce_verbose; else ok=no; fi
    if [ $ok = yes ]; then
      rm -rf "$exp" "$dir/start" && mkdir -p "$exp" && cp -r "$tmp/start" "$dir/start"
      for f in n.out n.rc n.accounts verbose.out; do cp "$tmp/$f" "$exp/$f"; done
      echo "recorded $name (-n only, rc $(cat "$exp/n.rc"))"
    else status=1; fi
    rm -rf "$tmp"; continue
  fi
  if fresh; then
    mkdir -p "$tmp/start"
    cp /etc/passwd "$tmp/start/passwd"; cp /etc/group "$tmp/start/group"
    cut -d: -f1,2,8 /etc/shadow >"$tmp/start/shadow"
    agent I -I; echo "$rc" >"$tmp/I.rc"; accounts | normalise >"$tmp/accounts"
    agent I2 -I; accounts | normalise >"$tmp/accounts2"
    done_mode
  else ok=no; fi
  if [ $ok = yes ] && fresh; then agent n -n; echo "$rc" >"$tmp/n.rc"; accounts | normalise >"$tmp/n.accounts"; done_mode; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent default; done_mode; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent diff -I --simulate=diff; done_mode; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent manifest -I --simulate=manifest; done_mode; else ok=no; fi
  if [ $ok = yes ] && fresh; then agent verbose $vflags; done_mode; reduce_verbose; else ok=no; fi

  if [ $ok = yes ]; then
    rm -rf "$exp" "$dir/start" && mkdir -p "$exp"
    cp -r "$tmp/start" "$dir/start"
    for f in I.out I.rc accounts I2.out accounts2 n.out n.rc n.accounts default.out diff.out manifest.out verbose.out; do
      cp "$tmp/$f" "$exp/$f"
    done
    echo "recorded $name (I rc $(cat "$exp/I.rc"), n rc $(cat "$exp/n.rc"))"
  else
    status=1
  fi
  rm -rf "$tmp"
done
rmdir "$scratch_base" 2>/dev/null
rm -rf "$backup"
exit $status
