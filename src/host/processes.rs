//! The host's process table (profile field `processes`): one object per process,
//! `{"pid": 812, "user": "root", "command": "/usr/sbin/sshd -D"}` plus optional `ppid` (default 1),
//! `pgid` (default the pid), `vsize`/`rsize` (KiB, default 0), `status` (ps STAT letter, default `S`),
//! `tty` (default `?`), `priority` (nice value, default 0), `threads` (default 1), `elapsed_seconds`
//! (how long before the host's `time` it started, default 0) and `cpu_seconds` (CPU time, default 0).
//! [`Process::ps_line`] renders the row as cf-agent 3.21 prints it in its process messages (the columns
//! of its Linux `ps -eo user:30,pid,ppid,pgid,pcpu,pmem,vsz,ni,rss:9,tty,nlwp,stime,etime,time,args`).

use serde_json::Value;

use super::profile::{describe, Reader, R};
use super::User;

/// Clock ticks per second assumed for `/proc/<pid>/stat` times (Linux's USER_HZ on every common arch).
const TICKS: u64 = 100;
/// Page size assumed for the resident set of `/proc/<pid>/stat` (bytes).
const PAGE: u64 = 4096;

/// This machine's process table, read-only from `/proc` (for `--host local`): one row per process
/// except cfsim itself (it stands for the agent, which never lists itself), in pid order. Owners are
/// named from `users` (the uid when unknown); a process without a command line (a kernel thread) shows
/// `[comm]` as ps does. Times assume 100 ticks per second, sizes 4 KiB pages.
pub fn local_table(users: &[User]) -> Vec<Process> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    let uptime = std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0) as u64;
    let me = std::process::id();
    let mut out: Vec<Process> = rd
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| *pid != me)
        .filter_map(|pid| local_row(pid, users, uptime))
        .collect();
    out.sort_by_key(|p| p.pid);
    out
}

fn local_row(pid: u32, users: &[User], uptime: u64) -> Option<Process> {
    let dir = std::path::Path::new("/proc").join(pid.to_string());
    let stat = std::fs::read_to_string(dir.join("stat")).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat.get(open + 1..close)?.to_string();
    let f: Vec<&str> = stat.get(close + 1..)?.split_whitespace().collect();
    let num = |i: usize| f.get(i).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
    let raw = std::fs::read(dir.join("cmdline")).unwrap_or_default();
    let args: Vec<String> = raw
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();
    let command = if args.is_empty() {
        format!("[{comm}]")
    } else {
        args.join(" ")
    };
    let uid = std::fs::read_to_string(dir.join("status"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .and_then(|l| l.split_whitespace().next()?.parse::<u32>().ok())
        })
        .unwrap_or(0);
    let user = users
        .iter()
        .find(|u| u.uid == uid)
        .map_or_else(|| uid.to_string(), |u| u.name.clone());
    let tty_nr = num(4);
    let (major, minor) = (
        (tty_nr >> 8) & 0xfff,
        (tty_nr & 0xff) | ((tty_nr >> 12) & 0xfff00),
    );
    let tty = match major {
        0 => "?".to_string(),
        4 => format!("tty{minor}"),
        136..=143 => format!("pts/{}", (major - 136) * 256 + minor),
        _ => "?".to_string(),
    };
    let started = num(19).max(0) as u64 / TICKS;
    Some(Process {
        pid,
        ppid: num(1).max(0) as u32,
        pgid: num(2).max(0) as u32,
        user,
        command,
        vsize: num(20).max(0) as u64 / 1024,
        rsize: num(21).max(0) as u64 * PAGE / 1024,
        status: f.first().map_or("S", |v| v).to_string(),
        tty,
        priority: num(16),
        threads: num(17).max(0) as u64,
        elapsed_seconds: uptime.saturating_sub(started),
        cpu_seconds: (num(11).max(0) + num(12).max(0)) as u64 / TICKS,
    })
}

/// One row of the process table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    pub pid: u32,
    pub ppid: u32,
    pub pgid: u32,
    pub user: String,
    pub command: String,
    pub vsize: u64,
    pub rsize: u64,
    pub status: String,
    pub tty: String,
    pub priority: i64,
    pub threads: u64,
    pub elapsed_seconds: u64,
    pub cpu_seconds: u64,
}

const PROCESS_FIELDS: &[&str] = &[
    "pid",
    "ppid",
    "pgid",
    "user",
    "command",
    "vsize",
    "rsize",
    "status",
    "tty",
    "priority",
    "threads",
    "elapsed_seconds",
    "cpu_seconds",
];

