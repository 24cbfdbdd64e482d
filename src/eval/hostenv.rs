//! `HostAdapter`: the `expr::HostEnv` of a run, answering from the run's [`Host`] (profile or local
//! discovery). Files come from the host's file map / `files_root`, time and names from the host facts,
//! command results from the profile (service-management commands from its virtual service inventory,
//! processes from its process table). Only a `local` host falls back to this machine for read-only lookups;
//! commands asked for by functions (`execresult`, `returnszero`, …) run only when the run allows execution
//! (`cfsim agent --exec`), because a simulation never changes the machine, and names are resolved by
//! the host's own `/etc/hosts` unless the run allows the network (`--exec`, `--allow-network`).

use crate::expr::host::{
    Assume, Capture, CommandOutput, FileStat, GroupInfo, HostEnv, LastSeen, PackageInfo,
    ProcessInfo, ShellMode, UserInfo,
};
use crate::expr::localhost::LocalHost;
use crate::host::packages::PackageState;
use crate::host::processes::Process;
use crate::host::services::{self, Inventory};
use crate::host::users::UserDb;
use crate::host::vfs::{BaseFs, Kind, Vfs};
use crate::host::{Host, LocalBase};
use std::cell::RefCell;

/// The run's host seen through `HostEnv`.
pub struct HostAdapter<'a> {
    pub host: &'a Host,
    local: Option<LocalHost>,
    /// Commands may run on this machine (`--exec`).
    pub allow_exec: bool,
    /// Names may be resolved by this machine's resolver, DNS included (`--exec`, `--allow-network`).
    pub allow_network: bool,
    /// The run's changes to the host's files, over the host's files as the base.
    pub vfs: Vfs,
    /// The answer for a command neither the profile nor `--exec` answers (`--assume-commands`).
    pub assume: Option<Assume>,
    /// The run's view of the host's package database (profile hosts; packages promises change it).
    pub packages: PackageState,
    /// The run's local users and groups, changed by `users:` promises (functions see the changes).
    pub accounts: UserDb,
    /// The run's copy of the virtual service inventory (start/stop commands change it).
    pub services: RefCell<Option<Inventory>>,
    /// The process table of a profile host, read once per run like the agent's (a signalled process
    /// stays listed); `None` for a local host or a profile without `processes`.
    pub processes: Option<Vec<Process>>,
    /// This machine's process table for a local host, read from `/proc` when first asked for.
    local_processes: std::cell::OnceCell<Vec<Process>>,
}

