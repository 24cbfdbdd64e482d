//! `LocalHost`: the `HostEnv` of this machine (std::fs, /etc/passwd, /etc/group, `ip -o addr`). Reads
//! only; commands handed to `run_command` run as they would under the agent.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::process::Command;

use std::io::Read;
use std::process::Stdio;

use super::host::{
    Capture, CommandOutput, FileStat, GroupInfo, HostEnv, LastSeen, PackageInfo, ProcessInfo,
    ShellMode, UserInfo,
};

/// The agent's legacy software inventory files (`name,version,arch,method` lines).
const INVENTORY: &str = "/var/lib/cfengine3/state/software_packages.csv";
const UPDATES: &str = "/var/lib/cfengine3/state/software_patches_avail.csv";

/// This machine, with the run's start time fixed at construction.
#[derive(Debug, Clone)]
pub struct LocalHost {
    now: i64,
}

impl LocalHost {
    /// Captures the current time as the run's `now`.
    pub fn new() -> LocalHost {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        LocalHost { now }
    }
}

impl Default for LocalHost {
    fn default() -> Self {
        LocalHost::new()
    }
}

fn read_lines(path: &str) -> Vec<String> {
    std::fs::read_to_string(path)
        .map(|s| s.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

impl HostEnv for LocalHost {
    fn read_file(&self, path: &str) -> Option<Vec<u8>> {
        // regular files only, bounded: /dev/zero or a FIFO never blocks or fills memory
        crate::host::read::read_regular(
            std::path::Path::new(path),
            crate::host::read::MAX_READ_BYTES,
        )
        .ok()
    }
    fn stat(&self, path: &str, follow: bool) -> Option<FileStat> {
        let m = if follow {
            std::fs::metadata(path)
        } else {
            std::fs::symlink_metadata(path)
        }
        .ok()?;
        Some(FileStat {
            size: m.size(),
            mode: m.permissions().mode(),
            uid: m.uid(),
            gid: m.gid(),
            ino: m.ino(),
            nlink: m.nlink(),
            dev: m.dev(),
            atime: m.atime(),
            mtime: m.mtime(),
            ctime: m.ctime(),
            is_dir: m.is_dir(),
            is_file: m.is_file(),
            is_symlink: m.file_type().is_symlink(),
            link_target: std::fs::read_link(path)
                .ok()
                .map(|p| p.to_string_lossy().into_owned()),
        })
    }
    fn list_dir(&self, path: &str) -> Option<Vec<String>> {
        let mut out: Vec<String> = std::fs::read_dir(path)
            .ok()?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        out.sort();
        Some(out)
    }
    fn run_command(&self, cmd: &str, mode: ShellMode, capture: Capture) -> Option<CommandOutput> {
        let mut c = match mode {
            ShellMode::UseShell => {
                let mut c = Command::new("/bin/sh");
                c.arg("-c").arg(cmd);
                c
            }
            ShellMode::NoShell | ShellMode::Powershell => {
                let argv = crate::functions::system::split_command(cmd);
                let (prog, args) = argv.split_first()?;
                let mut c = Command::new(prog);
                c.args(args);
                c
            }
        };
        let (mut reader, writer) = std::io::pipe().ok()?;
        c.stdin(Stdio::null());
        match capture {
            Capture::Both => {
                c.stdout(writer.try_clone().ok()?).stderr(writer);
            }
            Capture::Stdout => {
                c.stdout(writer).stderr(Stdio::null());
            }
            Capture::Stderr => {
                c.stdout(Stdio::null()).stderr(writer);
            }
        }
        let mut child = c.spawn().ok()?;
        drop(c);
        let mut buf = Vec::new();
        reader.read_to_end(&mut buf).ok()?;
        let status = child.wait().ok()?;
        Some(CommandOutput {
            status: status.code().unwrap_or(-1),
            output: String::from_utf8_lossy(&buf).into_owned(),
        })
    }
    fn getenv(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
    fn users(&self) -> Vec<UserInfo> {
        read_lines("/etc/passwd")
            .iter()
            .filter_map(|l| {
                let f: Vec<&str> = l.split(':').collect();
                (f.len() >= 7).then(|| UserInfo {
                    name: f[0].into(),
                    uid: f[2].parse().unwrap_or(0),
                    gid: f[3].parse().unwrap_or(0),
                    gecos: f[4].into(),
                    home: f[5].into(),
                    shell: f[6].into(),
                })
            })
            .collect()
    }
    fn groups(&self) -> Vec<GroupInfo> {
        read_lines("/etc/group")
            .iter()
            .filter_map(|l| {
                let f: Vec<&str> = l.split(':').collect();
                (f.len() >= 4).then(|| GroupInfo {
                    name: f[0].into(),
                    gid: f[2].parse().unwrap_or(0),
                    members: f[3]
                        .split(',')
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                        .collect(),
                })
            })
            .collect()
    }
    fn now(&self) -> i64 {
        self.now
    }
    fn utc_offset(&self, epoch: i64) -> i64 {
        let out = Command::new("date")
            .arg("-d")
            .arg(format!("@{epoch}"))
            .arg("+%z")
            .output();
        let Ok(out) = out else { return 0 };
        let s = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let sign = if s.starts_with('-') { -1 } else { 1 };
        let digits: String = s.chars().filter(|c| c.is_ascii_digit()).collect();
        let n: i64 = digits.parse().unwrap_or(0);
        sign * ((n / 100) * 3600 + (n % 100) * 60)
    }
    fn hostname(&self) -> String {
        std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map(|s| s.trim().split('.').next().unwrap_or("").to_string())
            .unwrap_or_default()
    }
    fn in_netgroup(&self, _group: &str) -> bool {
        false
    }
    fn addresses(&self) -> Vec<(String, String)> {
        let Ok(out) = Command::new("ip").args(["-o", "addr", "show"]).output() else {
            return Vec::new();
        };
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                let iface = f.get(1)?;
                let addr = f.get(3)?.split('/').next()?;
                Some((iface.to_string(), addr.to_string()))
            })
            .collect()
    }
    fn processes(&self) -> Vec<ProcessInfo> {
        let Ok(rd) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        let mut out: Vec<ProcessInfo> = rd
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let pid: u32 = e.file_name().to_string_lossy().parse().ok()?;
                let raw = std::fs::read(e.path().join("cmdline")).ok()?;
                let line = raw
                    .split(|b| *b == 0)
                    .filter(|p| !p.is_empty())
                    .map(|p| String::from_utf8_lossy(p).into_owned())
                    .collect::<Vec<_>>()
                    .join(" ");
                Some(ProcessInfo {
                    pid,
                    command: line.clone(),
                    line,
                })
            })
            .filter(|p| !p.line.is_empty())
            .collect();
        out.sort_by_key(|p| p.pid);
        out
    }
    fn random(&self, lo: i64, hi: i64) -> i64 {
        let mut buf = [0u8; 8];
        let ok = std::fs::File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut buf))
            .is_ok();
        let z = if ok {
            u64::from_le_bytes(buf)
        } else {
            self.now as u64
        };
        let span = (hi - lo).max(1) as u64;
        lo + (z % span) as i64
    }
    fn resolve_host(&self, name: &str) -> Option<Vec<String>> {
        crate::host::names::resolve_dns(name)
    }
    fn reverse_lookup(&self, ip: &str) -> Option<String> {
        let text = std::fs::read_to_string("/etc/hosts").ok()?;
        crate::host::names::hosts_reverse(&text, ip)
    }
    fn disk_free(&self, path: &str) -> Option<i64> {
        let out = Command::new("df").args(["-P", "-k", path]).output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.lines().nth(1)?.split_whitespace().nth(3)?.parse().ok()
    }
    fn packages(&self, updates: bool) -> Vec<PackageInfo> {
        read_lines(if updates { UPDATES } else { INVENTORY })
            .iter()
            .filter_map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f.len() >= 4).then(|| PackageInfo {
                    name: f[0].into(),
                    version: f[1].into(),
                    arch: f[2].into(),
                    method: f[3].into(),
                })
            })
            .collect()
    }
    fn lastseen(&self) -> Option<Vec<LastSeen>> {
        // The lastseen database is LMDB, which cfsim does not read: report it unreadable.
        None
    }
}
