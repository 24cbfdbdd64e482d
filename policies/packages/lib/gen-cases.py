#!/usr/bin/env python3
"""Writes the packages corpus cases (policies/packages/<NAME>/{inventory.json,setup.sh,policy.cf,NOTES}).
Run once when adding a case; the recordings come from tests/oracle/record-packages.sh."""
import json, os
HERE = os.path.dirname(os.path.abspath(__file__))
BASE = os.path.dirname(HERE)

BASH = {"name": "bash", "version": "5.2.15-2", "arch": "amd64"}
VIM = {"name": "vim", "version": "2:9.0.1378-2", "arch": "amd64"}
NGINX = {"name": "nginx", "version": "1.22.1-9", "arch": "amd64"}
INV = {"installed": [BASH, VIM], "updates": [], "available": [NGINX]}
INV_UPD = {"installed": [BASH, VIM],
           "updates": [{"name": "bash", "version": "5.2.21-1", "arch": "amd64"}],
           "available": [NGINX]}

MODULE_BODY = """body package_module fakepkg
{
  module_path => "/srv/cfsim-packages/%(name)s/fakepkg";
  query_installed_ifelapsed => "0";
  query_updates_ifelapsed => "0";
}
"""
LEGACY_BODY = """body package_method fake(mode)
{
  package_changes => "$(mode)";
  package_list_command => "/srv/cfsim-packages/%(name)s/legacy-list";
  package_list_name_regex => "ii\\s+(\\S+).*";
  package_list_version_regex => "ii\\s+\\S+\\s+(\\S+).*";
  package_list_arch_regex => "ii\\s+\\S+\\s+\\S+\\s+(\\S+).*";
  package_installed_regex => "ii.*";
  package_list_update_ifelapsed => "0";
  package_add_command => "/srv/cfsim-packages/%(name)s/legacy-add";
  package_update_command => "/srv/cfsim-packages/%(name)s/legacy-add";
  package_delete_command => "/srv/cfsim-packages/%(name)s/legacy-remove";
}
"""
CLASSES = """body classes o(x)
{
  promise_kept => { "$(x)_kept" };
  promise_repaired => { "$(x)_repaired" };
  repair_failed => { "$(x)_failed" };
  repair_denied => { "$(x)_denied" };
  repair_timeout => { "$(x)_timeout" };
}

bundle agent report
{
  vars:
    "c" slist => sort(classesmatching("t_.*"), "lex");
    "j" string => join(" ", "c");
  reports:
    "CLASSES: $(j)";
}
"""
WARN = """body action warn
{
  action_policy => "warn";
}
"""
INVENTORY_BUNDLE = """bundle agent %(b)s
{
  vars:
    "p" data => packagesmatching(".*", ".*", ".*", ".*");
    "u" data => packageupdatesmatching(".*", ".*", ".*", ".*");
  reports:
    "%(b)s installed: $(with)" with => format("%%S", p);
    "%(b)s updates: $(with)" with => format("%%S", u);
}
"""

CASES = []
def case(name, note, promises, inv=INV, legacy=False, control="", pre=(), post=(), extra="", vars_=""):
    CASES.append(dict(name=name, note=note, promises=promises, inv=inv, legacy=legacy,
                      control=control, pre=pre, post=post, extra=extra, vars_=vars_))

def pm(pkg, attrs, cls="t_p"):
    a = "".join("      %s,\n" % x for x in attrs)
    return '    "%s"\n%s      package_module => fakepkg,\n      classes => o("%s");\n' % (pkg, a, cls)

def lg(pkg, policy, mode="individual", attrs=(), cls="t_p"):
    a = "".join("      %s,\n" % x for x in attrs)
    return ('    "%s"\n      package_policy => "%s",\n%s      package_method => fake("%s"),\n'
            '      classes => o("%s");\n' % (pkg, policy, a, mode, cls))

