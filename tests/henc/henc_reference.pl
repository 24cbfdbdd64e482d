#!/usr/bin/perl
# Reference hENC merge, written from spec/henc-enc-bcfg2.md §1.2 (not copied from hENC): used by
# tests/henc_reference.rs to compare `cfsim henc` on random hierarchies, and by benches/henc.sh.
# Output order is Perl hash order (like hENC): compare sets of lines, not sequences.
use strict;
use warnings;

close STDERR;    # like hENC: missing files produce no message

my %state;       # class name -> 1 (set) or -1 (cancelled)
my %assign;      # variable name -> whole original line

while (my $text = <>) {
    chomp $text;
    next unless $text =~ /^\s*([=\@%+,\-.\/_!])(.+)\s*$/;
    my ($sigil, $rest) = ($1, $2);
    if    ($sigil eq '+') { $state{$rest} = 1 }
    elsif ($sigil eq '-') { $state{$rest} = -1 }
    elsif ($sigil eq '_') { delete $state{$rest} }
    elsif ($sigil eq '/') { delete $assign{$rest} }
    elsif ($sigil eq '=' || $sigil eq '@' || $sigil eq '%') {
        my $key = $rest =~ /^(.+?)=/ ? $1 : '';
        $assign{$key} = $text;
    }
    elsif ($sigil eq '!') {
        if    ($rest eq 'RESET_ALL_CLASSES')       { %state = () }
        elsif ($rest eq 'RESET_ACTIVE_CLASSES')    { delete @state{ grep { $state{$_} > 0 } keys %state } }
        elsif ($rest eq 'RESET_CANCELLED_CLASSES') { delete @state{ grep { $state{$_} < 0 } keys %state } }
    }
    # ',' and '.' match the sigil range but do nothing
}
$state{henc_classification_completed} = 1;

while (my ($name, $s) = each %state) { print(($s > 0 ? '+' : '-'), $name, "\n") }
print "$_\n" for values %assign;
exit 0;
