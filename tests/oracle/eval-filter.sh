#!/usr/bin/env bash
# eval-filter.sh: make a --show-evaluated-classes / --show-evaluated-vars table machine-independent.
#
#   eval-filter.sh classes|vars [DIR] < agent-stdout > filtered
#   eval-filter.sh verbose [DIR] < agent-v-stdout > filtered
#
# Applied identically to the real cf-agent's output (tests/oracle/record-eval.sh) and to cfsim's.
# Rules, in order:
#  1. Everything before the table header line ("Class name ..." / "Variable name ...") is dropped
#     (R: lines and log lines of the run are recorded in NAME.out instead). The header line is kept.
#  2. A table row starts with a line matching the row-start pattern; a line that does not (the
#     continuation of a multi-line variable value) belongs to the row above and is kept or dropped with it.
#  3. classes: rows whose tag column contains the tag `hardclass` are dropped (host, OS, time classes).
#     vars: rows of the scopes sys, const, mon, edit, this, def and control_* (any namespace) are dropped.
#  4. If DIR is given, every occurrence of that absolute path is replaced by the literal text `$DIR`, and in
#     a line that contained it every run of two or more blanks is squeezed to one blank (the agent pads the
#     columns after the real path, whose length differs between checkouts).
#  Rows are otherwise kept byte for byte (column padding and trailing blanks included), in the agent's order.
# verbose (a `cf-agent -v` run): the evaluation trace without the machine-dependent parts.
#  * every line that is not a ` verbose: ` or `   debug: ` log line is kept (R: lines and their continuation
#    lines, Q: blocks, error/warning/notice/info lines);
#  * a line that does not start a message (no `word: ` prefix) continues the message above it and is
#    dropped when that was a dropped verbose/debug line (multi-line values, comments of the stdlib);
#  * ` verbose: ` lines are kept only after the "Begin policy/promise evaluation" banner, only in the
#    `X: ` form (X one of B P V C A: bundle, promise, variable, class, accounting lines), never the
#    separator lines (`B: ****`, `P: ....`) and never `C: discovered hard class ...`;
#  * DIR is replaced by `$DIR`; a kept line that still holds the first 8 characters of DIR names the
#    fixture directory in a form the agent truncated (`Promiser/affected object: '<40 chars>'`,
#    `END commands promise (<30 chars>...)`, which depends on the checkout path) and is dropped; so is
#    every such truncatable line (`Promiser/affected object: '...'`, `END commands promise (...)`) that
#    names DIR at all, since where the agent cuts it depends on the length of the checkout path.
set -u
kind=${1:-}
dir=${2:-}
case "$kind" in
  classes|vars|verbose) ;;
  *) sed -n '2,27p' "$0"; exit 2 ;;
esac
awk -v kind="$kind" -v dir="$dir" '
function subdir(s, squeeze,   i, out) {
  if (dir == "" || index(s, dir) == 0) return s
  out = ""
  while ((i = index(s, dir)) > 0) { out = out substr(s, 1, i - 1) "$DIR"; s = substr(s, i + length(dir)) }
  out = out s
  if (squeeze) gsub(/  +/, " ", out)
  return out
}
BEGIN { in_table = 0; keep = 0; begun = 0; vdrop = 0; prefix = (length(dir) >= 8) ? substr(dir, 1, 8) : "" }
kind == "verbose" {
  line = $0
  # a line that does not start a message continues the one above: dropped with a dropped verbose line
  if (line !~ /^ *[A-Za-z]+: /) { if (vdrop) next }
  else vdrop = 0
  if (line !~ /^ verbose: / && line !~ /^   debug: /) { out = subdir(line, 0); if (prefix == "" || index(out, prefix) == 0) print out; next }
  vdrop = 1
  if (line ~ /Begin policy\/promise evaluation/) { begun = 1; next }
  if (!begun || line !~ /^ verbose: [BPVCA]: /) next
  if (line ~ /^ verbose: [BPVCA]: [.*]+$/ || line ~ /^ verbose: C: discovered hard class/) next
  if (dir != "" && index(line, dir) > 0 && (line ~ /Promiser\/affected object: \047/ || line ~ /END commands promise \(/)) next
  out = subdir(line, 0)
  if (prefix != "" && index(out, prefix) > 0) next
  vdrop = 0
  print out
  next
}
{
  line = $0
  if (!in_table) {
    if ((kind == "classes" && line ~ /^Class name +Meta tags/) || (kind == "vars" && line ~ /^Variable name +Variable value/)) {
      in_table = 1; print line
    }
    next
  }
  if (kind == "classes") {
    # row start: a class name (no blanks) followed by blanks
    if (line ~ /^[^ ]+ /) {
      tags = line
      sub(/^[^ ]+ +/, "", tags)
      keep = (tags !~ /^[^ ]*(^|,)hardclass(,| |$)/)
    }
  } else {
    if (line ~ /^[A-Za-z0-9_]+:[A-Za-z0-9_]+\./) {
      scope = line; sub(/^[A-Za-z0-9_]+:/, "", scope); sub(/\..*/, "", scope)
      keep = !(scope == "sys" || scope == "const" || scope == "mon" || scope == "edit" || scope == "this" || scope == "def" || scope ~ /^control_/)
    }
  }
  if (keep) print subdir(line, 1)
}'