# ---- package_module cases
case("pm-present-missing", "present on a package the repository has: installed (module repo-install), repaired; -n: Should install; simulate: the agent's post-install validation error.", pm("nginx", ['policy => "present"']))
case("pm-present-installed", "present on an installed package: kept, silent.", pm("bash", ['policy => "present"']))
case("pm-absent-installed", "absent on an installed package: removed, repaired.", pm("vim", ['policy => "absent"']))
case("pm-absent-missing", "absent on a package that is not installed: kept.", pm("nginx", ['policy => "absent"']))
case("pm-default-policy", "no policy attribute: present is the default.", pm("nginx", []))
case("pm-version-installed", "present with the installed version pinned: kept.", pm("bash", ['policy => "present"', 'version => "5.2.15-2"']))
case("pm-version-other", "present with a version that differs from the installed one (the repository has it as an update): installed.", pm("bash", ['policy => "present"', 'version => "5.2.21-1"']), inv=INV_UPD)
case("pm-version-unavailable", "present with a version nobody has: the module's ErrorMessage, failed.", pm("bash", ['policy => "present"', 'version => "9.9"']))
case("pm-latest-update", "version latest with an update listed: installed.", pm("bash", ['policy => "present"', 'version => "latest"']), inv=INV_UPD)
case("pm-latest-no-update", "version latest without an update: kept.", pm("bash", ['policy => "present"', 'version => "latest"']))
case("pm-latest-missing", "version latest on a package that is not installed: installed from the repository.", pm("nginx", ['policy => "present"', 'version => "latest"']))
case("pm-absent-latest", "absent with version latest: the agent refuses it.", pm("bash", ['policy => "absent"', 'version => "latest"']))
case("pm-absent-version-other", "absent with a version that is not the installed one: kept.", pm("bash", ['policy => "absent"', 'version => "1.0"']))
case("pm-arch-installed", "present with the installed architecture: kept.", pm("bash", ['policy => "present"', 'architecture => "amd64"']))
case("pm-arch-other", "present with another architecture that the repository has: installed next to the amd64 one.", pm("bash", ['policy => "present"', 'architecture => "i386"']),
     inv={"installed": [BASH], "updates": [], "available": [{"name": "bash", "version": "5.2.15-2", "arch": "i386"}]})
case("pm-two-promises", "present then absent on the same package in one bundle: both act.", pm("nginx", ['policy => "present"'], "t_a") + pm("nginx", ['policy => "absent"'], "t_b"))
case("pm-bundle-twice", "the same bundle twice in the bundlesequence: the second pass finds the package installed.", pm("nginx", ['policy => "present"']), control='  bundlesequence => { "main", "main", "report" };\n')
case("pm-list-loop", "one promise over a list of four packages, two installed, one in the repository, one unknown.", pm("$(p)", ['policy => "present"']), vars_='    "p" slist => { "bash", "nginx", "vim", "nosuchpkg" };\n')
case("pm-module-error", "the module answers repo-install with ErrorMessage=: the error is logged, failed.", pm("nginx", ['policy => "present"']),
     inv={"installed": [BASH], "updates": [], "available": [dict(NGINX, install_error="dpkg: error processing package nginx (--configure)")]})
case("pm-not-available", "present on a package the repository does not have.", pm("nosuchpkg", ['policy => "present"']))
case("pm-missing-module", "the module_path does not exist.", pm("nginx", ['policy => "present"']), extra="MISSING")
case("pm-warn-present", "warn-only present on a missing package.", pm("nginx", ['policy => "present"', 'action => warn']))
case("pm-warn-absent", "warn-only absent on an installed package.", pm("vim", ['policy => "absent"', 'action => warn']))
case("pm-warn-kept", "warn-only present on an installed package: kept.", pm("bash", ['policy => "present"', 'action => warn']))
case("pm-inventory-before-after", "packagesmatching / packageupdatesmatching before and after an install, with package_inventory => fakepkg; the caches are empty before the first package promise of the run (the recorder clears them).",
     pm("nginx", ['policy => "present"']), inv=INV_UPD,
     control='  bundlesequence => { "before", "main", "after", "report" };\n  package_inventory => { fakepkg };\n', pre=("before",), post=("after",))
case("pm-inventory-no-control", "packagesmatching after a package promise without package_inventory in common control.",
     pm("nginx", ['policy => "present"']), control='  bundlesequence => { "main", "after", "report" };\n', post=("after",))
case("pm-mixed", "install, remove, kept and update in one run (simulate report lists them).",
     pm("nginx", ['policy => "present"'], "t_a") + pm("vim", ['policy => "absent"'], "t_b") + pm("bash", ['policy => "present"', 'version => "latest"'], "t_c"), inv=INV_UPD)

