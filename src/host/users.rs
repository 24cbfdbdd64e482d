//! The run's account database for `users:` promises: the host's local users and groups with the
//! shadow password field and expiry date, changed as the agent's `useradd`, `usermod`, `userdel`
//! and `chpasswd -e` runs would change them, and rendered as `/etc/passwd`, `/etc/group` and
//! `/etc/shadow` text. Nothing here runs a command or touches this machine.

use super::{Group, Host, User};

/// One local account: a `/etc/passwd` line plus its `/etc/shadow` password field and expiry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub gecos: String,
    pub home: String,
    pub shell: String,
    /// The shadow password field (`*`, `!`, a crypt hash, `!hash` when locked, empty).
    pub password: String,
    /// The shadow expiry field (days since the epoch, empty for none).
    pub expire: String,
}

/// One account change made by a users promise (for the result JSON).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountChange {
    pub user: String,
    /// `create`, `modify`, `remove`, `password`, `lock`, `unlock`.
    pub action: String,
    /// The command the agent runs for it, as it would log it.
    pub command: String,
}

/// The accounts of a run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UserDb {
    pub users: Vec<Account>,
    pub groups: Vec<Group>,
    /// A users promise changed something (the account files are then rewritten in the overlay).
    pub changed: bool,
    pub changes: Vec<AccountChange>,
}

/// First uid/gid `useradd` picks for a normal account (`/etc/login.defs` `UID_MIN`/`GID_MIN` on Debian).
const ID_MIN: u32 = 1000;
/// Last one (`UID_MAX`/`GID_MAX`).
const ID_MAX: u32 = 60000;

impl UserDb {
    /// The host's accounts; a user without a known shadow entry gets `*` (no password, not locked).
    pub fn from_host(host: &Host) -> UserDb {
        UserDb {
            users: host.users.iter().map(account_of).collect(),
            groups: host.groups.clone(),
            changed: false,
            changes: Vec::new(),
        }
    }

    pub fn user(&self, name: &str) -> Option<&Account> {
        self.users.iter().find(|u| u.name == name)
    }

    fn user_mut(&mut self, name: &str) -> Option<&mut Account> {
        self.users.iter_mut().find(|u| u.name == name)
    }

    /// A group by name, else (for an all-digits key) by gid: how the agent resolves group arguments.
    pub fn group_by_key(&self, key: &str) -> Option<&Group> {
        self.groups.iter().find(|g| g.name == key).or_else(|| {
            key.parse::<u32>()
                .ok()
                .and_then(|n| self.groups.iter().find(|g| g.gid == n))
        })
    }

    /// The groups listing `user` as a member, in file order.
    pub fn secondary_of(&self, user: &str) -> Vec<String> {
        self.groups
            .iter()
            .filter(|g| g.members.iter().any(|m| m == user))
            .map(|g| g.name.clone())
            .collect()
    }

    /// Whether the agent sees the account as locked (its shadow hash starts with `!`).
    pub fn locked(&self, name: &str) -> bool {
        self.user(name).is_some_and(|u| u.password.starts_with('!'))
    }

    fn next_id(&self, taken: impl Fn(u32) -> bool) -> Option<u32> {
        // useradd: one more than the highest id in range, else the lowest free one
        let max = (ID_MIN..=ID_MAX).rev().find(|n| taken(*n));
        match max {
            Some(m) if m < ID_MAX => Some(m + 1),
            Some(_) => (ID_MIN..=ID_MAX).find(|n| !taken(*n)),
            None => Some(ID_MIN),
        }
    }

