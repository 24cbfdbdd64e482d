//! `cfsim test --coverage`: for every promise of the policies a suite runs (read from their ASTs), on
//! how many hosts it was reached, whether its class guard was ever true, and what it did (kept,
//! repaired, …), summed over every case; as JSON (`version` 1) and as text with per-file percentages.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{json, Value as Json};

use super::run::CaseResult;
use crate::sim::Policy;

/// One promise of the policy as written, with what the suite's runs did with it.
#[derive(Debug, Clone, Default)]
struct Site {
    line: usize,
    bundle: String,
    promise_type: String,
    promiser: String,
    guard: String,
    hosts_reached: usize,
    hosts_guard_true: usize,
    kept: u64,
    repaired: u64,
    not_kept: u64,
    not_simulated: u64,
    skipped: u64,
}

impl Site {
    /// never_reached, guard_never_true, skipped, or the worst actuation.
    fn status(&self) -> &'static str {
        if self.hosts_reached == 0 {
            "never_reached"
        } else if self.hosts_guard_true == 0 {
            "guard_never_true"
        } else if self.not_kept > 0 {
            "not_kept"
        } else if self.repaired > 0 {
            "repaired"
        } else if self.kept > 0 {
            "kept"
        } else if self.not_simulated > 0 {
            "not_simulated"
        } else {
            "skipped"
        }
    }

    /// Acted on (kept, repaired, failed or not simulated) on at least one host.
    fn actuated(&self) -> bool {
        self.kept + self.repaired + self.not_kept + self.not_simulated > 0
    }
}

/// The promises of every file of `policy`, keyed by (file, line, promise type), in file order.
fn sites(policy: &Policy, out: &mut BTreeMap<String, BTreeMap<(usize, String), Site>>) {
    for loaded in policy.files() {
        let file = out.entry(loaded.file.path.clone()).or_default();
        for b in &loaded.policy.bundles {
            for s in &b.sections {
                for p in &s.promises {
                    let line = loaded.file.lines.line(p.promiser.span.start);
                    file.entry((line, s.promise_type.clone()))
                        .or_insert_with(|| Site {
                            line,
                            bundle: format!("{}:{}", b.namespace, b.name),
                            promise_type: s.promise_type.clone(),
                            promiser: p.promiser.value.clone(),
                            guard: condition(p),
                            ..Site::default()
                        });
                }
            }
        }
    }
}

/// The promise's conditions as written: its class guard, `if`/`ifvarclass`, `unless`.
fn condition(p: &crate::syntax::ast::Promise) -> String {
    let mut parts = Vec::new();
    if p.guard.expr != "any" {
        parts.push(format!("{}::", p.guard.expr));
    }
    for c in &p.constraints {
        if matches!(c.lval.as_str(), "if" | "ifvarclass" | "unless") {
            parts.push(format!(
                "{} => {}",
                c.lval,
                crate::syntax::print::rval_to_cf(&c.rval)
            ));
        }
    }
    if parts.is_empty() {
        "any".to_string()
    } else {
        parts.join(" ")
    }
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        (part as f64 * 1000.0 / whole as f64).round() / 10.0
    }
}

