#!/usr/bin/env bash
# Benchmark: a generated 1,000,000-line hENC hierarchy (10 files x 100,000 lines: every sigil, comments,
# blanks, indentation, resets) merged by `cfsim henc` (release build) and by the Perl reference
# tests/henc/henc_reference.pl, side by side. Checks that both print the same set of lines, then prints
# the best-of-3 wall time of each and the ratio.
#   benches/henc.sh [LINES]      (default 1000000)
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-1000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/henc-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

cargo build --release --quiet
bin=target/$(rustc --print host-tuple)/release/cfsim

perl -e '
  my ($dir, $total) = @ARGV;
  my $files = 10; my $per = int($total / $files);
  my $seed = 42; sub rnd { $seed = ($seed * 1103515245 + 12345) % 2147483648; return $seed % $_[0] }
  my @sig = ("+", "+", "-", "_", "=", "=", "@", "%", "/", "#", "", "  =", "!");
  for my $f (0 .. $files - 1) {
    open my $fh, ">", sprintf("%s/level%02d", $dir, $f) or die;
    for my $i (1 .. $per) {
      if ($i == int($per / 2)) { print $fh "!RESET_CANCELLED_CLASSES\n"; next }   # one reset per file
      my $s = $sig[rnd(scalar @sig)]; my $n = "name" . rnd(50000);
      if    ($s eq "#")  { print $fh "# comment $n\n" }
      elsif ($s eq "")   { print $fh "\n" }
      elsif ($s eq "!")  { print $fh "!UNKNOWN_COMMAND\n" }
      elsif ($s =~ /=$/) { print $fh "$s$n=value " . rnd(1000) . "\n" }
      elsif ($s eq "@")  { print $fh "\@$n={ \"a\", \"b\" }\n" }
      elsif ($s eq "%")  { print $fh "%$n={\"k\": " . rnd(9) . "}\n" }
      else               { print $fh "$s$n\n" }
    }
    close $fh;
  }' "$work" "$lines"
files=("$work"/level*)
echo "input: $(cat "${files[@]}" | wc -l) lines in ${#files[@]} files, $(du -sh "$work" | cut -f1)"

"$bin" henc "${files[@]}" | sort > "$work/ours.txt"
perl tests/henc/henc_reference.pl "${files[@]}" | sort > "$work/perl.txt"
cmp -s "$work/ours.txt" "$work/perl.txt" || { echo "MISMATCH between cfsim henc and the Perl reference"; exit 1; }
echo "outputs identical as sets: $(wc -l < "$work/ours.txt") lines"

# best-of-3 wall and CPU (user+sys) seconds of "$@", stdout discarded; the machine may be shared, so CPU
# time is the steadier figure.
best() {
  local bw="" bc=""
  for _ in 1 2 3; do
    local line w c
    line=$( { /usr/bin/time -f "%e %U %S" "$@" > /dev/null; } 2>&1 | tail -1 )
    w=$(echo "$line" | awk '{print $1}'); c=$(echo "$line" | awk '{print $2 + $3}')
    bw=$(awk -v a="$w" -v b="$bw" 'BEGIN { print (b == "" || a < b) ? a : b }')
    bc=$(awk -v a="$c" -v b="$bc" 'BEGIN { print (b == "" || a < b) ? a : b }')
  done
  echo "$bw $bc"
}
read -r w_rust c_rust < <(best "$bin" henc "${files[@]}")
read -r w_perl c_perl < <(best perl tests/henc/henc_reference.pl "${files[@]}")
awk -v wr="$w_rust" -v cr="$c_rust" -v wp="$w_perl" -v cp="$c_perl" 'BEGIN {
  printf "             wall      cpu\n"
  printf "cfsim henc:  %6.3f s  %6.3f s\n", wr, cr
  printf "perl ref:    %6.3f s  %6.3f s\n", wp, cp
  printf "ratio:       %6.1fx   %6.1fx\n", wp / (wr > 0 ? wr : 0.001), cp / (cr > 0 ? cr : 0.001)
}'
