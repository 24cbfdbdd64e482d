//! `cfsim fleet`: one policy, loaded once, simulated for many host profiles in parallel (rayon), with a
//! per-node summary in Bcfg2's spirit or one result document per line (JSON lines); deterministic
//! sharding (`--shard K/N`) and the merge of shard outputs (`cfsim fleet merge`). Hosts are run in
//! chunks and printed in order, so memory stays flat however many hosts there are.

use std::io::Write;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
// `cfsim fleet --classes RE` is cfsim's own filter, not the agent's matching: the `regex` crate
use regex::Regex;
use serde_json::Value as Json;

use crate::sim::Policy;
use crate::sim::{simulate_policy, Options};

/// Output format of a fleet run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// One summary row per node and a fleet total.
    Table,
    /// One `--result-json` document per node and line (plus `profile`).
    Jsonl,
}

/// `--shard K/N`: this run takes the hosts whose index `i` (0-based, in the sorted host list) has
/// `i % N == K - 1`. K is 1-based (1/3, 2/3, 3/3), as test runners number shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl Shard {
    /// Parses `K/N` (1 ≤ K ≤ N).
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("--shard '{s}': expected K/N with 1 <= K <= N (e.g. 2/4)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// Whether the item at `index` of the sorted list belongs to this shard.
    pub fn takes(&self, index: usize) -> bool {
        index % self.n == self.k - 1
    }
}

/// Most host profiles one fleet run takes (explicit limit; the list of paths is the only thing kept
/// for every host).
pub const MAX_HOSTS: usize = 10_000_000;

/// The host profiles named by `specs`: a directory gives its `*.json` files (not `schema.json`), a
/// pattern with `*`, `?` or `[` is expanded like a shell glob, anything else is one profile file.
/// Sorted by path (bytewise) and deduplicated: the fleet's order.
pub fn host_files(specs: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut out: Vec<PathBuf> = Vec::new();
    for spec in specs {
        let p = Path::new(spec);
        if spec.contains(['*', '?', '[']) {
            let paths =
                glob::glob(spec).map_err(|e| format!("--hosts '{spec}': bad pattern: {e}"))?;
            let before = out.len();
            for entry in paths {
                match entry {
                    Ok(path) if path.is_file() => out.push(path),
                    Ok(_) => {}
                    Err(e) => return Err(format!("--hosts '{spec}': {e}")),
                }
                if out.len() > MAX_HOSTS {
                    return Err(format!("more than {MAX_HOSTS} host profiles"));
                }
            }
            if out.len() == before {
                return Err(format!("--hosts '{spec}': no file matches"));
            }
        } else if p.is_dir() {
            let rd = std::fs::read_dir(p).map_err(|e| format!("--hosts '{spec}': {e}"))?;
            for entry in rd {
                let path = entry.map_err(|e| format!("--hosts '{spec}': {e}"))?.path();
                let is_profile = path.extension().is_some_and(|x| x == "json")
                    && path.file_name().is_some_and(|n| n != "schema.json")
                    && path.is_file();
                if is_profile {
                    out.push(path);
                }
                if out.len() > MAX_HOSTS {
                    return Err(format!("more than {MAX_HOSTS} host profiles"));
                }
            }
        } else if p.is_file() {
            out.push(p.to_path_buf());
        } else {
            return Err(format!("--hosts '{spec}': no such file or directory"));
        }
    }
    // bytewise order of the path text, the order `cfsim fleet merge` restores
    out.sort_by(|a, b| {
        a.as_os_str()
            .as_encoded_bytes()
            .cmp(b.as_os_str().as_encoded_bytes())
    });
    out.dedup();
    Ok(out)
}

/// One node's outcome: its result document (with `profile`), or why it could not run.
pub fn run_node(policy: &Policy, profile: &Path, o: &Options) -> Json {
    let name = profile.to_string_lossy().into_owned();
    let host = match crate::host::load_host(&name) {
        Ok(h) => h,
        Err(e) => {
            return serde_json::json!({"profile": name, "error": e.to_string(), "exit_code": 2});
        }
    };
    let r = simulate_policy(policy, &host, o);
    match r.result {
        Some(Json::Object(mut m)) => {
            m.insert("profile".into(), Json::String(name));
            Json::Object(m)
        }
        _ => serde_json::json!({
            "profile": name,
            "host": host.hostname,
            "error": r.stdout.trim_end(),
            "exit_code": r.code,
        }),
    }
}

/// Fleet totals, accumulated node by node.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Totals {
    pub nodes: usize,
    pub clean: usize,
    pub dirty: usize,
    pub failed: usize,
    pub kept: u64,
    pub repaired: u64,
    pub not_kept: u64,
    pub not_simulated: u64,
}

fn count(v: &Json, k: &str) -> u64 {
    v["summary"][k].as_u64().unwrap_or(0)
}

/// Whether a node is dirty: the run would repair something or fail a promise (Bcfg2: entries that are
/// not in their specified state).
pub fn is_dirty(v: &Json) -> bool {
    count(v, "repaired") + count(v, "not_kept") > 0
}

