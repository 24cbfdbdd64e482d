# lib-record.sh — the skeleton the scratch-tree recorders share (record-files.sh, record-packages.sh,
# record-services.sh, record-processes.sh, record-users.sh source it). Before sourcing, a recorder sets
# `recorder` (its name, for messages), `root` and `cases`, and defines `normalise` (stdin → stdout); in its
# case loop it sets `name`, `dir` (the case directory), `exp` (its expected/ directory) and `tmp`.
#
# The safety rule lives here once: `agent` runs cf-agent only on a policy `validate_policy` accepted
# (`cf-promises -c`); an invalid policy would send cf-agent to its failsafe policy, which starts daemons.

# record_parse_args ARGS...: `--only MODE` → $only; the named cases (default: every case of $cases that has a
# policy.cf) → $case_names.
record_parse_args() {
  only=
  if [ "${1:-}" = "--only" ]; then only=$2; shift 2; fi
  if [ $# -eq 0 ]; then
    case_names=$(cd "$cases" && for d in */; do [ -f "$d/policy.cf" ] && printf '%s\n' "${d%/}"; done)
  else
    case_names="$*"
  fi
}

# validate_policy: `cf-promises -c -f ./policy.cf` in the case directory; when it is rejected, print why and
# return 1 (cf-agent is then not run).
validate_policy() {
  validated=
  if ! (cd "$dir" && timeout 60 cf-promises -c -f ./policy.cf) >"$tmp/promises" 2>&1; then
    echo "$recorder: $name: policy rejected by cf-promises; cf-agent not run:" >&2
    cat "$tmp/promises" >&2
    return 1
  fi
  validated=$dir
}

# agent OUTNAME FLAGS...: `timeout 60 cf-agent -K FLAGS -f ./policy.cf` in the case directory (stdout and
# stderr together), normalised into $tmp/OUTNAME.out; the exit code in $rc. Refuses (rc 125) unless the
# case's policy was validated.
agent() {
  out=$1; shift
  if [ "${validated:-}" != "$dir" ]; then
    echo "$recorder: $name: not validated by cf-promises; cf-agent not run" >&2
    rc=125; : >"$tmp/$out.out"; return 1
  fi
  (cd "$dir" && timeout 60 cf-agent -K "$@" -f ./policy.cf) >"$tmp/raw" 2>&1
  rc=$?
  normalise <"$tmp/raw" >"$tmp/$out.out"
}

# reduce_verbose: $tmp/verbose.out reduced to the evaluation trace (tests/oracle/eval-filter.sh verbose).
reduce_verbose() {
  "$root/tests/oracle/eval-filter.sh" verbose "$dir" <"$tmp/verbose.out" >"$tmp/v" && mv "$tmp/v" "$tmp/verbose.out"
}

# keep_verbose_only: for `--only verbose`, the reduced trace replaces expected/verbose.out (the other files stay).
keep_verbose_only() {
  reduce_verbose && mkdir -p "$exp" && cp "$tmp/verbose.out" "$exp/verbose.out" && echo "recorded $name verbose"
}