    /// What `useradd` does (Debian, `USERGROUPS_ENAB yes`, `-M`): the error line it prints or the new
    /// account. `group`: the primary group argument, `secondary`: `-G` names.
    pub fn create(&mut self, spec: &NewUser) -> Result<(), String> {
        if self.user(&spec.name).is_some() {
            return Err(format!("useradd: user '{}' already exists", spec.name));
        }
        let gid_given = match &spec.group {
            Some(g) => match self.group_by_key(g) {
                Some(gr) => Some(gr.gid),
                None => return Err(format!("useradd: group '{g}' does not exist")),
            },
            None => None,
        };
        for g in &spec.secondary {
            if self.group_by_key(g).is_none() {
                return Err(format!("useradd: group '{g}' does not exist"));
            }
        }
        if gid_given.is_none() && self.groups.iter().any(|g| g.name == spec.name) {
            return Err(format!(
                "useradd: group {} exists - if you want to add this user to that group, use -g.",
                spec.name
            ));
        }
        let uid = match spec.uid {
            Some(u) => {
                if self.users.iter().any(|x| x.uid == u) {
                    return Err(format!("useradd: UID {u} is not unique"));
                }
                u
            }
            None => self
                .next_id(|n| self.users.iter().any(|x| x.uid == n))
                .ok_or_else(|| {
                    "useradd: can't get unique UID (no more available UIDs)".to_string()
                })?,
        };
        let gid = match gid_given {
            Some(g) => g,
            None => {
                // the user's own group: gid = uid when free, else the next free gid
                let gid = if self.groups.iter().any(|g| g.gid == uid) {
                    self.next_id(|n| self.groups.iter().any(|g| g.gid == n))
                        .unwrap_or(uid)
                } else {
                    uid
                };
                self.groups.push(Group {
                    name: spec.name.clone(),
                    gid,
                    members: Vec::new(),
                });
                gid
            }
        };
        self.users.push(Account {
            name: spec.name.clone(),
            uid,
            gid,
            gecos: spec.gecos.clone().unwrap_or_default(),
            home: spec
                .home
                .clone()
                .unwrap_or_else(|| format!("/home/{}", spec.name)),
            shell: spec.shell.clone().unwrap_or_else(|| "/bin/sh".into()),
            password: "!".into(),
            expire: String::new(),
        });
        self.set_secondary(&spec.name, &spec.secondary);
        self.changed = true;
        Ok(())
    }

    /// `usermod -G a,b user`: the user is a member of exactly these groups.
    pub fn set_secondary(&mut self, user: &str, groups: &[String]) {
        let wanted: Vec<String> = groups
            .iter()
            .filter_map(|k| self.group_by_key(k).map(|g| g.name.clone()))
            .collect();
        for g in &mut self.groups {
            let member = g.members.iter().any(|m| m == user);
            let want = wanted.contains(&g.name);
            if want && !member {
                g.members.push(user.to_string());
            } else if !want && member {
                g.members.retain(|m| m != user);
            }
        }
        self.changed = true;
    }

    /// `usermod` with the attributes given: the error line it prints, or the change. `no changes`
    /// comes back as `Ok(false)` (usermod then prints `usermod: no changes` and exits 0).
    pub fn modify(&mut self, name: &str, m: &Modify) -> Result<bool, String> {
        let gid = match &m.group {
            Some(g) => match self.group_by_key(g) {
                Some(gr) => Some(gr.gid),
                None => return Err(format!("usermod: group '{g}' does not exist")),
            },
            None => None,
        };
        if let Some(gs) = &m.secondary {
            for g in gs {
                if self.group_by_key(g).is_none() {
                    return Err(format!("usermod: group '{g}' does not exist"));
                }
            }
        }
        if let Some(u) = m.uid {
            if self.users.iter().any(|x| x.uid == u && x.name != name) {
                return Err(format!("usermod: UID '{u}' already exists"));
            }
        }
        let before = (self.user(name).cloned(), self.secondary_of(name));
        let Some(acc) = self.user_mut(name) else {
            return Err(format!("usermod: user '{name}' does not exist"));
        };
        if let Some(u) = m.uid {
            acc.uid = u;
        }
        if let Some(c) = &m.gecos {
            acc.gecos = c.clone();
        }
        if let Some(g) = gid {
            acc.gid = g;
        }
        if let Some(h) = &m.home {
            acc.home = h.clone();
        }
        if let Some(s) = &m.shell {
            acc.shell = s.clone();
        }
        if let Some(e) = &m.expire {
            acc.expire = e.clone();
        }
        if let Some(gs) = &m.secondary {
            self.set_secondary(name, gs);
        }
        let after = (self.user(name).cloned(), self.secondary_of(name));
        let differs = before != after;
        self.changed |= differs;
        Ok(differs)
    }

    /// `chpasswd -e` with `user:hash`.
    pub fn set_password(&mut self, name: &str, hash: &str) -> bool {
        match self.user_mut(name) {
            Some(u) => {
                u.password = hash.to_string();
                self.changed = true;
                true
            }
            None => false,
        }
    }