impl Process {
    /// The row as the agent prints it (`Signalled 'term' (15) to process PID (LINE)`) on a host whose
    /// clock reads `now` (epoch) at `utc_offset` seconds east: STIME is `HH:MM` of the local start time
    /// (ps prints `MonDD` for a start before today; that form is used when the start is a day or more
    /// ago), ELAPSED `[[dd-]hh:]mm:ss`, TIME `hh:mm:ss`.
    pub fn ps_line(&self, now: i64, utc_offset: i64) -> String {
        let start = now - self.elapsed_seconds as i64 + utc_offset;
        let stime = if self.elapsed_seconds >= 86_400 {
            let (_, m, d) = civil(start.div_euclid(86_400));
            let mon = [
                "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
            ];
            format!(
                "{}{:02}",
                mon.get((m as usize).wrapping_sub(1)).unwrap_or(&"Jan"),
                d
            )
        } else {
            let sod = start.rem_euclid(86_400);
            format!("{:02}:{:02}", sod / 3600, sod % 3600 / 60)
        };
        let e = self.elapsed_seconds;
        let (d, h, m, s) = (e / 86_400, e % 86_400 / 3600, e % 3600 / 60, e % 60);
        let elapsed = if d > 0 {
            format!("{d}-{h:02}:{m:02}:{s:02}")
        } else if h > 0 {
            format!("{h:02}:{m:02}:{s:02}")
        } else {
            format!("{m:02}:{s:02}")
        };
        let c = self.cpu_seconds;
        let time = format!("{:02}:{:02}:{:02}", c / 3600, c % 3600 / 60, c % 60);
        format!(
            "{:<30} {:>5} {:>5} {:>5} {:>4} {:>4} {:>6} {:>3} {:>9} {:<8} {:>4} {:>5} {:>11} {:>8} {}",
            self.user,
            self.pid,
            self.ppid,
            self.pgid,
            "0.0",
            "0.0",
            self.vsize,
            self.priority,
            self.rsize,
            self.tty,
            self.threads,
            stime,
            elapsed,
            time,
            self.command
        )
    }
}

impl Reader<'_> {
    /// The `processes` field: `None` when absent.
    pub(super) fn processes(&self, v: Option<&Value>) -> R<Option<Vec<Process>>> {
        let Some(v) = v else { return Ok(None) };
        let Some(items) = v.as_array() else {
            return self.err("processes", "an array of process objects", describe(v));
        };
        let mut out: Vec<Process> = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let f = format!("processes[{i}]");
            let m = self.object(item, &f, PROCESS_FIELDS)?;
            let num = |k: &str, max: u64| self.uint(m, k, &format!("{f}.{k}"), max);
            let Some(pid) = num("pid", u64::from(u32::MAX))? else {
                return self.err(
                    &format!("{f}.pid"),
                    "an integer",
                    "nothing (the field is required)",
                );
            };
            let pid = pid as u32;
            if out.iter().any(|p| p.pid == pid) {
                return self.err(
                    &format!("{f}.pid"),
                    "a pid not used by another process",
                    format!("duplicate {pid}"),
                );
            }
            let priority = match m.get("priority") {
                None => 0,
                Some(v) => match v.as_i64() {
                    Some(n @ -20..=19) => n,
                    _ => {
                        return self.err(
                            &format!("{f}.priority"),
                            "an integer from -20 to 19",
                            describe(v),
                        )
                    }
                },
            };
            let text = |k: &str, d: &str| -> R<String> {
                Ok(self
                    .string(m, k, &format!("{f}.{k}"))?
                    .unwrap_or_else(|| d.to_string()))
            };
            out.push(Process {
                pid,
                ppid: num("ppid", u64::from(u32::MAX))?.map_or(1, |n| n as u32),
                pgid: num("pgid", u64::from(u32::MAX))?.map_or(pid, |n| n as u32),
                user: self.req_string(m, "user", &format!("{f}.user"))?,
                command: self.req_string(m, "command", &format!("{f}.command"))?,
                vsize: num("vsize", u64::MAX)?.unwrap_or(0),
                rsize: num("rsize", u64::MAX)?.unwrap_or(0),
                status: text("status", "S")?,
                tty: text("tty", "?")?,
                priority,
                threads: num("threads", u64::from(u32::MAX))?.unwrap_or(1),
                elapsed_seconds: num("elapsed_seconds", u64::from(u32::MAX))?.unwrap_or(0),
                cpu_seconds: num("cpu_seconds", u64::from(u32::MAX))?.unwrap_or(0),
            });
        }
        Ok(Some(out))
    }
}

/// (year, month, day) of a day number since 1970-01-01 (Howard Hinnant's civil_from_days).
fn civil(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn ps_line_matches_the_agents_layout() {
        let p = super::Process {
            pid: 5015,
            ppid: 1,
            pgid: 5000,
            user: "root".into(),
            command: "./cfsimsleepA 300 1".into(),
            vsize: 2920,
            rsize: 1812,
            status: "S".into(),
            tty: "?".into(),
            priority: 0,
            threads: 1,
            elapsed_seconds: 1,
            cpu_seconds: 0,
        };
        // recorded from cf-agent 3.21.0 on this machine
        // 12:44:01 UTC
        assert_eq!(
            p.ps_line(1_795_697_041, 0),
            "root                            5015     1  5000  0.0  0.0   2920   0      1812 ?           1 12:44       00:01 00:00:00 ./cfsimsleepA 300 1"
        );
    }
}
