//! `cfsim graph`: loads and checks a policy as `cfsim promises` does (same messages and exit codes for
//! an invalid policy), pre-evaluates it for `--host` so that inputs given by variables are loaded, then
//! prints one graph (`--kind`, `--format`, focused with `--from`/`--depth`) on stdout and its lints on
//! stderr. Exit 0; 1 for an invalid policy, or any warning with `--deny-warnings`; 2 for a usage or
//! I/O error.

use std::io::Write;

use crate::graph::{self, lint, render, Kind};

#[derive(Debug, Clone)]
pub struct Options {
    pub file: String,
    pub kind: Kind,
    pub format: render::Format,
    pub from: Option<String>,
    pub depth: Option<usize>,
    pub deny_warnings: bool,
    /// Print the lints of every kind, not only those of the graph shown.
    pub all_lints: bool,
    /// Host profile for the pre-evaluation (`local` by default).
    pub host: String,
}

pub fn run(opts: &Options) -> u8 {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let code = run_to(opts, &mut out, &mut err);
    let _ = out.flush();
    code
}

fn run_to(opts: &Options, out: &mut impl Write, err: &mut impl Write) -> u8 {
    let files = match crate::cli::promises::load_checked(&opts.file, out, err) {
        Ok(f) => f,
        Err(code) => return code,
    };
    let host = match crate::host::load_host(&opts.host) {
        Ok(h) => h,
        Err(e) => {
            let _ = writeln!(out, "   error: {e}");
            return 2;
        }
    };
    let engine = match crate::sim::Policy::checked(&opts.file, files).into_engine(
        &host,
        crate::host::hard_classes::Component::Promises,
        &crate::eval::setup::ClassOptions::default(),
        crate::eval::output::LogLevel::Notice,
        crate::eval::RunOptions::default(),
    ) {
        Ok(e) => e,
        Err(f) => {
            // what `cfsim promises` prints when the pre-evaluation fails, and its code
            let _ = out.write_all(f.stdout.as_bytes());
            return f.code;
        }
    };
    // what the pre-evaluation logged (function errors…) goes to stderr: stdout is the graph
    let _ = err.write_all(engine.out.text().as_bytes());
    let model = graph::Model::from_engine(&engine);
    let full = graph::build(opts.kind, &model);
    let focused = match &opts.from {
        Some(from) => {
            let starts = graph::focus::start_nodes(&full, from);
            if starts.is_empty() {
                let _ = writeln!(
                    err,
                    "   error: no node '{from}' in the {} graph",
                    opts.kind.name()
                );
                return 2;
            }
            Some(graph::focus::focus(&full, &starts, opts.depth))
        }
        // --depth alone: from the graph's roots (the bundlesequence for calls)
        None => opts.depth.map(|d| {
            let starts: Vec<_> = match full.find(graph::calls::SEQUENCE) {
                Some(s) => vec![s],
                None => roots(&full),
            };
            graph::focus::focus(&full, &starts, Some(d))
        }),
    };
    let shown = focused.as_ref().unwrap_or(&full);
    let _ = out.write_all(render::render(shown, opts.format).as_bytes());
    // lints look at the whole policy, not at the focused part
    let mut warnings = lint::lint(&full);
    if opts.all_lints {
        for kind in Kind::ALL.into_iter().filter(|k| *k != opts.kind) {
            warnings.extend(lint::lint(&graph::build(kind, &model)));
        }
    }
    warnings.sort();
    for w in &warnings {
        let _ = writeln!(err, "{w}");
    }
    std::mem::forget(engine);
    if opts.deny_warnings && !warnings.is_empty() {
        1
    } else {
        0
    }
}

/// Nodes without incoming edges (in id order).
fn roots(g: &graph::PolicyGraph) -> Vec<petgraph::graph::NodeIndex> {
    g.sorted_nodes()
        .into_iter()
        .filter(|n| {
            g.g.neighbors_directed(*n, petgraph::Direction::Incoming)
                .next()
                .is_none()
        })
        .collect()
}