# ---- legacy package_method cases
case("lg-add-missing", "legacy add of a package the fake repository has, individual: scheduled, Installing line, repaired.", lg("nginx", "add"), legacy=True)
case("lg-add-installed", "legacy add of an installed package: kept.", lg("bash", "add"), legacy=True)
case("lg-delete-installed", "legacy delete of an installed package.", lg("vim", "delete"), legacy=True)
case("lg-delete-missing", "legacy delete of a package that is not installed: kept.", lg("nginx", "delete"), legacy=True)
case("lg-add-bulk", "legacy add of two missing packages in bulk mode: one command.", lg("$(p)", "add", "bulk"), legacy=True,
     inv={"installed": [BASH], "updates": [], "available": [NGINX, {"name": "curl", "version": "7.88.1-10", "arch": "amd64"}]},
     vars_='    "p" slist => { "nginx", "curl" };\n')
case("lg-add-individual-two", "legacy add of two missing packages, individual: one command each.", lg("$(p)", "add", "individual"), legacy=True,
     inv={"installed": [BASH], "updates": [], "available": [NGINX, {"name": "curl", "version": "7.88.1-10", "arch": "amd64"}]},
     vars_='    "p" slist => { "nginx", "curl" };\n')
case("lg-add-fails", "legacy add of a package the fake add command cannot find (exit 1).", lg("nosuchpkg", "add"), legacy=True)
case("lg-update", "legacy update with a newer version in the fake repository.", lg("bash", "update", attrs=['package_version => "5.2.21-1"', 'package_select => ">="']), legacy=True, inv=INV_UPD)
case("lg-verify", "legacy verify of an installed package without a verify command.", lg("bash", "verify"), legacy=True)
case("lg-warn-add", "legacy add, warn-only.", lg("nginx", "add", attrs=["action => warn"]), legacy=True)
case("lg-addupdate-missing", "legacy addupdate of a missing package.", lg("nginx", "addupdate"), legacy=True)
case("lg-warn-delete", "legacy delete, warn-only.", lg("vim", "delete", attrs=["action => warn"]), legacy=True)
case("lg-delete-bulk", "legacy delete of two installed packages in bulk mode.", lg("$(p)", "delete", "bulk"), legacy=True, vars_='    "p" slist => { "bash", "vim" };\n')
case("lg-loop-classes", "legacy add over a list with per-package outcome classes: the classes are set when the schedule runs, named after each promise's iteration.", lg("$(p)", "add", cls="t_$(p)"), legacy=True,
     inv={"installed": [BASH], "updates": [], "available": [NGINX, {"name": "curl", "version": "7.88.1-10", "arch": "amd64"}]},
     vars_='    "p" slist => { "nginx", "curl", "bash" };\n')
case("pm-loop-classes", "package_module present over a list with per-package outcome classes.", pm("$(p)", ['policy => "present"'], "t_$(p)"),
     vars_='    "p" slist => { "nginx", "bash" };\n')
case("lg-loop-mixed", "legacy add over a list: one installed, one missing.", lg("$(p)", "add"), legacy=True, vars_='    "p" slist => { "bash", "nginx" };\n')

def write(c):
    name = c["name"]
    d = os.path.join(BASE, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "inventory.json"), "w") as f:
        json.dump(c["inv"], f, indent=2)
        f.write("\n")
    setup = ('lib=$(cd "$(dirname "$0")/../lib" && pwd)\n'
             'python3 "$lib/mkinv.py" "$(dirname "$0")/inventory.json"\n')
    if c["extra"] != "MISSING":
        setup += 'cp "$lib/fakepkg" "$lib/legacy-list" "$lib/legacy-add" "$lib/legacy-remove" . && chmod 755 fakepkg legacy-*\n'
    with open(os.path.join(d, "setup.sh"), "w") as f:
        f.write(setup)
    ctl = c["control"] or '  bundlesequence => { "main", "report" };\n'
    p = "# %s\nbody common control\n{\n%s}\n\nbundle agent main\n{\n" % (name, ctl)
    if c["vars_"]:
        p += "  vars:\n" + c["vars_"]
    p += "  packages:\n" + c["promises"] + "}\n\n"
    p += (LEGACY_BODY if c["legacy"] else MODULE_BODY) % {"name": name} + "\n"
    if "action => warn" in c["promises"]:
        p += WARN + "\n"
    for b in c["pre"] + c["post"]:
        p += INVENTORY_BUNDLE % {"b": b} + "\n"
    p += CLASSES
    with open(os.path.join(d, "policy.cf"), "w") as f:
        f.write(p)
    with open(os.path.join(d, "NOTES"), "w") as f:
        f.write(c["note"] + "\n")

for c in CASES:
    write(c)
print(len(CASES), "cases")
