import os, textwrap
base = "/work/wt/users/policies/users"
HEAD = '''# {name}
body common control
{{
  bundlesequence => {{ "main", "report" }};
  inputs => {{ "/usr/share/cfengine3/masterfiles/lib/stdlib.cf" }};
}}

bundle agent main
{{
  vars:
    "d" string => "/srv/cfsim-users/{name}";
{body}
}}
{extra}
body classes o(x)
{{
  promise_kept => {{ "$(x)_kept" }};
  promise_repaired => {{ "$(x)_repaired" }};
  repair_failed => {{ "$(x)_failed" }};
  repair_denied => {{ "$(x)_denied" }};
  repair_timeout => {{ "$(x)_timeout" }};
}}

bundle agent report
{{
  vars:
    "c" slist => sort(classesmatching("t_.*"), "lex");
    "j" string => join(" ", "c");
    "u" slist => sort(getusers("", ""), "lex");
    "mine" slist => filter("cfsimu.*", "u", "true", "false", 99);
    "m" string => join(" ", "mine");
  reports:
    "CLASSES: $(j)";
    "USERS: $(m)";
}}
'''
cases = {}
def case(name, setup, body, notes, extra=""):
    cases[name] = (setup, body, notes, extra)

case("create-basic", ":", '''  users:
    "cfsimu1"
      policy => "present",
      classes => o("t_u");''', "A missing user with no attributes: plain useradd.")
case("create-full", '''groupadd -g 23101 cfsimg1
groupadd -g 23102 cfsimg2
groupadd -g 23103 cfsimg3''', '''  users:
    "cfsimu1"
      policy => "present",
      uid => "23001",
      shell => "/bin/sh",
      home_dir => "$(d)/home",
      description => "Cfsim User One",
      group_primary => "cfsimg1",
      groups_secondary => { "cfsimg2", "cfsimg3" },
      classes => o("t_u");''', "Create with every plain attribute: the useradd command line and its order.")
case("create-existing-kept", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 -s /bin/sh -c "Kept" -d /srv/cfsim-users/create-existing-kept/home cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      uid => "23001",
      shell => "/bin/sh",
      description => "Kept",
      home_dir => "$(d)/home",
      classes => o("t_u");''', "An existing user whose attributes all match: kept.")
case("modify-shell", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 -s /bin/sh cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      shell => "/bin/bash",
      classes => o("t_u");''', "Only the shell differs: usermod -s.")
case("modify-description", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 -c "Old" cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      description => "New description",
      classes => o("t_u");''', "Only the GECOS differs: usermod -c.")
case("modify-uid", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      uid => "23002",
      classes => o("t_u");''', "Only the uid differs: usermod -u.")
case("modify-home", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 -d /srv/cfsim-users/modify-home/old cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      home_dir => "$(d)/new",
      classes => o("t_u");''', "Only the home differs: usermod -d (no move).")
case("modify-several", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 -s /bin/sh -c "Old" cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      uid => "23005",
      shell => "/bin/bash",
      description => "New",
      classes => o("t_u");''', "Several attributes differ: one usermod with all of them.")
case("modify-group-primary", '''groupadd -g 23101 cfsimg1
useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      group_primary => "cfsimg1",
      classes => o("t_u");''', "Primary group by name differs: usermod -g.")
case("modify-group-primary-gid", '''groupadd -g 23101 cfsimg1
useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      group_primary => "23101",
      classes => o("t_u");''', "Primary group given as a number.")
case("modify-groups-secondary", '''groupadd -g 23101 cfsimg1
groupadd -g 23102 cfsimg2
groupadd -g 23103 cfsimg3
useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 -G cfsimg1,cfsimg2 cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      groups_secondary => { "cfsimg2", "cfsimg3" },
      classes => o("t_u");''', "Secondary groups: one to add, one to remove.")
case("groups-secondary-kept", '''groupadd -g 23101 cfsimg1
groupadd -g 23102 cfsimg2
useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 -G cfsimg1,cfsimg2 cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      groups_secondary => { "cfsimg2", "cfsimg1" },
      classes => o("t_u");''', "Secondary groups equal in another order: kept.")
case("delete-existing", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 cfsimu1''', '''  users:
    "cfsimu1"
      policy => "absent",
      classes => o("t_u");''', "Delete an existing user: userdel.")
case("delete-missing", ":", '''  users:
    "cfsimu9"
      policy => "absent",
      classes => o("t_u");''', "Delete a user that does not exist: kept.")
case("lock-existing", '''useradd -u 23001 -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' cfsimu1''', '''  users:
    "cfsimu1"
      policy => "locked",
      classes => o("t_u");''', "Lock an existing user with a password hash.")
