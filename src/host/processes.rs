//! The host's process table (profile field `processes`): one object per process,
//! `{"pid": 812, "user": "root", "command": "/usr/sbin/sshd -D"}` plus optional `ppid` (default 1),
//! `pgid` (default the pid), `vsize`/`rsize` (KiB, default 0), `status` (ps STAT letter, default `S`),
//! `tty` (default `?`), `priority` (nice value, default 0), `threads` (default 1), `stime` (start time as
//! ps prints it, default `00:00`), `elapsed` (default `00:00`), `time` (CPU time, default `00:00:00`).
//! [`Process::ps_line`] renders the row as cf-agent 3.21 prints it in its process messages (the columns
//! of its Linux `ps -eo user:30,pid,ppid,pgid,pcpu,pmem,vsz,ni,rss:9,tty,nlwp,stime,etime,time,args`).

use serde_json::Value;

use super::profile::{describe, Reader, R};

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
    pub stime: String,
    pub elapsed: String,
    pub time: String,
}

const PROCESS_FIELDS: &[&str] = &[
    "pid", "ppid", "pgid", "user", "command", "vsize", "rsize", "status", "tty", "priority",
    "threads", "stime", "elapsed", "time",
];

impl Process {
    /// The row as the agent prints it (`Signalled 'term' (15) to process PID (LINE)`).
    pub fn ps_line(&self) -> String {
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
            self.stime,
            self.elapsed,
            self.time,
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
                stime: text("stime", "00:00")?,
                elapsed: text("elapsed", "00:00")?,
                time: text("time", "00:00:00")?,
            });
        }
        Ok(Some(out))
    }
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
            stime: "12:44".into(),
            elapsed: "00:01".into(),
            time: "00:00:00".into(),
        };
        // recorded from cf-agent 3.21.0 on this machine
        assert_eq!(
            p.ps_line(),
            "root                            5015     1  5000  0.0  0.0   2920   0      1812 ?           1 12:44       00:01 00:00:00 ./cfsimsleepA 300 1"
        );
    }
}
