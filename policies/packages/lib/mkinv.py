#!/usr/bin/env python3
"""Turn a case's inventory.json into the fake backends' data files in the current directory:
installed.txt / updates.txt / available.txt ("NAME VERSION ARCH [ERROR]" lines, read by the fake
package module `fakepkg`) and dpkg.txt (a `dpkg -l`-like listing of the installed packages, read by
the fake legacy list command). The same inventory.json is the cfsim host profile's `packages` field."""
import json, sys
inv = json.load(open(sys.argv[1]))
def write(name, rows, err=False):
    with open(name, "w") as f:
        for r in rows:
            line = "%s %s %s" % (r["name"], r["version"], r.get("arch", "amd64"))
            if err and r.get("install_error"):
                line += " " + r["install_error"]
            f.write(line + "\n")
write("installed.txt", inv.get("installed", []))
write("updates.txt", inv.get("updates", []))
write("available.txt", inv.get("available", []), True)
with open("dpkg.txt", "w") as f:
    for r in inv.get("installed", []):
        f.write("ii  %s %s %s\n" % (r["name"], r["version"], r.get("arch", "amd64")))