case("lock-missing", ":", '''  users:
    "cfsimu1"
      policy => "locked",
      classes => o("t_u");''', "policy locked on a missing user.")
case("unlock", '''useradd -u 23001 -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' cfsimu1
usermod -L -e 1 cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      classes => o("t_u");''', "A locked user (usermod -L -e 1) promised present: unlocked?")
case("password-hash-create", ":", '''  users:
    "cfsimu1"
      policy => "present",
      password => hashed("$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0."),
      classes => o("t_u");''', "Create with a password hash.", '''
body password hashed(h)
{
  format => "hash";
  data => "$(h)";
}
''')
case("password-hash-change", '''useradd -u 23001 -p '$6$cfsimold$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      password => hashed("$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0."),
      classes => o("t_u");''', "Change an existing user's password hash.", '''
body password hashed(h)
{
  format => "hash";
  data => "$(h)";
}
''')
case("password-plaintext", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      password => plain("cfsim-secret"),
      classes => o("t_u");''', "Set a plaintext password (the agent hashes it through PAM).", '''
body password plain(p)
{
  format => "plaintext";
  data => "$(p)";
}
''')
case("home-bundle", ":", '''  users:
    "cfsimu1"
      policy => "present",
      home_dir => "$(d)/home1",
      home_bundle => setup_home("$(d)/home1"),
      classes => o("t_u");''', "home_bundle runs after creation; on the second run the user exists and it does not.", '''
bundle agent setup_home(h)
{
  files:
    "$(h)/."
      create => "true",
      classes => o("t_home");
  reports:
    "home bundle for $(h)";
}
''')
case("home-bundle-inherit", ":", '''  vars:
    "greeting" string => "hello";
  classes:
    "t_mine" expression => "any";
  users:
    "cfsimu1"
      policy => "present",
      home_bundle => h,
      home_bundle_inherit => "true",
      classes => o("t_u");''', "home_bundle_inherit: the home bundle sees the caller's classes.", '''
bundle agent h
{
  reports:
    t_mine::
      "inherited t_mine";
    !t_mine::
      "no t_mine";
}
''')
case("warn-only", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 -s /bin/sh cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      shell => "/bin/bash",
      action => warn_only,
      classes => o("t_u");
    "cfsimu2"
      policy => "present",
      action => warn_only,
      classes => o("t_v");
    "cfsimu3"
      policy => "absent",
      action => warn_only,
      classes => o("t_w");''', "action_policy warn: modify, create (and a kept absent) only warn.")
case("warn-only-delete", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 cfsimu1''', '''  users:
    "cfsimu1"
      policy => "absent",
      action => warn_only,
      classes => o("t_u");''', "action_policy warn on a delete.")
case("loop-list", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23002 cfsimu2''', '''  vars:
    "names" slist => { "cfsimu1", "cfsimu2", "cfsimu3" };
  users:
    "$(names)"
      policy => "present",
      shell => "/bin/sh",
      classes => o("t_$(names)");''', "A users promise iterated over a list: create, modify, create.")
case("getusers-after", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23002 cfsimu2''', '''  vars:
    "before" slist => sort(filter("cfsimu.*", getusers("", ""), "true", "false", 99), "lex");
    "b" string => join(",", "before");
    "uid" int => getuid("cfsimu1");
  users:
    "cfsimu1"
      policy => "present",
      uid => "23001",
      classes => o("t_u");
    "cfsimu2"
      policy => "absent",
      classes => o("t_v");
  reports:
    "before: $(b)";
    t_u_repaired::
      "uid: $(uid)";
    any::
      "exists: cfsimu1" if => userexists("cfsimu1");
      "exists: cfsimu2" if => userexists("cfsimu2");''', "getusers() in main is evaluated before the promise; the report bundle sees the change.")
case("files-in-home", ":", '''  users:
    "cfsimu1"
      policy => "present",
      uid => "23001",
      home_dir => "$(d)/home",
      classes => o("t_u");
  files:
    "$(d)/home/."
      create => "true",
      perms => mog("0750", "cfsimu1", "root"),
      classes => o("t_home");
    "$(d)/home/.profile"
      create => "true",
      content => "export CFSIM=1$(const.n)",
      perms => mog("0640", "cfsimu1", "root"),
      classes => o("t_profile");''', "A users promise then files promises owning the new home to the new user.")
case("bad-group", ":", '''  users:
    "cfsimu1"
      policy => "present",
      group_primary => "cfsimgnone",
      classes => o("t_u");''', "group_primary names a group that does not exist.")
case("bad-secondary-group", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 cfsimu1''', '''  users:
    "cfsimu1"
      policy => "present",
      groups_secondary => { "cfsimgnone" },
      classes => o("t_u");''', "groups_secondary names a group that does not exist.")
