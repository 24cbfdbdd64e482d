//! `cfsim diff`: what changes on each node between two revisions of a policy — classes, variables,
//! reports, promise outcomes, exit code — from the two runs' results (the octocatalog-diff question for
//! CFEngine). A revision is a directory or `git:REF` (exported with `git archive` into a temporary
//! directory). Paths of the two roots are written `$(root)` in values, so moving a tree is no change.
//! Nodes with the same differences are grouped; nodes without any are counted.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::{json, Value as Json};

use crate::sim::Policy;
use crate::sim::{simulate_policy, Options};

/// One revision of the policy: the root directory it was read from (and the temporary export to
/// remove for `git:REF`).
pub struct Revision {
    pub label: String,
    pub root: PathBuf,
    temp: Option<PathBuf>,
}

impl Drop for Revision {
    fn drop(&mut self) {
        if let Some(t) = &self.temp {
            let _ = std::fs::remove_dir_all(t);
        }
    }
}

/// Opens `spec`: a directory, or `git:REF` of the repository around the working directory.
pub fn revision(spec: &str, tag: &str) -> Result<Revision, String> {
    if let Some(rf) = spec.strip_prefix("git:") {
        if rf.is_empty() || rf.starts_with('-') {
            return Err(format!("'{spec}': expected git:REF"));
        }
        let top = std::process::Command::new("git")
            .args(["rev-parse", "--show-toplevel"])
            .output()
            .map_err(|e| format!("git: {e}"))?;
        if !top.status.success() {
            return Err(format!("'{spec}': not inside a git repository"));
        }
        let top = PathBuf::from(String::from_utf8_lossy(&top.stdout).trim());
        let tmp =
            std::fs::canonicalize(std::env::temp_dir()).unwrap_or_else(|_| std::env::temp_dir());
        let dir = tmp.join(format!("cfsim-diff-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let archive = std::process::Command::new("git")
            .arg("-C")
            .arg(&top)
            .args(["archive", "--format=tar", rf])
            .output()
            .map_err(|e| format!("git archive: {e}"))?;
        if !archive.status.success() {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(format!(
                "'{spec}': {}",
                String::from_utf8_lossy(&archive.stderr).trim()
            ));
        }
        let mut tar = std::process::Command::new("tar")
            .arg("-x")
            .arg("-C")
            .arg(&dir)
            .stdin(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| format!("tar: {e}"))?;
        if let Some(mut stdin) = tar.stdin.take() {
            use std::io::Write;
            stdin
                .write_all(&archive.stdout)
                .map_err(|e| format!("tar: {e}"))?;
        }
        let st = tar.wait().map_err(|e| format!("tar: {e}"))?;
        if !st.success() {
            return Err(format!("'{spec}': tar failed"));
        }
        return Ok(Revision {
            label: spec.to_string(),
            root: dir.clone(),
            temp: Some(dir),
        });
    }
    let root = std::fs::canonicalize(spec)
        .map_err(|_| format!("'{spec}': not a directory (or git:REF)"))?;
    if !root.is_dir() {
        return Err(format!("'{spec}': not a directory (or git:REF)"));
    }
    Ok(Revision {
        label: spec.to_string(),
        root,
        temp: None,
    })
}

/// Replaces the root's path in every string of `v` with `$(root)`.
fn normalise(v: &mut Json, root: &str) {
    replace_in_strings(v, root, "$(root)");
}

/// Replaces `from` with `to` in every string of `v` (keys unchanged).
pub fn replace_in_strings(v: &mut Json, from: &str, to: &str) {
    match v {
        Json::String(s) if !from.is_empty() && s.contains(from) => *s = s.replace(from, to),
        Json::Array(a) => a.iter_mut().for_each(|x| replace_in_strings(x, from, to)),
        Json::Object(o) => o.values_mut().for_each(|x| replace_in_strings(x, from, to)),
        _ => {}
    }
}

/// The result of a run of `policy` (entry `entry` under `root`) on the host of `profile`, normalised.
fn result(policy: &Result<Policy, String>, entry: &Path, root: &Path, profile: &Path) -> Json {
    let policy = match policy {
        Ok(p) => p,
        Err(e) => return json!({"error": e}),
    };
    let host = match crate::host::load_host(&profile.to_string_lossy()) {
        Ok(h) => h,
        Err(e) => return json!({"error": e.to_string()}),
    };
    let o = Options {
        file: entry.to_string_lossy().into_owned(),
        result_json: Some(String::new()),
        ..Options::default()
    };
    let r = simulate_policy(policy, &host, &o);
    let mut v = r
        .result
        .unwrap_or_else(|| json!({"error": r.stdout.trim_end(), "exit_code": r.code}));
    normalise(&mut v, &root.to_string_lossy());
    v
}

fn names(v: &Json, key: &str) -> BTreeSet<String> {
    v[key]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect()
}

fn values(v: &Json) -> BTreeMap<String, Json> {
    v["variables"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|x| Some((x["name"].as_str()?.to_string(), x["value"].clone())))
        .collect()
}

/// Promise outcomes keyed by the promise's identity across revisions (its line may move): bundle,
/// promise type and handle, or the promiser as written with its rank among promises written alike.
fn outcomes(v: &Json) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for p in v["promises"].as_array().into_iter().flatten() {
        let who = match p["handle"].as_str() {
            Some(h) => format!("handle {h}"),
            None => format!("{:?}", p["promiser"].as_str().unwrap_or("")),
        };
        let base = format!(
            "{} {} {who}",
            p["bundle"].as_str().unwrap_or(""),
            p["promise_type"].as_str().unwrap_or("")
        );
        let n = seen.entry(base.clone()).or_default();
        *n += 1;
        let key = if *n == 1 {
            base
        } else {
            format!("{base} #{n}")
        };
        m.insert(key, p["outcome"].as_str().unwrap_or("").to_string());
    }
    m
}

/// Multiset difference of report texts: (removed, added), in order.
fn reports(a: &Json, b: &Json) -> (Vec<String>, Vec<String>) {
    let list = |v: &Json| -> Vec<String> {
        v["reports"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|x| x.as_str().map(str::to_string))
            .collect()
    };
    let (ra, rb) = (list(a), list(b));
    let mut count: BTreeMap<&str, i64> = BTreeMap::new();
    for r in &ra {
        *count.entry(r).or_default() += 1;
    }
    for r in &rb {
        *count.entry(r).or_default() -= 1;
    }
    let mut left = count.clone();
    let removed = ra
        .iter()
        .filter(|r| {
            let c = left.entry(r.as_str()).or_default();
            if *c > 0 {
                *c -= 1;
                true
            } else {
                false
            }
        })
        .cloned()
        .collect();
    let mut right = count;
    let added = rb
        .iter()
        .filter(|r| {
            let c = right.entry(r.as_str()).or_default();
            if *c < 0 {
                *c += 1;
                true
            } else {
                false
            }
        })
        .cloned()
        .collect();
    (removed, added)
}

/// The differences of one node between result `a` (before) and `b` (after), as a JSON object with
/// only the kinds that changed (empty object: no change).
pub fn node_diff(a: &Json, b: &Json) -> Json {
    let mut d = serde_json::Map::new();
    if a.get("error") != b.get("error") || a["exit_code"] != b["exit_code"] {
        d.insert(
            "exit_code".into(),
            json!({"before": a["exit_code"], "after": b["exit_code"], "error_before": a.get("error"), "error_after": b.get("error")}),
        );
    }
    let (ca, cb) = (names(a, "classes"), names(b, "classes"));
    let added: Vec<&String> = cb.difference(&ca).collect();
    let removed: Vec<&String> = ca.difference(&cb).collect();
    if !added.is_empty() || !removed.is_empty() {
        d.insert(
            "classes".into(),
            json!({"added": added, "removed": removed}),
        );
    }
    let (va, vb) = (values(a), values(b));
    let mut vars = serde_json::Map::new();
    for (k, v) in &va {
        match vb.get(k) {
            None => {
                vars.insert(k.clone(), json!({"before": v, "after": null}));
            }
            Some(w) if w != v => {
                vars.insert(k.clone(), json!({"before": v, "after": w}));
            }
            Some(_) => {}
        }
    }
    for (k, w) in &vb {
        if !va.contains_key(k) {
            vars.insert(k.clone(), json!({"before": null, "after": w}));
        }
    }
    if !vars.is_empty() {
        d.insert("variables".into(), Json::Object(vars));
    }
    let (removed, added) = reports(a, b);
    if !removed.is_empty() || !added.is_empty() {
        d.insert(
            "reports".into(),
            json!({"added": added, "removed": removed}),
        );
    }
    let (oa, ob) = (outcomes(a), outcomes(b));
    let mut out = serde_json::Map::new();
    let keys: BTreeSet<&String> = oa.keys().chain(ob.keys()).collect();
    for k in keys {
        let (x, y) = (oa.get(k), ob.get(k));
        if x != y {
            out.insert(k.clone(), json!({"before": x, "after": y}));
        }
    }
    if !out.is_empty() {
        d.insert("outcomes".into(), Json::Object(out));
    }
    Json::Object(d)
}

/// The diff of every node: `(profile, node name, differences)`, in host order.
pub fn diff_nodes(
    pool: &rayon::ThreadPool,
    before: &Revision,
    after: &Revision,
    entry: &str,
    hosts: &[PathBuf],
) -> Vec<(String, String, Json)> {
    let load = |r: &Revision| {
        let e = r.root.join(entry);
        // absolute, so values hold the root one way only (and `$(root)` replaces it everywhere)
        (
            Policy::load(&e.to_string_lossy()).map_err(|f| f.stdout.trim_end().to_string()),
            e,
        )
    };
    let (pa, ea) = load(before);
    let (pb, eb) = load(after);
    pool.install(|| {
        hosts
            .par_iter()
            .map(|h| {
                let a = result(&pa, &ea, &before.root, h);
                let b = result(&pb, &eb, &after.root, h);
                let name = b["host"]
                    .as_str()
                    .or(a["host"].as_str())
                    .map_or_else(|| h.to_string_lossy().into_owned(), str::to_string);
                (h.to_string_lossy().into_owned(), name, node_diff(&a, &b))
            })
            .collect()
    })
}

/// Groups nodes with identical differences, in order of first appearance; nodes without any
/// difference are left out (the caller counts them).
pub fn group(nodes: &[(String, String, Json)]) -> Vec<(Vec<String>, Json)> {
    let mut groups: Vec<(Vec<String>, Json)> = Vec::new();
    for (_, name, d) in nodes {
        if d.as_object().is_some_and(serde_json::Map::is_empty) {
            continue;
        }
        match groups.iter_mut().find(|(_, g)| g == d) {
            Some((names, _)) => names.push(name.clone()),
            None => groups.push((vec![name.clone()], d.clone())),
        }
    }
    groups
}

fn brief(v: &Json) -> String {
    match v {
        Json::Null => "(unset)".to_string(),
        Json::String(s) => format!("{s:?}"),
        other => other.to_string(),
    }
}

/// Text report: the groups, then the count of nodes without change.
pub fn text(groups: &[(Vec<String>, Json)], unchanged: usize, total: usize) -> String {
    let changed: usize = groups.iter().map(|(n, _)| n.len()).sum();
    let mut s = format!("{changed} of {total} nodes change, {unchanged} unchanged\n");
    for (names, d) in groups {
        let count = names.len();
        s.push_str(&format!(
            "\n== {} ({count} node{})\n",
            names.join(", "),
            if count == 1 { "" } else { "s" }
        ));
        if let Some(e) = d.get("exit_code") {
            s.push_str(&format!("  exit code: {} -> {}\n", e["before"], e["after"]));
        }
        if let Some(c) = d.get("classes") {
            for x in c["removed"].as_array().into_iter().flatten() {
                s.push_str(&format!("  - class {}\n", x.as_str().unwrap_or("")));
            }
            for x in c["added"].as_array().into_iter().flatten() {
                s.push_str(&format!("  + class {}\n", x.as_str().unwrap_or("")));
            }
        }
        if let Some(Json::Object(vars)) = d.get("variables") {
            for (k, v) in vars {
                s.push_str(&format!(
                    "  ~ {k}: {} -> {}\n",
                    brief(&v["before"]),
                    brief(&v["after"])
                ));
            }
        }
        if let Some(r) = d.get("reports") {
            for x in r["removed"].as_array().into_iter().flatten() {
                s.push_str(&format!("  - R: {}\n", x.as_str().unwrap_or("")));
            }
            for x in r["added"].as_array().into_iter().flatten() {
                s.push_str(&format!("  + R: {}\n", x.as_str().unwrap_or("")));
            }
        }
        if let Some(Json::Object(o)) = d.get("outcomes") {
            for (k, v) in o {
                s.push_str(&format!(
                    "  ~ outcome of {k}: {} -> {}\n",
                    v["before"].as_str().unwrap_or("(not evaluated)"),
                    v["after"].as_str().unwrap_or("(not evaluated)")
                ));
            }
        }
    }
    s
}
