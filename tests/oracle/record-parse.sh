#!/usr/bin/env bash
# record-parse.sh: re-record the parse fixtures under policies/parse/ from the real cf-promises (3.21.0).
#
#   tests/oracle/record-parse.sh            re-record everything (idempotent: same binary, same bytes)
#   tests/oracle/record-parse.sh FILE.cf…   re-record only these fixtures
#
# ok/F.cf  -> ok/F.json (stdout of `cf-promises -p json -f ./F.cf`), ok/F.pcf (stdout of `-p cf`)
# err/F.cf -> err/F.expected (exit code, stderr, stdout of `cf-promises -f ./F.cf`; format in
#             policies/parse/README.md) and err/F.line (line of the first `path:line:col: error:`, or of
#             `path: line,col: Fatal error …`)
# Every command runs from the fixture's directory with the path `./F.cf`, so sourcePath is `./F.cf`.
# Only `cf-promises` is run (never cf-agent), so nothing on the machine changes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
parse="$root/policies/parse"
command -v cf-promises >/dev/null 2>&1 || { echo "record-parse: cf-promises not installed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# Print the file's content, then a newline if it is non-empty and does not end with one.
section() {
  cat "$1"
  if [ -s "$1" ] && [ -n "$(tail -c1 "$1")" ]; then echo; fi
}

record_ok() {
  local dir=$1 base=$2 stem=${2%.cf}
  (
    cd "$dir"
    if ! timeout 60 cf-promises -p json -f "./$base" >"$tmp/json" 2>"$tmp/err"; then
      echo "record-parse: ok/$base rejected by cf-promises:" >&2; cat "$tmp/err" >&2; exit 1
    fi
    if [ -s "$tmp/err" ]; then
      echo "record-parse: ok/$base printed on stderr:" >&2; cat "$tmp/err" >&2; exit 1
    fi
    if [ "$(head -c1 "$tmp/json")" != "{" ]; then
      echo "record-parse: ok/$base: stdout does not start with the JSON document:" >&2
      head -3 "$tmp/json" >&2; exit 1
    fi
    timeout 60 cf-promises -p cf -f "./$base" >"$tmp/pcf" 2>/dev/null
    cp "$tmp/json" "$stem.json"
    cp "$tmp/pcf" "$stem.pcf"
  )
}

record_err() {
  local dir=$1 base=$2 stem=${2%.cf} rc line
  (
    cd "$dir"
    set +e
    timeout 60 cf-promises -f "./$base" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    set -e
    if [ "$rc" -eq 0 ]; then
      echo "record-parse: err/$base accepted by cf-promises (exit 0)" >&2; exit 1
    fi
    # `path:L:C: error: …`, or the fatal form `path: L,C: Fatal error during parsing: …`
    line=$(LC_ALL=C grep -a -m1 -E '^[^ ]+(:[0-9]+:[0-9]+: error:|: [0-9]+,[0-9]+: Fatal error)' "$tmp/err" |
      LC_ALL=C sed -E 's/^[^ ]+(:|: )([0-9]+)[:,][0-9]+: (error|Fatal error).*$/\2/' || true)
    if [ -z "$line" ]; then
      echo "record-parse: err/$base: no 'path:line:col: error:' line on stderr" >&2; exit 1
    fi
    {
      echo "# exit: $rc"
      echo "# stderr:"
      section "$tmp/err"
      echo "# stdout:"
      section "$tmp/out"
    } >"$stem.expected"
    echo "$line" >"$stem.line"
  )
}

if [ $# -gt 0 ]; then files=("$@"); else files=("$parse"/ok/*.cf "$parse"/err/*.cf); fi
for f in "${files[@]}"; do
  f=$(cd "$(dirname "$f")" && pwd)/$(basename "$f")
  case "$f" in
    "$parse"/ok/*.cf) record_ok "$(dirname "$f")" "$(basename "$f")" || failures=$((failures + 1)) ;;
    "$parse"/err/*.cf) record_err "$(dirname "$f")" "$(basename "$f")" || failures=$((failures + 1)) ;;
    *) echo "record-parse: $f is not a fixture under $parse/ok or $parse/err" >&2; failures=$((failures + 1)) ;;
  esac
done
echo "record-parse: ${#files[@]} fixtures, $failures failures"
[ "$failures" -eq 0 ] || exit 1

# ok/pcf-lossy.txt: which F.pcf the real cf-promises cannot parse back to F.json. Needs a JSON comparison,
# which the Rust test does; regenerate it after a full re-recording.
if [ $# -eq 0 ]; then
  (cd "$root" && RECORD_PCF_LOSSY=1 cargo test -q --test parse_recordings pcf_lossy >"$tmp/cargo" 2>&1) ||
    { cat "$tmp/cargo" >&2; echo "record-parse: regenerating ok/pcf-lossy.txt failed" >&2; exit 1; }
  echo "record-parse: ok/pcf-lossy.txt lists $(grep -vc '^#' "$parse/ok/pcf-lossy.txt") fixtures"
fi