case("uid-taken", '''useradd -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -u 23001 cfsimu2''', '''  users:
    "cfsimu1"
      policy => "present",
      uid => "23001",
      classes => o("t_u");''', "Create with a uid another user has (useradd refuses without -o).")


case("existing-nopassword", """useradd -u 23001 -s /bin/sh cfsimu1""", """  users:
    "cfsimu1"
      policy => "present",
      shell => "/bin/sh",
      classes => o("t_u");""", "A user made by plain useradd has the password field '!': the agent sees a locked account and unlocks it (chpasswd -e with an empty hash, then usermod -e '' prints 'usermod: no changes').")
case("existing-nopassword-modify", """useradd -u 23001 -s /bin/sh cfsimu1""", """  users:
    "cfsimu1"
      policy => "present",
      shell => "/bin/bash",
      classes => o("t_u");""", "Unlock and a shell change: -n only shows the first step (unlock).")
case("lock-already", """useradd -u 23001 -p '!$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' -e 1970-01-02 cfsimu1""", """  users:
    "cfsimu1"
      policy => "locked",
      classes => o("t_u");""", "policy locked on an account whose hash starts with '!': kept.")
case("lock-and-modify", """useradd -u 23001 -s /bin/sh -p '$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' cfsimu1""", """  users:
    "cfsimu1"
      policy => "locked",
      shell => "/bin/bash",
      password => hashed("$6$cfsimother$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0."),
      classes => o("t_u");""", "Lock plus a shell change; the password is ignored for a locked account.", """
body password hashed(h)
{
  format => "hash";
  data => "$(h)";
}
""")
case("password-and-shell", """useradd -u 23001 -s /bin/sh -p '$6$cfsimold$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.' cfsimu1""", """  users:
    "cfsimu1"
      policy => "present",
      shell => "/bin/bash",
      password => hashed("$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0."),
      classes => o("t_u");""", "Password and shell differ: -n stops at the password step.", """
body password hashed(h)
{
  format => "hash";
  data => "$(h)";
}
""")
case("create-locked-hash", ":", """  users:
    "cfsimu1"
      policy => "locked",
      uid => "23001",
      password => hashed("$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0."),
      classes => o("t_u");""", "Create a locked user with a password: the hash is not set ('!x').", """
body password hashed(h)
{
  format => "hash";
  data => "$(h)";
}
""")
case("no-policy", ":", """  users:
    "cfsimu1"
      shell => "/bin/sh",
      classes => o("t_u");""", "No policy attribute.")
case("password-no-format", ":", """  users:
    "cfsimu1"
      policy => "present",
      password => onlydata,
      classes => o("t_u");""", "A password body with data but no format.", """
body password onlydata
{
  data => "$6$cfsimsalt$QJ0ZFCtK5rq2g0dF5T2s6eGfTWY8r1n0Qz7p1o9qQm0vQ0h4Wc4sO1b3kq3b5Xy6HkqO3v7bQ5m1d2zj8h2r0.";
}
""")


case("real-nobody-shell", ":", """  users:
    "nobody"
      policy => "present",
      shell => "/bin/sh",
      classes => o("t_u");""", "-n only, on the machine's own 'nobody': the usermod command the agent would run.")
case("real-root-kept", ":", """  users:
    "root"
      policy => "present",
      uid => "0",
      home_dir => "/root",
      shell => "/bin/bash",
      classes => o("t_u");""", "-n only, on the machine's own root: kept ('*' is not a locked hash).")
case("real-nobody-several", ":", """  users:
    "nobody"
      policy => "present",
      uid => "65000",
      description => "Nobody at all",
      home_dir => "/nonexistent2",
      shell => "/bin/false",
      group_primary => "root",
      groups_secondary => { "adm", "tty" },
      classes => o("t_u");""", "-n only, on the machine's own 'nobody': every attribute in the usermod command, in the agent's order.")
case("real-root-lock", ":", """  users:
    "daemon"
      policy => "locked",
      classes => o("t_u");""", "-n only: locking the machine's 'daemon' account.")
case("real-root-absent", ":", """  users:
    "games"
      policy => "absent",
      classes => o("t_u");""", "-n only: removing the machine's 'games' account.")

for name, (setup, body, notes, extra) in cases.items():
    d = os.path.join(base, name)
    os.makedirs(d, exist_ok=True)
    open(os.path.join(d, "setup.sh"), "w").write(setup + "\n")
    open(os.path.join(d, "policy.cf"), "w").write(HEAD.format(name=name, body=body, extra=extra))
    open(os.path.join(d, "NOTES"), "w").write(notes + "\n")
    if name.startswith("real-"):
        open(os.path.join(d, "n-only"), "w").write("")
print(len(cases))
