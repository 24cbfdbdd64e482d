#!/usr/bin/env python3
"""Writes the services corpus cases (policies/services/<NAME>/{policy.cf,services.json,NOTES}) from the
table below. Expected outputs come from tests/oracle/record-services.sh, never from here."""
import json, os

HERE = os.path.dirname(os.path.abspath(__file__))
R = {"running": True, "enabled": True}
S = {"running": False, "enabled": False}
RD = {"running": True, "enabled": False}
SE = {"running": False, "enabled": True}

# name: (inventory, promises of bundle main, NOTES)
CASES = {
    "std-start-unknown": ({}, '''
      "cfsimfakesvc1" service_policy => "start", classes => o("t_start");''',
      "standard_services on a non-systemd host (this container): the service is unknown to /usr/sbin/service (no /etc/init.d script, so no status query); start runs '/usr/sbin/service N start', which fails with 'N: unrecognized service' (rc 1): the method fails."),
    "std-stop-reload-unknown": ({}, '''
      "cfsimfakesvc2" service_policy => "stop", classes => o("t_stop");
      "cfsimfakesvc3" service_policy => "reload", classes => o("t_reload");
      "cfsimfakesvc4" service_policy => "disable", classes => o("t_disable");''',
      "standard_services: stop, reload and disable of a service that is not running (no init script) run nothing: kept."),
    "std-restart-unknown": ({}, '''
      "cfsimfakesvc5" service_policy => "restart", classes => o("t_restart");''',
      "standard_services: restart always runs '/usr/sbin/service N restart' (failed here: unrecognized service)."),
    "std-default-policy": ({}, '''
      "cfsimfakesvc6" classes => o("t_default");''',
      "No service_policy: the default is start."),
    "std-policy-from-var": ({}, '''
      "cfsimfakesvc7" service_policy => "$(p)", classes => o("t_var");
      "cfsimfakesvc8" service_policy => "stop", if => "!any", classes => o("t_never");''',
      "service_policy from a variable (stop: kept); a promise whose if is false is skipped (no classes)."),
    "sd-start-stopped": ({"db": S}, '''
      "db" service_policy => "start", service_method => via_systemd, classes => o("t_db");''',
      "systemd layer (fake systemctl): a stopped, disabled unit is started and enabled (two commands, quiet); repaired. STATE shows it active afterwards (not in -n)."),
    "sd-start-running": ({"web": R}, '''
      "web" service_policy => "start", service_method => via_systemd, classes => o("t_web");''',
      "systemd layer: an active, enabled unit with start: nothing runs, kept."),
    "sd-stop-running": ({"web": R, "db": S}, '''
      "web" service_policy => "stop", service_method => via_systemd, classes => o("t_web");
      "db" service_policy => "stop", service_method => via_systemd, classes => o("t_db");''',
      "systemd layer: stop of a running enabled unit runs stop and disable (repaired); of a stopped disabled one nothing (kept)."),
    "sd-restart-reload": ({"web": R, "db": S}, '''
      "web" service_policy => "restart", service_method => via_systemd, classes => o("t_restart");
      "web" service_policy => "reload", service_method => via_systemd, classes => o("t_reload");
      "db" service_policy => "reload", service_method => via_systemd, classes => o("t_dbreload");''',
      "systemd layer: restart always runs; reload runs only for an active unit; reload of an inactive unit is kept."),
    "sd-enable-disable": ({"web": RD, "db": SE, "cache": R}, '''
      "web" service_policy => "enabled", service_method => via_systemd, classes => o("t_webenabled");
      "db" service_policy => "disabled", service_method => via_systemd, classes => o("t_dbdisabled");
      "cache" service_policy => "inactive", service_method => via_systemd, classes => o("t_cacheinactive");''',
      "systemd layer: enabled/disabled change only the boot state, inactive only the running state."),
    "sd-active-inactive": ({"web": S, "db": R}, '''
      "web" service_policy => "active", service_method => via_systemd, classes => o("t_webactive");
      "db" service_policy => "enable", service_method => via_systemd, classes => o("t_dbenable");''',
      "systemd layer: active starts without enabling; enable of an enabled unit is kept."),
    "sd-unknown-unit": ({"web": R}, '''
      "nosuchunit" service_policy => "start", service_method => via_systemd, classes => o("t_nounit");''',
      "systemd layer: a unit systemctl does not know (LoadState=not-found): nothing runs, kept; at -I (inform_mode) the bundle reports 'Could not find service'."),
    "sd-custom-state": ({"web": R}, '''
      "web" service_policy => "try-restart", service_method => via_systemd, classes => o("t_custom");''',
      "systemd layer: a state it does not know is passed through as a systemctl verb ('systemctl try-restart web'); the fake systemctl rejects it (rc 1, 'Unknown command verb'): failed, with the output quoted."),
    "sysv-start-stop": ({"web": R, "db": S}, '''
      "db" service_policy => "start", service_method => via_sysv, classes => o("t_dbstart");
      "web" service_policy => "stop", service_method => via_sysv, classes => o("t_webstop");''',
      "System V layer (fake service): status decides; start of a stopped service and stop of a running one run 'service N start|stop' (kept_successful_command: rc 0 is kept, so the method is kept too, output quoted at notice)."),
    "sysv-reload-restart": ({"web": R, "db": S}, '''
      "web" service_policy => "reload", service_method => via_sysv, classes => o("t_webreload");
      "db" service_policy => "reload", service_method => via_sysv, classes => o("t_dbreload");
      "db" service_policy => "restart", service_method => via_sysv, classes => o("t_dbrestart");''',
      "System V layer: reload only when running; restart always."),
    "sysv-unknown": ({"web": R}, '''
      "ghost" service_policy => "start", service_method => via_sysv, classes => o("t_ghost");''',
      "System V layer: 'service ghost start' answers 'ghost: unrecognized service' (rc 1): failed."),
    "state-chain": ({"db": S}, '''
      "db" service_policy => "start", service_method => via_systemd, classes => o("t_first");
      "db" service_policy => "stop", service_method => via_sysv, classes => o("t_second");''',
      "Two promises on one service in one run: the second (System V layer) sees the state the first (systemd layer) left: the service was started, so stop runs. In -n nothing changed, so the second is kept."),
    "chkconfig-start-stop": ({"web": S, "db": R}, '''
      "web" service_policy => "start", service_method => via_chkconfig, classes => o("t_webstart");
      "db" service_policy => "stop", service_method => via_chkconfig, classes => o("t_dbstop");''',
      "chkconfig layer (fake chkconfig and init.d scripts): start of a stopped service not on at boot runs 'chkconfig web on' and 'init.d/web start' (silent); stop of a running one 'chkconfig db off' and 'init.d/db stop'."),
    "chkconfig-unregistered": ({"web": R}, '''
      "ghost" service_policy => "start", service_method => via_chkconfig, classes => o("t_ghost");
      "web" service_policy => "restart", service_method => via_chkconfig, classes => o("t_web");''',
      "chkconfig layer: a service chkconfig does not know is skipped (reported at -I); restart runs the init script whatever the state. At -I the output of the noshell returnszero('chkconfig ghost') is not captured: the agent lets the child write to its own stdout ('error reading information on service ghost: …' appears raw), below -I it goes to /dev/null. cfsim does not reproduce that raw line (its function layer has no such output)."),
    "warn-only": ({"db": S}, '''
      "db" service_policy => "start", service_method => via_systemd, action => warn_only, classes => o("t_warn");''',
      "action => warn_only on a services promise: the method is not invoked ('Bundle 'B' should be invoked, but only a warning was promised!'), failed classes, in every mode."),
    "std-bootstart": ({}, '''
      "cfsimfakesvc9" service_policy => "start", service_method => bootstart, classes => o("t_boot");''',
      "The stdlib's service_method bootstart has no service_bundle (only service_autostart_policy): the default standard_services is called."),
    "sd-list-iteration": ({"web": S, "db": R, "cache": S}, '''
      "$(svcdir.names)" service_policy => "start", service_method => via_systemd, classes => o("t_$(svcdir.names)");''',
      "A services promise iterating over a list: one method call per service, $(this.promiser) expanded per iteration in the service_method body. Quirk: the later iterations (db, cache) also get their kept class. The agent expands the promise before it sets this.service_policy, so its -v shows the method called with '$(this.service_policy)' unexpanded for the first iteration of pass 1 and for every iteration of pass 2, expanded for the later iterations of pass 1: distinct call identities, so those bundles run again in pass 2 and find their unit already active (kept). cfsim reproduces this (src/promise/services.rs)."),
    "sd-list-per-state": ({"web": S, "db": R, "cache": S}, '''
      "$(svcdir.names)" service_policy => "$(want[$(svcdir.names)])", service_method => via_systemd, classes => o("t_$(svcdir.names)");''',
      "List iteration with a different service_policy per service (web start, db stop, cache start), through $(this.service_policy) in the service_method body: every bundle call gets its own state (the expansion quirk of sd-list-iteration changes identities, not values); db and cache run twice (kept and repaired)."),
    "bundle-by-name": ({"web": S}, '''
      "web" service_policy => "start", service_method => via("my_start"), classes => o("t_named");''',
      "service_bundle given by name (a scalar, through a service_method body with a parameter): the named bundle is called without arguments; here it starts 'web' through the fake service (repaired). The report's STATE line shows the state before the run: its execresult() ran when the agent pre-evaluated the report bundle, and the result is cached for the run."),
}

