//! `users:` promises (policy `present`/`absent`/`locked`, uid, description, group_primary,
//! groups_secondary, home_dir, shell, password body, home_bundle): what cf-agent 3.21's
//! verify_users_pam.c decides and prints, applied to the run's account database
//! ([`crate::host::users::UserDb`]) instead of running useradd/usermod/userdel/chpasswd. `-n`,
//! `--simulate` and a warn-only action print the first step the agent would take and fail, as it does.

use crate::eval::output::LogLevel;
use crate::eval::{split_ns, BundleDef, Engine, Outcome};
use crate::host::users::{AccountChange, Modify, NewUser};
use crate::syntax::ast::{Promise, Rval};

const USERADD: &str = "/usr/sbin/useradd";
const USERMOD: &str = "/usr/sbin/usermod";
const USERDEL: &str = "/usr/sbin/userdel";
/// `usermod -e` argument that locks an account (2 January 1970) and the shadow field it gives.
const LOCK_DATE: &str = "1970-01-02";
const LOCK_DAYS: &str = "1";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Policy {
    Present,
    Absent,
    Locked,
}

/// The password body: `format` and `data`.
#[derive(Debug, Clone)]
struct Password {
    hash: bool,
    data: String,
}

/// The promise's attributes, expanded.
#[derive(Debug, Clone, Default)]
struct Spec {
    uid: Option<String>,
    description: Option<String>,
    group_primary: Option<String>,
    groups_secondary: Option<Vec<String>>,
    home_dir: Option<String>,
    shell: Option<String>,
    password: Option<Password>,
}

/// What cfsim stores as the shadow hash of a plaintext password (it computes no crypt hashes): a
/// later plaintext promise with the same data matches it, nothing else does.
pub fn plaintext_marker(data: &str) -> String {
    use md5::{Digest, Md5};
    let d = Md5::digest(data.as_bytes());
    let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
    format!("$cfsim-plaintext${hex}")
}

/// Evaluates one users promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    let scalar =
        |e: &mut Engine<'_>, l: &str| Engine::constraint(p, l).and_then(|rv| e.scalar_of(rv));
    // UserSanityCheck runs before the promise's lock: its errors repeat in every pass and the
    // promise gets no outcome (recorded: no-policy, password-no-format)
    let policy = match scalar(e, "policy").as_deref() {
        Some("present") => Some(Policy::Present),
        Some("absent") => Some(Policy::Absent),
        Some("locked") => Some(Policy::Locked),
        _ => None,
    };
    let Some(policy) = policy else {
        sanity_error(
            e,
            def,
            p,
            promiser,
            &format!("No policy specified for 'users' promise '{promiser}'"),
        );
        return;
    };
    let mut spec = Spec {
        uid: scalar(e, "uid"),
        description: scalar(e, "description"),
        group_primary: scalar(e, "group_primary"),
        groups_secondary: Engine::constraint(p, "groups_secondary").map(|rv| e.list_of(rv)),
        home_dir: scalar(e, "home_dir"),
        shell: scalar(e, "shell"),
        password: None,
    };
    let body = e.body_attrs(def, p, "password", "password");
    let mut format = None;
    let mut data = None;
    for (l, rv) in &body {
        match l.as_str() {
            "format" => format = e.scalar_of(rv),
            "data" => data = e.scalar_of(rv),
            _ => {}
        }
    }
    let data_len = data.as_deref().map_or(0, str::len);
    if (data_len == 0) != format.is_none() {
        sanity_error(
            e,
            def,
            p,
            promiser,
            &format!(
                "Both 'data' and 'format' must be specified in password body for 'users' promise '{promiser}'"
            ),
        );
        return;
    }
    if let (Some(f), Some(d)) = (format, data) {
        spec.password = Some(Password {
            hash: f == "hash",
            data: d,
        });
    }
    // -v: the agent begins the promise every pass, before its lock (recorded: users/*/verbose.out)
    e.verbose_promise_begin(def, "users", p, promiser);
    let digest = e.digest(def, "users", p, promiser);
    if !e.done.insert(digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    let dont = e.opts.dry_run || e.opts.simulate.is_some() || e.action_warn(def, p);
    let exists = e.host.accounts.user(promiser).is_some();
    let (outcome, what) = match (policy, exists) {
        (Policy::Absent, false) => (Outcome::Kept, ""),
        (Policy::Absent, true) => (remove(e, promiser, dont), "remove"),
        (_, true) => (modify(e, promiser, policy, &spec, dont), "modify"),
        (_, false) => (create(e, def, p, promiser, policy, &spec, dont), "create"),
    };
    match outcome {
        Outcome::Repaired => {
            let done = match what {
                "remove" => "Removed",
                "modify" => "Modified",
                _ => "Created",
            };
            e.log(LogLevel::Info, &format!("{done} user '{promiser}'"));
            e.host.write_account_files();
        }
        Outcome::Failed => {
            e.log(
                LogLevel::Error,
                &format!("Failed to {what} user '{promiser}'"),
            );
        }
        _ => {}
    }
    e.record_outcome(def, p, outcome);
    e.verbose_promise_end("users", promiser, outcome);
    e.end_event(None, Some(outcome));
}