    /// `userdel user`: the account goes, and the user's own group when nobody else uses it.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(pos) = self.users.iter().position(|u| u.name == name) else {
            return false;
        };
        let acc = self.users.remove(pos);
        for g in &mut self.groups {
            g.members.retain(|m| m != name);
        }
        let own_used = self.users.iter().any(|u| u.gid == acc.gid);
        if !own_used {
            self.groups
                .retain(|g| !(g.name == acc.name && g.gid == acc.gid && g.members.is_empty()));
        }
        self.changed = true;
        true
    }

    /// `/etc/passwd` as text.
    pub fn passwd_text(&self) -> String {
        self.users
            .iter()
            .map(|u| {
                format!(
                    "{}:x:{}:{}:{}:{}:{}\n",
                    u.name, u.uid, u.gid, u.gecos, u.home, u.shell
                )
            })
            .collect()
    }

    /// `/etc/group` as text.
    pub fn group_text(&self) -> String {
        self.groups
            .iter()
            .map(|g| format!("{}:x:{}:{}\n", g.name, g.gid, g.members.join(",")))
            .collect()
    }

    /// `/etc/shadow` as text (last-change and ageing fields empty: cfsim does not know them).
    pub fn shadow_text(&self) -> String {
        self.users
            .iter()
            .map(|u| format!("{}:{}::::::{}:\n", u.name, u.password, u.expire))
            .collect()
    }

    /// The users as the host model has them (for functions and files promises).
    pub fn host_users(&self) -> Vec<User> {
        self.users
            .iter()
            .map(|u| User {
                name: u.name.clone(),
                uid: u.uid,
                gid: u.gid,
                gecos: u.gecos.clone(),
                home: u.home.clone(),
                shell: u.shell.clone(),
                password: Some(u.password.clone()),
                expire: Some(u.expire.clone()),
            })
            .collect()
    }
}

fn account_of(u: &User) -> Account {
    Account {
        name: u.name.clone(),
        uid: u.uid,
        gid: u.gid,
        gecos: u.gecos.clone(),
        home: u.home.clone(),
        shell: u.shell.clone(),
        password: u.password.clone().unwrap_or_else(|| "*".into()),
        expire: u.expire.clone().unwrap_or_default(),
    }
}

/// The arguments of one `useradd`.
#[derive(Debug, Clone, Default)]
pub struct NewUser {
    pub name: String,
    pub uid: Option<u32>,
    pub gecos: Option<String>,
    pub group: Option<String>,
    pub secondary: Vec<String>,
    pub home: Option<String>,
    pub shell: Option<String>,
}

/// The arguments of one `usermod` (`None`: not given).
#[derive(Debug, Clone, Default)]
pub struct Modify {
    pub uid: Option<u32>,
    pub gecos: Option<String>,
    pub group: Option<String>,
    pub home: Option<String>,
    pub shell: Option<String>,
    pub secondary: Option<Vec<String>>,
    pub expire: Option<String>,
}

/// Parses `/etc/shadow` text into `name -> (password, expire)` (fields 1, 2 and 8).
pub fn parse_shadow(text: &str) -> Vec<(String, String, String)> {
    text.lines()
        .filter_map(|l| {
            let (f, n) = super::local::colon_fields::<8>(l);
            let [name, password, .., expire] = f;
            (n >= 2).then(|| (name.to_string(), password.to_string(), expire.to_string()))
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn db() -> UserDb {
        UserDb {
            users: vec![Account {
                name: "root".into(),
                uid: 0,
                gid: 0,
                gecos: "root".into(),
                home: "/root".into(),
                shell: "/bin/bash".into(),
                password: "*".into(),
                expire: String::new(),
            }],
            groups: vec![
                Group {
                    name: "root".into(),
                    gid: 0,
                    members: vec![],
                },
                Group {
                    name: "g1".into(),
                    gid: 23101,
                    members: vec![],
                },
            ],
            changed: false,
            changes: vec![],
        }
    }

    #[test]
    fn create_picks_ids_and_own_group() {
        let mut d = db();
        let spec = NewUser {
            name: "u1".into(),
            secondary: vec!["g1".into()],
            ..Default::default()
        };
        assert_eq!(d.create(&spec), Ok(()));
        let u = d.user("u1").cloned().unwrap();
        assert_eq!((u.uid, u.gid, u.home.as_str()), (1000, 1000, "/home/u1"));
        assert_eq!(d.secondary_of("u1"), vec!["g1".to_string()]);
        assert!(d.group_text().contains("u1:x:1000:\n"));
        assert!(d
            .passwd_text()
            .ends_with("u1:x:1000:1000::/home/u1:/bin/sh\n"));
        assert!(d.locked("u1"));
        assert!(d.remove("u1"));
        assert!(!d.group_text().contains("u1"));
    }

    #[test]
    fn errors_are_the_tools_lines() {
        let mut d = db();
        let spec = NewUser {
            name: "u1".into(),
            group: Some("nope".into()),
            ..Default::default()
        };
        assert_eq!(
            d.create(&spec),
            Err("useradd: group 'nope' does not exist".into())
        );
        let spec = NewUser {
            name: "u1".into(),
            uid: Some(0),
            ..Default::default()
        };
        assert_eq!(d.create(&spec), Err("useradd: UID 0 is not unique".into()));
        assert_eq!(d.modify("root", &Modify::default()), Ok(false));
    }
}
