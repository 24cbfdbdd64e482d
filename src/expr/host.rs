//! `HostEnv`: what built-in functions may ask of the machine (files, commands, environment, users,
//! addresses, time). The evaluator passes the run's host: a simulated profile or the local machine.
//! `MemHost` is an in-memory implementation for tests; `LocalHost` answers from this machine (read-only,
//! except that commands given to `execresult`/`returnszero` run, as they do under the agent).

use indexmap::IndexMap;

/// How a command is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellMode {
    NoShell,
    UseShell,
    Powershell,
}

/// Which output streams of a command are captured (`both` keeps the write order of the two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capture {
    Both,
    Stdout,
    Stderr,
}

/// Result of running a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandOutput {
    pub status: i32,
    /// The captured stream(s).
    pub output: String,
}

/// File metadata, as `filestat` and the `is*` functions need it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileStat {
    pub size: u64,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub ino: u64,
    pub nlink: u64,
    pub dev: u64,
    pub atime: i64,
    pub mtime: i64,
    pub ctime: i64,
    pub is_dir: bool,
    pub is_file: bool,
    pub is_symlink: bool,
    pub link_target: Option<String>,
}

/// A user account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInfo {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub gecos: String,
    pub home: String,
    pub shell: String,
}

/// A group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupInfo {
    pub name: String,
    pub gid: u32,
    pub members: Vec<String>,
}

/// A running process (`processexists`, `findprocesses`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessInfo {
    pub pid: u32,
    /// The command line, arguments separated by spaces: what `processexists()`/`findprocesses()`
    /// match their regex against.
    pub command: String,
    /// The row as `findprocesses()` returns it (`line`): the agent's full ps line for a profile's
    /// process table, the command line for this machine.
    pub line: String,
}

/// What a simulation assumes of a command the host knows nothing about (`--assume-commands`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assume {
    /// Exit code 0, no output.
    Succeed,
    /// Exit code 1, no output.
    Fail,
}

impl Assume {
    /// `succeed` or `fail`.
    pub fn parse(s: &str) -> Option<Assume> {
        match s {
            "succeed" => Some(Assume::Succeed),
            "fail" => Some(Assume::Fail),
            _ => None,
        }
    }

    /// The assumed exit code.
    pub fn code(self) -> i32 {
        match self {
            Assume::Succeed => 0,
            Assume::Fail => 1,
        }
    }
}

/// An entry of the agent's package inventory (`packagesmatching`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackageInfo {
    pub name: String,
    pub version: String,
    pub arch: String,
    pub method: String,
}

/// An entry of the agent's lastseen database (`hostsseen`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastSeen {
    pub hostkey: String,
    pub name: String,
    pub address: String,
    /// Seconds since the epoch of the last contact.
    pub last: i64,
}

/// The machine as functions see it.
pub trait HostEnv {
    /// File contents, `None` if it cannot be read.
    fn read_file(&self, path: &str) -> Option<Vec<u8>>;
    /// `stat` (or `lstat` when `follow` is false).
    fn stat(&self, path: &str, follow: bool) -> Option<FileStat>;
    /// Directory entries (names only, without `.`/`..`), sorted; `None` if not a readable directory.
    fn list_dir(&self, path: &str) -> Option<Vec<String>>;
    /// Runs a command; `None` if it could not be started.
    fn run_command(&self, cmd: &str, mode: ShellMode, capture: Capture) -> Option<CommandOutput>;
    /// An environment variable of the agent process.
    fn getenv(&self, name: &str) -> Option<String>;
    /// Local user accounts.
    fn users(&self) -> Vec<UserInfo>;
    /// Local groups.
    fn groups(&self) -> Vec<GroupInfo>;
    /// Seconds since the epoch, fixed for one run.
    fn now(&self) -> i64;
    /// Offset of local time from UTC in seconds at `epoch`.
    fn utc_offset(&self, epoch: i64) -> i64;
    /// Unqualified host name.
    fn hostname(&self) -> String;
    /// Whether this host is in NIS netgroup `group`.
    fn in_netgroup(&self, group: &str) -> bool;
    /// `(interface, address)` pairs the agent discovered.
    fn addresses(&self) -> Vec<(String, String)>;
    /// The process table.
    fn processes(&self) -> Vec<ProcessInfo>;
    /// A random number in `lo..hi` (`randomint`); a simulated host makes it reproducible.
    fn random(&self, lo: i64, hi: i64) -> i64;
    /// Addresses a host name resolves to (`host2ip`), `None` when it does not resolve.
    fn resolve_host(&self, name: &str) -> Option<Vec<String>>;
    /// Host name of an address (`ip2host`), `None` when there is none.
    fn reverse_lookup(&self, ip: &str) -> Option<String>;
    /// Kilobytes available to unprivileged users on the file system of `path` (`diskfree`).
    fn disk_free(&self, path: &str) -> Option<i64>;
    /// The agent's package inventory (installed, or available updates).
    fn packages(&self, updates: bool) -> Vec<PackageInfo>;
    /// The inventory caches of the package modules `modules` (`package_inventory`) as a simulated
    /// host's run holds them; `None` where the host has no simulated package state (the local
    /// machine: its agent's databases are read instead).
    fn module_packages(&self, _modules: &[String], _updates: bool) -> Option<Vec<PackageInfo>> {
        None
    }
    /// The lastseen database; `None` when it cannot be read.
    fn lastseen(&self) -> Option<Vec<LastSeen>>;
}