/// An error of the agent's sanity check, with the promise's place.
fn sanity_error(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str, msg: &str) {
    e.log(LogLevel::Error, msg);
    let place = format!(
        "Promise belongs to bundle '{}' in file '{}' near line {}",
        def.name,
        e.file_path(def.file),
        e.line_of(p)
    );
    e.log(LogLevel::Error, &place);
    // -v: no promise begin, but its end as not kept (not counted; recorded: users/no-policy/verbose.out)
    e.verbose_promise_end("users", promiser, crate::eval::Outcome::Failed);
    e.end_event(Some("invalid"), None);
}

/// A command's error line (its stderr reaches the agent's output unprefixed) and the agent's error.
fn command_failed(e: &mut Engine<'_>, tool_line: &str, doing: &str, user: &str, cmd: &str) {
    e.out.raw(tool_line.to_string());
    e.log(
        LogLevel::Error,
        &format!("Command returned error while {doing} user '{user}'. (Command line: '{cmd}')"),
    );
}

fn note(e: &mut Engine<'_>, user: &str, action: &str, command: &str) {
    e.host.accounts.changes.push(AccountChange {
        user: user.to_string(),
        action: action.to_string(),
        command: command.to_string(),
    });
}

/// `atoi`: leading digits, 0 when none.
fn atoi(s: &str) -> u32 {
    let t = s.trim_start();
    let digits: String = t.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().unwrap_or(0)
}

