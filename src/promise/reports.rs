//! `reports:` promises: `R: <text>` once per identity; text still holding `$(…)` waits for pass 3 and is
//! then printed literally; `bundle_return_value_index` stores the text for the caller's `useresult`.

use crate::eval::{BundleDef, Engine, Outcome};
use crate::expr::expand::has_reference;
use crate::syntax::ast::Promise;

/// Evaluates one reports promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str, _unres: bool) {
    // text still holding `$(`, `${`, `@(` or `@{` waits for pass 3 (recorded: policies/agent/deferral_at)
    let unexpanded = has_reference(promiser) || promiser.contains("@(") || promiser.contains("@{");
    if unexpanded && e.pass < 3 {
        e.end_event(Some("deferred"), None);
        return;
    }
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    if let Some(rv) = Engine::constraint(p, "bundle_return_value_index") {
        // a return value is stored before any lock or banner, in every pass, and is not audited:
        // only `A: Promise was KEPT` / `P: END` show it (recorded: methods/useresult)
        let k = e.scalar_of(rv).unwrap_or_default();
        e.ctx.set_var(
            (
                def.ns.clone(),
                def.name.clone(),
                format!("last-result[{k}]"),
            ),
            crate::value::Value::str(promiser),
            vec!["source=bundle".into()],
        );
        if let Some(r) = e.results.last_mut() {
            match r.iter_mut().find(|(key, _)| *key == k) {
                Some(slot) => slot.1 = promiser.to_string(),
                None => r.push((k, promiser.to_string())),
            }
        }
        if e.stage == "pass" {
            e.verbose_promise_end("reports", promiser, Outcome::Kept);
        }
        e.end_event(None, Some(Outcome::Kept));
        return;
    }
    // in an edit_line bundle the edit pass announces the promise every pass, and the report
    // announces itself once more when it prints; no end lines follow (recorded:
    // files/edit-order/verbose.out)
    let in_edit = e.edit.is_some();
    if in_edit {
        e.verbose_promise_begin(def, "reports", p, promiser);
    }
    let digest = e.digest(def, "reports", p, promiser);
    if !e.done.insert(digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    e.verbose_promise_begin(def, "reports", p, promiser);
    // `-n` or a warn-only action: a report that would need repair, not kept (recorded)
    let warn = e.warn_only(def, p);
    if warn {
        e.log(
            crate::eval::output::LogLevel::Warning,
            &format!("Need to repair reports promise: {promiser}"),
        );
    } else if let Some(rv) = Engine::constraint(p, "report_to_file") {
        // Simulation never writes: a missing directory gives the agent's error, otherwise an info line.
        let file = e.scalar_of(rv).unwrap_or_default();
        let dir = file.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        let dir_ok = {
            use crate::expr::host::HostEnv;
            dir.is_empty() || e.host.stat(&dir, true).is_some_and(|s| s.is_dir)
        };
        if dir_ok {
            e.log(
                crate::eval::output::LogLevel::Info,
                &format!(
                    "cfsim: would append '{promiser}' to '{file}' (simulated; nothing written)"
                ),
            );
        } else {
            e.log(
                crate::eval::output::LogLevel::Error,
                &format!("Could not open log file '{file}', message '{promiser}'. (fopen: No such file or directory)"),
            );
        }
    } else {
        e.out.raw(format!("R: {promiser}"));
        print_file(e, def, p);
    }
    let outcome = if warn { Outcome::Failed } else { Outcome::Kept };
    e.record_outcome(def, p, outcome);
    if in_edit {
        // the edit bundle's own counts are dropped, but the agent counts a report in it like any
        // other promise of the calling bundle (recorded: files/edit-order/verbose.out)
        let n = e.counts.len();
        if let Some(c) = n.checked_sub(2).and_then(|i| e.counts.get_mut(i)) {
            match outcome {
                Outcome::Kept => c.kept += 1,
                Outcome::Repaired => c.repaired += 1,
                Outcome::Failed => c.notkept += 1,
            }
        }
    }
    if !in_edit {
        e.verbose_promise_end("reports", promiser, outcome);
    }
    e.end_event(None, Some(Outcome::Kept));
}

/// `printfile => body`: the first `number_of_lines` lines of `file_to_print` (read from the host), each
/// as an `R:` line; a negative count prints the last lines, 0 none (recorded:
/// policies/eval/thirdparty/printfile_negative).
fn print_file(e: &mut Engine<'_>, def: &BundleDef, p: &Promise) {
    use crate::expr::host::HostEnv;
    if Engine::constraint(p, "printfile").is_none() {
        return;
    }
    let attrs = e.body_attrs(def, p, "printfile", "printfile");
    let mut file = None;
    let mut n = 5i64;
    for (l, rv) in &attrs {
        match l.as_str() {
            "file_to_print" => file = e.scalar_of(rv),
            "number_of_lines" => {
                n = e
                    .scalar_of(rv)
                    .and_then(|s| s.trim().parse().ok())
                    .unwrap_or(n)
            }
            _ => {}
        }
    }
    let Some(file) = file else {
        return;
    };
    match e.host.read_file(&file) {
        Some(bytes) => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let lines: Vec<&str> = text.lines().collect();
            let count = usize::try_from(n.unsigned_abs()).unwrap_or(usize::MAX);
            let shown = if n >= 0 {
                lines.get(..count.min(lines.len())).unwrap_or_default()
            } else {
                lines
                    .get(lines.len().saturating_sub(count)..)
                    .unwrap_or_default()
            };
            for line in shown {
                e.out.raw(format!("R: {line}"));
            }
        }
        None => e.log(
            crate::eval::output::LogLevel::Error,
            &format!("Printfile: Could not open file '{file}'"),
        ),
    }
}
