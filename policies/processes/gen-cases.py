#!/usr/bin/env python3
"""Writes the processes corpus cases (policies/processes/<NAME>/{policy.cf,procs,NOTES}) from the table
below. Expected outputs come from tests/oracle/record-processes.sh, never from here."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
WEB2 = "cfsimproc-web root 3001\ncfsimproc-web root 3002\n"

# name: (procs, promises and bodies of bundle main (the part after `processes:`), extra bodies, NOTES)
CASES = {
    "count-in-range": (WEB2, '''
      "cfsimproc-web" process_count => range("t_web", "2", "2"), classes => o("t_c");''', "",
      "Two matching processes, match_range 2..2: in_range_define set, promise kept."),
    "count-out-of-range": (WEB2, '''
      "cfsimproc-web" process_count => range("t_web", "0", "1"), classes => o("t_c");''', "",
      "Two matching processes, match_range 0..1: out_of_range_define set; the promise is kept and repaired."),
    "count-none": ("cfsimproc-web root 3001\n", '''
      "cfsimproc-absent" process_count => range("t_absent", "1", "5"), classes => o("t_c");
      "cfsimproc-absent" process_count => range("t_zero", "0", "0"), classes => o("t_z");''', "",
      "No process matches: 1..5 is out of range, 0..0 in range."),
    "signals-term": (WEB2, '''
      "cfsimproc-web 3001" signals => { "term" }, classes => o("t_sig");
      "cfsimproc-web" process_count => range("t_after", "1", "1"), classes => o("t_c");''', "",
      "signals term on one of two processes: 'Signalled 'term' (15) to process PID (ps line)' in a real run (repaired); -n prints the error 'Need to keep signal promise' and the promise is kept. The later count promise shows whether the killed process is still in the agent's table."),
    "signals-cont-term": ("cfsimproc-db root 3001\ncfsimproc-db root 3002\ncfsimproc-web root 3003\n", '''
      "cfsimproc-db" signals => { "cont", "term" }, classes => o("t_sig");''', "",
      "Two signals on two processes: the processes in ascending pid order (ps order; the recorder starts them in procs order), each gets every signal in list order (cont first: it does not end the process, so the second signal always finds it)."),
    "signals-hup-int": ("cfsimproc-web root 3001\ncfsimproc-db root 3002\n", '''
      "cfsimproc-web" signals => { "hup" }, classes => o("t_hup");
      "cfsimproc-db" signals => { "int" }, classes => o("t_int");''', "",
      "hup (1) and int (2)."),
    "restart-class-none": ("cfsimproc-web root 3001\n", '''
      "cfsimproc-absent" restart_class => "t_restart_absent", classes => o("t_absent");
      "cfsimproc-web" restart_class => "t_restart_web", classes => o("t_web");''', "",
      "restart_class is defined when no process matches (also in -n); a matching process without signals leaves it undefined."),
    "restart-after-signal": ("cfsimproc-web root 3001\n", '''
      "cfsimproc-web" signals => { "term" }, restart_class => "t_restart", classes => o("t_sig");''', "",
      "signals and restart_class on a matching process."),
    "process-stop": (WEB2, '''
      "cfsimproc-web 3001" process_stop => "/bin/true", classes => o("t_stop_ok");
      "cfsimproc-web 3002" process_stop => "/bin/false", classes => o("t_stop_fail");''', "",
      "process_stop runs a command (here /bin/true and /bin/false, which stop nothing): zero exit repaired, non-zero failed; -n only warns."),
    "select-owner": ("cfsimproc-web root 3001\ncfsimproc-web nobody 3002\n", '''
      "cfsimproc-web" process_select => owned_by("nobody"), process_count => range("t_nobody", "1", "1"), classes => o("t_c");
      "cfsimproc-web" process_select => owned_by("nobody"), signals => { "term" }, classes => o("t_sig");''', '''
body process_select owned_by(u)
{
      process_owner => { "$(u)" };
      process_result => "process_owner";
}
''', "process_select by owner: only the nobody-owned process counts and is signalled."),
    "select-command": (WEB2, '''
      "cfsimproc" process_select => cmd("/srv/cfsim-processes/select-command/cfsimproc-web 3002"), process_count => range("t_full", "1", "1"), classes => o("t_c");
      "cfsimproc" process_select => cmd("cfsimproc-web"), process_count => range("t_part", "0", "0"), classes => o("t_p");''', '''
body process_select cmd(c)
{
      command => "$(c)";
      process_result => "command";
}
''', "process_select command is anchored: the full command line matches, a part of it does not."),
    "select-result-expr": ("cfsimproc-web root 3001\ncfsimproc-web nobody 3002\ncfsimproc-db nobody 3003\n", '''
      "cfsimproc" process_select => expr, process_count => range("t_expr", "1", "1"), classes => o("t_c");''', '''
body process_select expr
{
      process_owner => { "nobody" };
      command => ".*cfsimproc-web.*";
      process_result => "process_owner.!command";
}
''', "process_result is a class expression over the criteria: owned by nobody and not a web process (only the db one)."),
    "select-ranges": ("cfsimproc-web root 3001\n", '''
      "cfsimproc-web" process_select => ranges, process_count => range("t_ranges", "1", "1"), classes => o("t_c");
      "cfsimproc-web" process_select => none_tty, process_count => range("t_tty", "0", "0"), classes => o("t_t");''', '''
body process_select ranges
{
      vsize => irange("100", "100000");
      rsize => irange("100", "100000");
      threads => irange("1", "1");
      priority => irange("-1", "1");
      tty => "\\?";
      process_result => "vsize.rsize.threads.priority.tty";
}

body process_select none_tty
{
      tty => "pts/.*";
      process_result => "tty";
}
''', "Numeric ranges (vsize and rsize in KiB, threads = NLWP, priority = the nice value) and the tty column."),
    "select-status": ("cfsimproc-web root 3001\n", '''
      "cfsimproc-web" process_select => status("S"), process_count => range("t_s", "0", "0"), classes => o("t_c");
      "cfsimproc-web" process_select => status(".*"), process_count => range("t_any", "0", "0"), classes => o("t_a");''', '''
body process_select status(s)
{
      status => "$(s)";
      process_result => "status";
}
''', "Quirk: the agent's Linux ps format (user,pid,ppid,pgid,pcpu,pmem,vsz,ni,rss,tname,nlwp,stime,etime,time,args) has no STAT column, so a status criterion never matches, not even '.*'."),
    "select-times": ("cfsimproc-web root 3001\n", '''
      "cfsimproc-web" process_select => ttime, process_count => range("t_ttime", "1", "1"), classes => o("t_c");
      "cfsimproc-web" process_select => stime, process_count => range("t_stime", "1", "1"), classes => o("t_s");''', '''
body process_select ttime
{
      ttime_range => irange(0, 100);
      process_result => "ttime";
}

body process_select stime
{
      stime_range => irange(ago(0, 0, 1, 0, 0, 0), now());
      process_result => "stime";
}
''', "ttime_range (CPU time, seconds) and stime_range (start time within the last day)."),
    "warn-only": ("cfsimproc-web root 3001\n", '''
      "cfsimproc-web" signals => { "term" }, action => warn_only, classes => o("t_sig");
      "cfsimproc-absent" restart_class => "t_restart", action => warn_only, classes => o("t_r");
      "cfsimproc-web" process_stop => "/bin/true", action => warn_only, classes => o("t_stop");''', "",
      "action_policy warn (stdlib warn_only): every matching process is printed as a WARNING 'Matched <ps line>' (verbose otherwise), no signal is sent and no stop command runs (nothing else is said, kept); a restart_class that would be defined is not: 'Need to keep restart promise for P, but only a warning is promised' (failed classes)."),
    "count-then-signal": (WEB2, '''
      "cfsimproc-web" process_count => range("t_two", "2", "2"), signals => { "term" }, classes => o("t_in");
      "cfsimproc-web" process_count => range("t_one", "0", "1"), signals => { "cont" }, classes => o("t_out");''', "",
      "A count in range ends the promise before signals (nothing signalled); out of range, the signals go to every match."),
    "count-restart": ("cfsimproc-web root 3001\n", '''
      "cfsimproc-absent" process_count => range("t_none", "1", "1"), restart_class => "t_restart", classes => o("t_c");''', "",
      "process_count out of range (0 found) and restart_class: the class is defined (nothing matched); classes kept and repaired."),
    "regex-promiser": ("cfsimproc-web root 3001\ncfsimproc-web root 4002\n", '''
      "cfsimproc-w.b\\s+300[0-9]$" process_count => range("t_re", "1", "1"), classes => o("t_c");
      "^cfsimproc" process_count => range("t_anchor", "0", "0"), classes => o("t_a");''', "",
      "The promiser is a regex searched in the command line: '\\s', character classes and '$' work; '^cfsimproc' does not match because the command line starts with the directory."),
    "select-pid": ("cfsimproc-web root 3001\n", '''
      "cfsimproc-web" process_select => low_pid, process_count => range("t_low", "0", "0"), classes => o("t_c");''', '''
body process_select low_pid
{
      pid => irange("0", "3");
      process_result => "pid";
}
''', "pid range 0..3 matches none of the fake processes."),
    "functions": (WEB2, '''
      "cfsimproc-web" process_count => range("t_web", "2", "2");
  vars:
      "found" data => findprocesses("cfsimproc-web 300[12]");
      "n" int => length("found");
  classes:
      "t_exists" expression => processexists("cfsimproc-web 3001"), scope => "namespace";
      "t_absent" expression => processexists("cfsimproc-absent"), scope => "namespace";
      "t_anchored" expression => processexists("^/srv/cfsim-processes/functions/cfsimproc-web 3002$"), scope => "namespace";
      "t_user_column" expression => processexists("root .*cfsimproc-web"), scope => "namespace";
      "t_line_is_ps" expression => regcmp("root +[0-9]+ +[0-9]+ .* /srv/cfsim-processes/functions/cfsimproc-web 300[12]", "$(found[0][line])"), scope => "namespace";
  reports:
      "found $(n)";''', "",
      "processexists() and findprocesses() read the same table; their regex is matched against the command line only (anchors work, the user column is not part of it), while findprocesses() returns the full ps line as 'line'."),
    "signal-then-exists": (WEB2, '''
      "cfsimproc-web 3001" signals => { "kill" }, classes => o("t_sig");
      "cfsimproc-web 3001" process_count => range("t_gone", "0", "0"), classes => o("t_c");''', "",
      "After kill, a later promise on the same regex: is the process still in the table the agent uses?"),
}

POLICY = '''# {name}
body common control
{{
  bundlesequence => {{ "main", "report" }};
  inputs => {{ "/usr/share/cfengine3/masterfiles/lib/stdlib.cf", "../lib/common.cf" }};
}}

bundle agent main
{{
  processes:{promises}
}}
{bodies}'''

for name, (procs, promises, bodies, notes) in CASES.items():
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "policy.cf"), "w") as f:
        f.write(POLICY.format(name=name, promises=promises, bodies=bodies))
    with open(os.path.join(d, "procs"), "w") as f:
        f.write(procs)
    with open(os.path.join(d, "NOTES"), "w") as f:
        f.write(notes + "\n")