fn all_digits(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn remove(e: &mut Engine<'_>, user: &str, dont: bool) -> Outcome {
    if dont {
        e.log(LogLevel::Warning, &format!("Need to remove user '{user}'."));
        return Outcome::Failed;
    }
    let cmd = format!("{USERDEL} {user}");
    e.host.accounts.remove(user);
    note(e, user, "remove", &cmd);
    Outcome::Repaired
}

/// `usermod -e` setting (lock) or clearing the expiry; prints `usermod: no changes` when it was so.
fn set_expiration(e: &mut Engine<'_>, user: &str, lock: bool) {
    let (arg, days) = if lock {
        (LOCK_DATE, LOCK_DAYS)
    } else {
        ("", "")
    };
    let cmd = format!("{USERMOD} -e \"{arg}\" {user}");
    let m = Modify {
        expire: Some(days.to_string()),
        ..Default::default()
    };
    if let Ok(false) = e.host.accounts.modify(user, &m) {
        e.out.raw("usermod: no changes".to_string());
    }
    note(e, user, if lock { "lock" } else { "unlock" }, &cmd);
}

/// SetAccountLocked: the hash gets or loses its `!` (when `hash` is known), then the expiry.
fn set_locked(e: &mut Engine<'_>, user: &str, hash: Option<String>, lock: bool) {
    if let Some(h) = hash {
        if lock && !h.starts_with('!') {
            e.host.accounts.set_password(user, &format!("!{h}"));
        } else if !lock {
            if let Some(rest) = h.strip_prefix('!') {
                e.host.accounts.set_password(user, rest);
            }
        }
    }
    set_expiration(e, user, lock);
}

fn change_password(e: &mut Engine<'_>, user: &str, pw: &Password) {
    let stored = if pw.hash {
        pw.data.clone()
    } else {
        plaintext_marker(&pw.data)
    };
    e.host.accounts.set_password(user, &stored);
    note(e, user, "password", "/usr/sbin/chpasswd -e");
}

fn password_correct(e: &Engine<'_>, user: &str, pw: &Password) -> bool {
    let Some(acc) = e.host.accounts.user(user) else {
        return false;
    };
    if pw.hash {
        acc.password == pw.data
    } else {
        acc.password == plaintext_marker(&pw.data)
    }
}

fn modify(e: &mut Engine<'_>, user: &str, policy: Policy, s: &Spec, dont: bool) -> Outcome {
    let Some(acc) = e.host.accounts.user(user).cloned() else {
        return Outcome::Failed;
    };
    let db = &e.host.accounts;
    let c_comment = s.description.as_ref().is_some_and(|d| *d != acc.gecos);
    let c_uid = s.uid.as_ref().is_some_and(|u| atoi(u) != acc.uid);
    let c_home = s.home_dir.as_ref().is_some_and(|h| *h != acc.home);
    let c_shell = s.shell.as_ref().is_some_and(|h| *h != acc.shell);
    let locked = acc.password.starts_with('!');
    let c_locked = locked != (policy == Policy::Locked);
    let c_password = match &s.password {
        Some(pw) if !pw.data.is_empty() && policy != Policy::Locked => {
            !password_correct(e, user, pw)
        }
        _ => false,
    };
    // secondary groups: the wanted ones that exist (gids turned into names) vs the current ones
    let current: Vec<String> = db.secondary_of(user);
    let to_set: Vec<String> = match &s.groups_secondary {
        Some(w) => {
            let wanted: Vec<String> = w
                .iter()
                .map(|k| {
                    if all_digits(k) && db.groups.iter().all(|g| g.name != *k) {
                        db.group_by_key(k).map_or(k.clone(), |g| g.name.clone())
                    } else {
                        k.clone()
                    }
                })
                .collect();
            db.groups
                .iter()
                .filter(|g| wanted.contains(&g.name))
                .map(|g| g.name.clone())
                .collect()
        }
        None => Vec::new(),
    };
    let c_groups = s.groups_secondary.is_some() && {
        let mut a = to_set.clone();
        let mut b = current.clone();
        a.sort();
        a.dedup();
        b.sort();
        b.dedup();
        a != b
    };
    let mut no_such_group = None;
    let c_group = match s.group_primary.as_deref().filter(|g| !g.is_empty()) {
        Some(g) => {
            let gid = match db.groups.iter().find(|x| x.name == g) {
                Some(x) => Some(x.gid),
                None if all_digits(g) => Some(atoi(g)),
                None => {
                    no_such_group = Some(g.to_string());
                    None
                }
            };
            gid != Some(acc.gid)
        }
        None => false,
    };
    if let Some(g) = no_such_group {
        e.log(LogLevel::Error, &format!("No such group '{g}'."));
    }
    if !(c_comment || c_uid || c_home || c_shell || c_locked || c_password || c_groups || c_group) {
        return Outcome::Kept;
    }
    let mut cmd = USERMOD.to_string();
    let mut m = Modify::default();
    if c_uid {
        let u = s.uid.clone().unwrap_or_default();
        cmd.push_str(&format!(" -u \"{u}\""));
        m.uid = Some(atoi(&u));
    }
    if c_comment {
        let d = s.description.clone().unwrap_or_default();
        cmd.push_str(&format!(" -c \"{d}\""));
        m.gecos = Some(d);
    }
    if c_group {
        let g = s.group_primary.clone().unwrap_or_default();
        cmd.push_str(&format!(" -g \"{g}\""));
        m.group = Some(g);
    }
    if c_home {
        let h = s.home_dir.clone().unwrap_or_default();
        cmd.push_str(&format!(" -d \"{h}\""));
        m.home = Some(h);
    }
    if c_shell {
        let sh = s.shell.clone().unwrap_or_default();
        cmd.push_str(&format!(" -s \"{sh}\""));
        m.shell = Some(sh);
    }
    if c_password {
        if dont {
            e.log(
                LogLevel::Warning,
                &format!("Need to change password for user '{user}'."),
            );
            return Outcome::Failed;
        }
        if let Some(pw) = &s.password {
            change_password(e, user, pw);
        }
    }
    if c_locked {
        let lock = policy == Policy::Locked;
        if dont {
            let verb = if lock { "lock" } else { "unlock" };
            e.log(
                LogLevel::Warning,
                &format!("Need to {verb} account for user '{user}'."),
            );
            return Outcome::Failed;
        }
        let hash = (!c_password).then(|| acc.password.clone());
        set_locked(e, user, hash, lock);
    }
    if c_groups {
        cmd.push_str(&format!(" -G \"{}\" ", to_set.join(",")));
        m.secondary = Some(to_set);
    }
    cmd.push(' ');
    cmd.push_str(user);
    if dont {
        e.log(
            LogLevel::Warning,
            &format!("Need to update user attributes (command '{cmd}')."),
        );
        return Outcome::Failed;
    }
    if c_comment || c_uid || c_home || c_shell || c_groups || c_group {
        match e.host.accounts.modify(user, &m) {
            Ok(true) => note(e, user, "modify", &cmd),
            Ok(false) => e.out.raw("usermod: no changes".to_string()),
            Err(line) => {
                command_failed(e, &line, "modifying", user, &cmd);
                return Outcome::Failed;
            }
        }
    }
    Outcome::Repaired
}

fn create(
    e: &mut Engine<'_>,
    def: &BundleDef,
    p: &Promise,
    user: &str,
    policy: Policy,
    s: &Spec,
    dont: bool,
) -> Outcome {
    let mut cmd = USERADD.to_string();
    let mut n = NewUser {
        name: user.to_string(),
        ..Default::default()
    };
    if let Some(u) = s.uid.as_ref().filter(|u| !u.is_empty()) {
        cmd.push_str(&format!(" -u \"{u}\""));
        n.uid = Some(atoi(u));
    }
    if let Some(d) = &s.description {
        cmd.push_str(&format!(" -c \"{d}\""));
        n.gecos = Some(d.clone());
    }
    if let Some(g) = s.group_primary.as_ref().filter(|g| !g.is_empty()) {
        cmd.push_str(&format!(" -g \"{g}\""));
        n.group = Some(g.clone());
    }
    let mut sec_args = String::new();
    if let Some(gs) = &s.groups_secondary {
        sec_args = format!(" -G \"{}\"", gs.join(","));
        cmd.push_str(&sec_args);
        n.secondary = gs.clone();
    }
    if let Some(h) = s.home_dir.as_ref().filter(|h| !h.is_empty()) {
        cmd.push_str(&format!(" -d \"{h}\""));
        n.home = Some(h.clone());
    }
    if let Some(sh) = s.shell.as_ref().filter(|h| !h.is_empty()) {
        cmd.push_str(&format!(" -s \"{sh}\""));
        n.shell = Some(sh.clone());
    }
    cmd.push_str(&format!(" -M {user}"));
    if dont {
        e.log(LogLevel::Warning, &format!("Need to create user '{user}'."));
        return Outcome::Failed;
    }
    if let Err(line) = e.host.accounts.create(&n) {
        command_failed(e, &line, "creating", user, &cmd);
        return Outcome::Failed;
    }
    note(e, user, "create", &cmd);
    if s.groups_secondary.is_some() {
        // the agent sets the secondary groups a second time (an AIX workaround): no change here
        note(e, user, "modify", &format!("{USERMOD}{sec_args} {user}"));
    }
    // useradd leaves '!', which would read as locked: the agent sets the hash 'x'
    e.host.accounts.set_password(user, "x");
    if policy == Policy::Locked {
        set_locked(e, user, Some("x".into()), true);
    }
    if Engine::constraint(p, "home_bundle").is_some() {
        // the accounts are written before the bundle runs, so its promises see the new user
        e.host.write_account_files();
        home_bundle(e, def, p, user);
    }
    if policy != Policy::Locked {
        if let Some(pw) = s.password.as_ref().filter(|pw| !pw.data.is_empty()) {
            change_password(e, user, pw);
        }
    }
    Outcome::Repaired
}

/// Runs the `home_bundle` as a methods promise would (with `home_bundle_inherit`); its outcome sets
/// the promise's classes like a methods promise's.
fn home_bundle(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, user: &str) {
    let Some(rv) = Engine::constraint(p, "home_bundle") else {
        return;
    };
    let mut call_text = String::new();
    let (name, args) = match rv {
        Rval::Call(c) => {
            // -v names the call as a methods promise's banner does: `name( {"arg",...})`
            let shown: Vec<String> = c
                .args
                .iter()
                .map(|a| match a {
                    Rval::Scalar(s) => format!("\"{}\"", e.expand(&s.value).text),
                    _ => String::new(),
                })
                .collect();
            if !shown.is_empty() {
                call_text = format!("{}( {{{}}})", c.name, shown.join(","));
            }
            let Some((args, kinds)) = crate::promise::methods::eval_args(e, &c.args) else {
                return;
            };
            e.pending_arg_kinds = kinds;
            (c.name.clone(), args)
        }
        Rval::Scalar(s) => (e.expand(&s.value).text, Vec::new()),
        _ => return,
    };
    let inherit = Engine::constraint(p, "home_bundle_inherit")
        .and_then(|rv| e.scalar_of(rv))
        .is_some_and(|v| matches!(v.as_str(), "true" | "yes" | "on"));
    let (ns, bname) = split_ns(&name, &def.ns);
    let Some(bi) = e.find_bundle(ns, bname) else {
        e.log(
            LogLevel::Error,
            &format!(
                "A method attempted to use a bundle '{bname}' that was apparently not defined"
            ),
        );
        e.record_outcome(def, p, Outcome::Failed);
        return;
    };
    // -v: the promise begins again for the call, whose stack path continues the promise's, and the
    // bundle's end banner follows the outcome (recorded: users/home-bundle/verbose.out)
    e.verbose_promise_begin(def, "users", p, user);
    let stack = e.promise_stack("users", user);
    e.pending_call = Some((stack, call_text));
    // the users promise's own event ends after the home bundle's events
    let agg = e.event_aside(|e| e.run_bundle(bi, &args, true, inherit, user));
    let outcome = if agg.failed {
        e.log(
            LogLevel::Error,
            &format!("Method '{bname}' failed in some repairs"),
        );
        Outcome::Failed
    } else if agg.repaired {
        Outcome::Repaired
    } else {
        Outcome::Kept
    };
    e.record_outcome(def, p, outcome);
    let shown = e
        .bundles
        .get(bi)
        .map(|b| b.name.clone())
        .unwrap_or_default();
    e.verbose_bundle_end_banner(&shown);
}