/// An in-memory host for tests.
#[derive(Debug, Clone, Default)]
pub struct MemHost {
    pub files: IndexMap<String, Vec<u8>>,
    pub dirs: Vec<String>,
    /// Command line → (exit status, stdout, stderr).
    pub commands: IndexMap<String, (i32, String, String)>,
    pub env: IndexMap<String, String>,
    pub users: Vec<UserInfo>,
    pub groups: Vec<GroupInfo>,
    pub now: i64,
    pub utc_offset: i64,
    pub hostname: String,
    pub netgroups: Vec<String>,
    pub addresses: Vec<(String, String)>,
    pub processes: Vec<ProcessInfo>,
    /// Name → addresses for `host2ip`.
    pub hosts: IndexMap<String, Vec<String>>,
    /// Seed of the reproducible `random` sequence.
    pub seed: std::cell::Cell<u64>,
    pub disk_free: IndexMap<String, i64>,
    pub packages: Vec<PackageInfo>,
    pub package_updates: Vec<PackageInfo>,
    pub lastseen: Option<Vec<LastSeen>>,
}

impl HostEnv for MemHost {
    fn read_file(&self, path: &str) -> Option<Vec<u8>> {
        self.files.get(path).cloned()
    }
    fn stat(&self, path: &str, _follow: bool) -> Option<FileStat> {
        if let Some(f) = self.files.get(path) {
            return Some(FileStat {
                size: f.len() as u64,
                mode: 0o100644,
                nlink: 1,
                is_file: true,
                ..FileStat::default()
            });
        }
        self.dirs.iter().any(|d| d == path).then(|| FileStat {
            size: 4096,
            mode: 0o40755,
            nlink: 2,
            is_dir: true,
            ..FileStat::default()
        })
    }
    fn list_dir(&self, path: &str) -> Option<Vec<String>> {
        if !self.dirs.iter().any(|d| d == path) {
            return None;
        }
        let prefix = format!("{}/", path.trim_end_matches('/'));
        let mut out: Vec<String> = self
            .files
            .keys()
            .map(String::as_str)
            .chain(self.dirs.iter().map(String::as_str))
            .filter_map(|p| p.strip_prefix(&prefix))
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .map(str::to_string)
            .collect();
        out.sort();
        out.dedup();
        Some(out)
    }
    fn run_command(&self, cmd: &str, _mode: ShellMode, capture: Capture) -> Option<CommandOutput> {
        let (status, out, err) = self.commands.get(cmd)?;
        let output = match capture {
            Capture::Stdout => out.clone(),
            Capture::Stderr => err.clone(),
            Capture::Both => format!("{err}{out}"),
        };
        Some(CommandOutput {
            status: *status,
            output,
        })
    }
    fn getenv(&self, name: &str) -> Option<String> {
        self.env.get(name).cloned()
    }
    fn users(&self) -> Vec<UserInfo> {
        self.users.clone()
    }
    fn groups(&self) -> Vec<GroupInfo> {
        self.groups.clone()
    }
    fn now(&self) -> i64 {
        self.now
    }
    fn utc_offset(&self, _epoch: i64) -> i64 {
        self.utc_offset
    }
    fn hostname(&self) -> String {
        self.hostname.clone()
    }
    fn in_netgroup(&self, group: &str) -> bool {
        self.netgroups.iter().any(|g| g == group)
    }
    fn addresses(&self) -> Vec<(String, String)> {
        self.addresses.clone()
    }
    fn processes(&self) -> Vec<ProcessInfo> {
        self.processes.clone()
    }
    fn random(&self, lo: i64, hi: i64) -> i64 {
        // splitmix64: reproducible per host value
        let mut z = self.seed.get().wrapping_add(0x9E37_79B9_7F4A_7C15);
        self.seed.set(z);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let span = (hi - lo).max(1) as u64;
        lo + (z % span) as i64
    }
    fn resolve_host(&self, name: &str) -> Option<Vec<String>> {
        self.hosts.get(name).cloned()
    }
    fn reverse_lookup(&self, ip: &str) -> Option<String> {
        self.hosts
            .iter()
            .find(|(_, ips)| ips.iter().any(|i| i == ip))
            .map(|(n, _)| n.clone())
    }
    fn disk_free(&self, path: &str) -> Option<i64> {
        self.disk_free.get(path).copied()
    }
    fn packages(&self, updates: bool) -> Vec<PackageInfo> {
        if updates {
            self.package_updates.clone()
        } else {
            self.packages.clone()
        }
    }
    fn lastseen(&self) -> Option<Vec<LastSeen>> {
        self.lastseen.clone()
    }
}