impl<'a> HostAdapter<'a> {
    /// Wraps `host`; a host discovered from this machine (`origin == "local"`) may consult the machine.
    pub fn new(host: &'a Host) -> HostAdapter<'a> {
        let local = (host.origin == "local").then(LocalHost::new);
        HostAdapter {
            host,
            local,
            allow_exec: false,
            allow_network: false,
            vfs: Vfs::new(host.time.epoch),
            assume: None,
            packages: PackageState::new(&host.packages),
            accounts: UserDb::from_host(host),
            services: RefCell::new(host.services.clone()),
            processes: host.processes.clone(),
            local_processes: std::cell::OnceCell::new(),
        }
    }

    /// The process table processes promises read: the profile's, or this machine's for a local host
    /// (read once per run, like the agent's); `None` for a profile without `processes`.
    pub fn process_table(&self) -> Option<Vec<Process>> {
        if let Some(t) = &self.processes {
            return Some(t.clone());
        }
        self.local.as_ref()?;
        Some(
            self.local_processes
                .get_or_init(|| crate::host::processes::local_table(self.host.users()))
                .clone(),
        )
    }

    /// The answer of the virtual service inventory to a service-management command line
    /// (`systemctl …`, `service N …`, `/etc/init.d/N …`, `chkconfig …`; shapes in
    /// [`crate::host::services`]), updating the run's inventory; `None` when the host has no inventory or
    /// `cmd` is not such a command. Asked before the profile's `commands` table by functions and by
    /// commands promises.
    pub fn virtual_command(&self, cmd: &str) -> Option<CommandOutput> {
        let mut inv = self.services.borrow_mut();
        let (status, output) = services::answer(inv.as_mut()?, cmd)?;
        Some(CommandOutput { status, output })
    }

    /// The read-only files under the run's overlay: this machine for a local host, else the profile.
    pub fn base(&self) -> &dyn BaseFs {
        if self.local.is_some() {
            &LocalBase
        } else {
            self.host
        }
    }

    /// `/etc/passwd`, `/etc/group` or `/etc/shadow` made from the run's accounts, for a profile that
    /// lists users but has no such file (a file the profile or `files_root` has wins; once a users
    /// promise changes an account the three files are written into the overlay).
    pub fn account_file(&self, path: &str) -> Option<String> {
        if self.local.is_some() || self.accounts.users.is_empty() {
            return None;
        }
        match path {
            "/etc/passwd" => Some(self.accounts.passwd_text()),
            "/etc/group" => Some(self.accounts.group_text()),
            "/etc/shadow" => Some(self.accounts.shadow_text()),
            _ => None,
        }
    }

    /// After a users promise changed an account: `/etc/passwd`, `/etc/group` and `/etc/shadow` in
    /// the overlay get the new accounts (so files promises, `readfile()` and `--write-root` see them).
    pub fn write_account_files(&mut self) {
        let files = [
            ("/etc/passwd", self.accounts.passwd_text(), 0o644),
            ("/etc/group", self.accounts.group_text(), 0o644),
            ("/etc/shadow", self.accounts.shadow_text(), 0o640),
        ];
        let (vfs, base) = self.vfs_mut();
        if vfs.stat(base, "/etc", true).is_none() {
            let _ = vfs.mkdir(base, "/etc", 0o755);
        }
        for (path, text, mode) in files {
            let _ = vfs.write_file(base, path, text.into_bytes(), mode);
        }
    }

    /// The overlay and its base, for promises that change files.
    pub fn vfs_mut(&mut self) -> (&mut Vfs, &dyn BaseFs) {
        let base: &dyn BaseFs = if self.local.is_some() {
            &LocalBase
        } else {
            self.host
        };
        (&mut self.vfs, base)
    }
}

impl HostEnv for HostAdapter<'_> {
    fn read_file(&self, path: &str) -> Option<Vec<u8>> {
        match self.vfs.read(self.base(), path) {
            Ok(c) => Some(c.to_vec()),
            Err(_) => self.account_file(path).map(String::into_bytes),
        }
    }
    fn stat(&self, path: &str, follow: bool) -> Option<FileStat> {
        let base = self.base();
        let m = self.vfs.stat(base, path, follow)?;
        let link_target = if m.kind == Kind::Symlink {
            self.vfs.readlink(base, path)
        } else {
            None
        };
        Some(FileStat {
            size: m.size,
            mode: m.st_mode(),
            uid: m.uid,
            gid: m.gid,
            ino: m.ino,
            nlink: m.nlink,
            dev: 0,
            atime: m.atime,
            mtime: m.mtime,
            ctime: m.ctime,
            is_dir: m.kind == Kind::Dir,
            is_file: m.kind == Kind::File,
            is_symlink: m.kind == Kind::Symlink,
            link_target,
        })
    }
    fn list_dir(&self, path: &str) -> Option<Vec<String>> {
        self.vfs.list(self.base(), path)
    }
    fn run_command(&self, cmd: &str, mode: ShellMode, capture: Capture) -> Option<CommandOutput> {
        if let Some(o) = self.virtual_command(cmd) {
            return Some(o);
        }
        if let Some(r) = self.host.command(cmd) {
            return Some(CommandOutput {
                status: r.exit_code,
                output: r.output.clone(),
            });
        }
        if !self.allow_exec {
            return self.assume.map(|a| CommandOutput {
                status: a.code(),
                output: String::new(),
            });
        }
        self.local
            .as_ref()
            .and_then(|l| l.run_command(cmd, mode, capture))
    }
    fn getenv(&self, name: &str) -> Option<String> {
        self.host.env(name).map(str::to_string)
    }
    fn users(&self) -> Vec<UserInfo> {
        self.accounts
            .users
            .iter()
            .map(|u| UserInfo {
                name: u.name.clone(),
                uid: u.uid,
                gid: u.gid,
                gecos: u.gecos.clone(),
                home: u.home.clone(),
                shell: u.shell.clone(),
            })
            .collect()
    }
    fn groups(&self) -> Vec<GroupInfo> {
        self.accounts
            .groups
            .iter()
            .map(|g| GroupInfo {
                name: g.name.clone(),
                gid: g.gid,
                members: g.members.clone(),
            })
            .collect()
    }
    fn now(&self) -> i64 {
        self.host.time.epoch
    }
    fn utc_offset(&self, _epoch: i64) -> i64 {
        i64::from(self.host.time.utc_offset)
    }
    fn hostname(&self) -> String {
        self.host.names().1
    }
    fn in_netgroup(&self, group: &str) -> bool {
        self.local.as_ref().is_some_and(|l| l.in_netgroup(group))
    }
    fn addresses(&self) -> Vec<(String, String)> {
        self.host
            .agent_addresses()
            .into_iter()
            .map(|(i, a)| (i, a.to_string()))
            .collect()
    }
    fn processes(&self) -> Vec<ProcessInfo> {
        if let Some(table) = &self.processes {
            let (now, offset) = (self.host.time.epoch, i64::from(self.host.time.utc_offset));
            return table
                .iter()
                .map(|p| ProcessInfo {
                    pid: p.pid,
                    command: p.command.clone(),
                    line: p.ps_line(now, offset),
                })
                .collect();
        }
        self.local
            .as_ref()
            .map(|l| l.processes())
            .unwrap_or_default()
    }
    fn random(&self, lo: i64, hi: i64) -> i64 {
        match &self.local {
            Some(l) => l.random(lo, hi),
            None => lo,
        }
    }
    fn resolve_host(&self, name: &str) -> Option<Vec<String>> {
        if let (Some(l), true) = (&self.local, self.allow_network) {
            return l.resolve_host(name);
        }
        // no network: the host's own /etc/hosts
        let text = self.read_file("/etc/hosts")?;
        let found = crate::host::names::hosts_forward(&String::from_utf8_lossy(&text), name);
        (!found.is_empty()).then_some(found)
    }
    fn reverse_lookup(&self, ip: &str) -> Option<String> {
        let text = self.read_file("/etc/hosts")?;
        crate::host::names::hosts_reverse(&String::from_utf8_lossy(&text), ip)
    }
    fn disk_free(&self, path: &str) -> Option<i64> {
        self.local.as_ref().and_then(|l| l.disk_free(path))
    }
    fn packages(&self, updates: bool) -> Vec<PackageInfo> {
        self.local
            .as_ref()
            .map(|l| l.packages(updates))
            .unwrap_or_default()
    }
    fn module_packages(&self, modules: &[String], updates: bool) -> Option<Vec<PackageInfo>> {
        if self.local.is_some() {
            return None;
        }
        let mut out = Vec::new();
        for m in modules {
            for p in self.packages.cached(m, updates) {
                out.push(PackageInfo {
                    name: p.name,
                    version: p.version,
                    arch: p.arch,
                    method: m.clone(),
                });
            }
        }
        Some(out)
    }
    fn lastseen(&self) -> Option<Vec<LastSeen>> {
        match &self.local {
            Some(l) => l.lastseen(),
            None => Some(Vec::new()),
        }
    }
}