impl Totals {
    /// Adds one node.
    pub fn add(&mut self, v: &Json) {
        self.nodes += 1;
        if v.get("error").is_some() || v["exit_code"].as_u64() != Some(0) {
            self.failed += 1;
        } else if is_dirty(v) {
            self.dirty += 1;
        } else {
            self.clean += 1;
        }
        self.kept += count(v, "kept");
        self.repaired += count(v, "repaired");
        self.not_kept += count(v, "not_kept");
        self.not_simulated += count(v, "not_simulated");
    }
}

/// Header of the table format.
pub const TABLE_HEADER: &str =
    "node                                     state     kept  repaired  not_kept  not_sim  classes";

/// One row of the table: node, clean/dirty/failed, the counts, and the classes matching `classes`.
pub fn table_row(v: &Json, classes: Option<&Regex>) -> String {
    let node = v["host"]
        .as_str()
        .or_else(|| v["profile"].as_str())
        .unwrap_or("?");
    let state = if v.get("error").is_some() || v["exit_code"].as_u64() != Some(0) {
        "failed"
    } else if is_dirty(v) {
        "dirty"
    } else {
        "clean"
    };
    let selected: Vec<&str> = match classes {
        Some(re) => v["classes"]
            .as_array()
            .map(|cs| {
                cs.iter()
                    .filter_map(|c| c["name"].as_str())
                    .filter(|n| re.is_match(n))
                    .collect()
            })
            .unwrap_or_default(),
        None => Vec::new(),
    };
    let mut row = format!(
        "{node:<40} {state:<7} {:>6} {:>9} {:>9} {:>8}  {}",
        count(v, "kept"),
        count(v, "repaired"),
        count(v, "not_kept"),
        count(v, "not_simulated"),
        selected.join(",")
    );
    if let Some(e) = v["error"].as_str() {
        let first = e.lines().next().unwrap_or("");
        row.push_str(&format!("  error: {first}"));
    }
    row.trim_end().to_string()
}

/// The fleet total line of the table.
pub fn total_row(t: &Totals) -> String {
    format!(
        "fleet: {} nodes, {} clean, {} dirty, {} failed; promises kept {}, repaired {}, not kept {}, not simulated {}",
        t.nodes, t.clean, t.dirty, t.failed, t.kept, t.repaired, t.not_kept, t.not_simulated
    )
}

/// Writes one node in `format`.
pub fn write_node(
    out: &mut impl Write,
    v: &Json,
    format: Format,
    classes: Option<&Regex>,
) -> std::io::Result<()> {
    match format {
        Format::Jsonl => writeln!(out, "{v}"),
        Format::Table => writeln!(out, "{}", table_row(v, classes)),
    }
}

/// Hosts simulated per parallel batch, per worker thread: large enough to keep every core busy,
/// small enough that memory does not grow with the fleet.
const CHUNK_PER_THREAD: usize = 16;

/// Runs `policy` for every profile of `hosts` (already sharded), writing each node in order as soon
/// as its batch is done; `progress` is called with the number of nodes done. Returns the totals.
#[allow(clippy::too_many_arguments)]
pub fn run_fleet(
    pool: &rayon::ThreadPool,
    policy: &Policy,
    hosts: &[PathBuf],
    o: &Options,
    format: Format,
    classes: Option<&Regex>,
    out: &mut impl Write,
    progress: &dyn Fn(usize),
) -> std::io::Result<Totals> {
    let mut totals = Totals::default();
    let chunk = CHUNK_PER_THREAD * pool.current_num_threads().max(1);
    let mut done = 0;
    for batch in hosts.chunks(chunk) {
        let results: Vec<Json> =
            pool.install(|| batch.par_iter().map(|h| run_node(policy, h, o)).collect());
        for v in &results {
            totals.add(v);
            write_node(out, v, format, classes)?;
        }
        done += batch.len();
        progress(done);
    }
    Ok(totals)
}

/// `cfsim fleet merge`: the nodes of shard outputs (JSON lines) back in the fleet's order (by
/// `profile`, as one unsharded run prints them). A line that is not a fleet node is an error naming
/// its file and line.
pub fn merge(files: &[String]) -> Result<Vec<Json>, String> {
    let mut nodes: Vec<(String, Json)> = Vec::new();
    for f in files {
        let text = crate::load::read_text(f).map_err(|e| e.to_string())?;
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let v: Json = serde_json::from_str(line)
                .map_err(|e| format!("{f}:{}: not a JSON line: {e}", i + 1))?;
            let Some(p) = v["profile"].as_str().map(str::to_string) else {
                return Err(format!("{f}:{}: not a fleet node (no \"profile\")", i + 1));
            };
            nodes.push((p, v));
        }
    }
    nodes.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    Ok(nodes.into_iter().map(|(_, v)| v).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_partition_the_list() {
        let shards: Vec<Shard> = (1..=3)
            .map(|k| Shard::parse(&format!("{k}/3")).unwrap_or(Shard { k: 1, n: 1 }))
            .collect();
        for i in 0..100 {
            assert_eq!(shards.iter().filter(|s| s.takes(i)).count(), 1);
        }
        assert!(Shard::parse("0/3").is_err());
        assert!(Shard::parse("4/3").is_err());
        assert!(Shard::parse("1/0").is_err());
        assert!(Shard::parse("x").is_err());
    }
}