POLICY = '''# {name}
body common control
{{
  bundlesequence => {{ "main", "report" }};
  inputs => {{ "/usr/share/cfengine3/masterfiles/lib/stdlib.cf", "../lib/fake.cf" }};
}}

bundle common svcdir
{{
  vars:
      "d" string => "/srv/cfsim-services/{name}";
      "names" slist => {{ {names} }};
}}

bundle agent main
{{
  vars:
      "p" string => "stop";
      "want[web]" string => "start";
      "want[db]" string => "stop";
      "want[cache]" string => "start";

  services:{promises}
}}

body classes o(x)
{{
      promise_kept => {{ "$(x)_kept" }};
      promise_repaired => {{ "$(x)_repaired" }};
      repair_failed => {{ "$(x)_failed" }};
      repair_denied => {{ "$(x)_denied" }};
      repair_timeout => {{ "$(x)_timeout" }};
}}
'''

for name, (inv, promises, notes) in CASES.items():
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    names = ", ".join(f'"{n}"' for n in inv) if inv else '"cfsim_none"'
    with open(os.path.join(d, "policy.cf"), "w") as f:
        f.write(POLICY.format(name=name, names=names, promises=promises))
    with open(os.path.join(d, "services.json"), "w") as f:
        f.write(json.dumps(inv, indent=2) + "\n")
    with open(os.path.join(d, "NOTES"), "w") as f:
        f.write(notes + "\n")