/// Coverage of the suite's policies by its results, as JSON.
pub fn compute(
    results: &[CaseResult],
    policies: &BTreeMap<PathBuf, Result<Policy, String>>,
) -> Json {
    let mut files: BTreeMap<String, BTreeMap<(usize, String), Site>> = BTreeMap::new();
    for p in policies.values().flatten() {
        sites(p, &mut files);
    }
    for r in results {
        let Some(promises) = r.result.as_ref().and_then(|v| v["promises"].as_array()) else {
            continue;
        };
        for p in promises {
            let (Some(file), Some(line), Some(t)) = (
                p["file"].as_str(),
                p["line"].as_u64(),
                p["promise_type"].as_str(),
            ) else {
                continue;
            };
            let Some(site) = files
                .get_mut(file)
                .and_then(|f| f.get_mut(&(line as usize, t.to_string())))
            else {
                continue;
            };
            let n = |k: &str| p[k].as_u64().unwrap_or(0);
            site.hosts_reached += usize::from(n("evaluations") > 0);
            site.hosts_guard_true += usize::from(n("guard_true") > 0);
            site.kept += n("kept");
            site.repaired += n("repaired");
            site.not_kept += n("not_kept");
            site.not_simulated += n("not_simulated");
            site.skipped += n("skipped");
        }
    }
    let mut totals = [0usize; 5]; // promises, reached, actuated, repaired, guard never true
    let mut out_files = Vec::new();
    for (file, sites) in &files {
        let count = |f: &dyn Fn(&Site) -> bool| sites.values().filter(|s| f(s)).count();
        let n = sites.len();
        let reached = count(&|s| s.hosts_reached > 0);
        let actuated = count(&|s| s.actuated());
        let repaired = count(&|s| s.repaired > 0);
        let never_true = count(&|s| s.status() == "guard_never_true");
        for (t, v) in totals
            .iter_mut()
            .zip([n, reached, actuated, repaired, never_true])
        {
            *t += v;
        }
        let promises: Vec<Json> = sites
            .values()
            .map(|s| {
                json!({
                    "line": s.line,
                    "bundle": s.bundle,
                    "promise_type": s.promise_type,
                    "promiser": s.promiser,
                    "guard": s.guard,
                    "status": s.status(),
                    "hosts_reached": s.hosts_reached,
                    "hosts_guard_true": s.hosts_guard_true,
                    "kept": s.kept,
                    "repaired": s.repaired,
                    "not_kept": s.not_kept,
                    "not_simulated": s.not_simulated,
                    "skipped": s.skipped,
                })
            })
            .collect();
        out_files.push(json!({
            "file": file,
            "promises": n,
            "reached": reached,
            "actuated": actuated,
            "repaired": repaired,
            "never_reached": n - reached,
            "guards_never_true": never_true,
            "percent": percent(actuated, n),
            "sites": promises,
        }));
    }
    let [n, reached, actuated, repaired, never_true] = totals;
    json!({
        "version": 1,
        "cases": results.len(),
        "promises": n,
        "reached": reached,
        "actuated": actuated,
        "repaired": repaired,
        "never_reached": n - reached,
        "guards_never_true": never_true,
        "percent": percent(actuated, n),
        "files": out_files,
    })
}

/// Consecutive line numbers written as ranges: `3, 7-9`.
fn ranges(lines: &[u64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let mut j = i;
        while j + 1 < lines.len() && lines[j + 1] <= lines[j] + 1 {
            j += 1;
        }
        parts.push(if j == i {
            lines[i].to_string()
        } else {
            format!("{}-{}", lines[i], lines[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// The coverage as text: totals, then per file its percentage, the lines never reached (by bundle)
/// and the promises whose guard was never true.
pub fn text(c: &Json) -> String {
    let mut s = format!(
        "coverage over {} cases: {} of {} promises acted on ({}%), {} repaired, {} never reached, {} guards never true\n",
        c["cases"], c["actuated"], c["promises"], c["percent"], c["repaired"], c["never_reached"],
        c["guards_never_true"]
    );
    for f in c["files"].as_array().into_iter().flatten() {
        s.push_str(&format!(
            "  {}  {}/{}  {}%\n",
            f["file"].as_str().unwrap_or(""),
            f["actuated"],
            f["promises"],
            f["percent"]
        ));
        let sites = f["sites"].as_array().cloned().unwrap_or_default();
        let mut unreached: Vec<(String, Vec<u64>)> = Vec::new();
        for x in sites.iter().filter(|x| x["status"] == "never_reached") {
            let b = x["bundle"].as_str().unwrap_or("").to_string();
            let line = x["line"].as_u64().unwrap_or(0);
            match unreached.iter_mut().find(|(n, _)| *n == b) {
                Some((_, v)) => v.push(line),
                None => unreached.push((b, vec![line])),
            }
        }
        for (b, lines) in unreached {
            s.push_str(&format!(
                "    never reached: {} (bundle {b})\n",
                ranges(&lines)
            ));
        }
        for x in sites.iter().filter(|x| x["status"] == "guard_never_true") {
            s.push_str(&format!(
                "    guard never true: {} {} {} {} (reached in {} case{})\n",
                x["line"],
                x["promise_type"].as_str().unwrap_or(""),
                Json::String(x["promiser"].as_str().unwrap_or("").to_string()),
                x["guard"].as_str().unwrap_or(""),
                x["hosts_reached"],
                if x["hosts_reached"] == 1 { "" } else { "s" }
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges() {
        assert_eq!(ranges(&[3, 7, 8, 9, 12]), "3, 7-9, 12");
        assert_eq!(ranges(&[]), "");
        assert_eq!(percent(2, 3), 66.7);
        assert_eq!(percent(0, 0), 100.0);
    }
}
