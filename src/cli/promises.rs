//! `cfsim promises`: cf-promises' checks and policy output (`-p json|cf|none`), same verdicts and exit codes
//! (0 valid, 1 invalid policy, 2 usage or I/O error).

use std::io::Write;

use crate::load::{load_one, load_with_inputs, Loaded};
use crate::syntax::{check, json, print};

/// Policy output format of `-p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputFormat {
    None,
    Cf,
    Json,
    CfFull,
    JsonFull,
}

impl OutputFormat {
    pub fn parse(s: &str) -> Option<OutputFormat> {
        Some(match s {
            "none" => OutputFormat::None,
            "cf" => OutputFormat::Cf,
            "json" => OutputFormat::Json,
            "cf-full" => OutputFormat::CfFull,
            "json-full" => OutputFormat::JsonFull,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Default)]
pub struct Options {
    pub file: String,
    pub format: Option<OutputFormat>,
    /// `--show-classes[=RE]` (`Some("")` = all): pre-evaluated classes table.
    pub show_classes: Option<String>,
    /// `--show-vars[=RE]`: pre-evaluated variables table.
    pub show_vars: Option<String>,
    /// `--host FILE|local` (default local).
    pub host: Option<String>,
    pub define: Vec<String>,
    pub negate: Vec<String>,
    /// `--exec`: functions may run commands (cfsim never runs them otherwise).
    pub exec: bool,
    /// `--allow-network`: names may be resolved with DNS (`--exec` implies it).
    pub allow_network: bool,
    /// `-c`: the full checks of a runnable policy, and the bundlesequence verified.
    pub check_runnable: bool,
    /// `-b` given: the full checks are skipped.
    pub dash_b: bool,
}

/// Log line in cf-promises' format (level right-aligned in 8 columns).
fn log_error(out: &mut impl Write, msg: &str) {
    let _ = writeln!(out, "   error: {msg}");
}

pub fn run(opts: &Options) -> u8 {
    let spec = opts.host.as_deref().unwrap_or("local");
    // the host (local discovery or a profile) is read once the policy is loaded and checked, so that
    // its error, if any, is reported after the checks' messages. (It was read on a second thread
    // meanwhile: measured, the thread and its allocator heap cost more CPU, page faults and even wall
    // time than the overlap saved — `promises -p json` of lib/common.cf 331 vs 394 page faults.)
    run_with(opts, || crate::host::load_host(spec))
}

/// [`run`] with the host read by `host` (called once the policy is loaded and checked).
fn run_with(
    opts: &Options,
    host: impl FnOnce() -> Result<crate::host::Host, crate::host::HostError>,
) -> u8 {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    let files = match load_checked(&opts.file, &mut out, &mut err) {
        Ok(f) => f,
        Err(code) => {
            let _ = out.flush();
            return code;
        }
    };
    // `-p` output is rendered now, because the loaded files move into the pre-evaluation (not loaded and
    // checked a second time), and printed after what the pre-evaluation logs
    let entry: Option<&Loaded> = files.first();
    let formatted = match (opts.format, entry) {
        (Some(OutputFormat::Json), Some(l)) => json::policy_to_json_text(&l.policy, &l.file.lines),
        (Some(OutputFormat::JsonFull), _) => {
            let all: Vec<_> = files.iter().map(|l| (&l.policy, &l.file.lines)).collect();
            json::policies_to_json_text(&all)
        }
        (Some(OutputFormat::Cf), Some(l)) => print::policy_to_cf(&l.policy),
        (Some(OutputFormat::CfFull), _) => files
            .iter()
            .map(|l| print::policy_to_cf(&l.policy))
            .collect(),
        _ => String::new(),
    };
    // cf-promises pre-evaluates the policy (PolicyResolve rounds) before any output: the errors its
    // function calls log come first
    let host = match host() {
        Ok(h) => h,
        Err(e) => {
            log_error(&mut out, &e.to_string());
            let _ = out.flush();
            return 2;
        }
    };
    let engine = match pre_evaluate(opts, &host, files) {
        Ok(e) => e,
        Err((stderr, text, code)) => {
            let _ = err.write_all(stderr.as_bytes());
            let _ = out.write_all(text.as_bytes());
            let _ = out.flush();
            return code;
        }
    };
    let _ = out.write_all(engine.out.text().as_bytes());
    let _ = out.write_all(formatted.as_bytes());
    let code = if opts.show_classes.is_some() || opts.show_vars.is_some() {
        show_tables(opts, &engine, &mut out)
    } else {
        0
    };
    let _ = out.flush();
    // the process ends right after: freeing the whole policy and context item by item costs more than
    // the rest of the output (the memory goes back to the system at exit)
    std::mem::forget(engine);
    std::mem::forget(host);
    code
}

/// Loads `file` with its literal inputs and runs cf-promises' checks, printing their messages as
/// cf-promises does (diagnostics on `err`, log lines on `out`). `Err` is the exit code: 1 for an invalid
/// policy or a file that cannot be read (as cf-promises), 2 past cfsim's limit on the number of files. Every front end that reads a policy as `cfsim promises`
/// does (`cfsim graph`) goes through here.
pub fn load_checked(
    file: &str,
    out: &mut impl Write,
    err: &mut impl Write,
) -> Result<Vec<Loaded>, u8> {
    let files = match load_with_inputs(file) {
        Ok(f) => f,
        Err(e) => {
            log_error(out, &e.to_string());
            // cf-promises exits 1 for a file it cannot read; 2 is cfsim's limit on the number of files
            return Err(match e {
                crate::load::LoadError::Stat { .. } => 1,
                crate::load::LoadError::TooManyFiles => 2,
            });
        }
    };
    let report = crate::load::check_all(&files);
    let mut errors = 0usize;
    // Where cf-promises stopped with "Too many errors": logs of later constraints are never printed
    // (those of the constraint that hit the limit are, as recorded in checks/too_many_errors).
    let mut stopped_at: Option<(usize, u32)> = None;
    for (n, (i, d)) in report.diags.iter().enumerate() {
        let Some(l) = files.get(*i) else { continue };
        let _ = err.write_all(d.render(&l.file).as_bytes());
        if d.fatal {
            return Err(1);
        }
        if d.severity == crate::diag::Severity::Error && n < report.parse_time {
            errors += 1;
            if errors > check::MAX_ERRORS {
                let _ = writeln!(err, "{}", check::TOO_MANY_ERRORS);
                stopped_at = Some((*i, d.offset));
                break;
            }
        }
    }
    for (i, off, line) in &report.log {
        if stopped_at.is_some_and(|(si, so)| (*i, *off) > (si, so)) {
            continue;
        }
        log_error(out, line);
    }
    if stopped_at.is_some() {
        return Err(1);
    }
    if report.has_errors() {
        log_error(out, check::SYNTAX_ERRORS_SUMMARY);
        return Err(1);
    }
    Ok(files)
}

/// Pre-evaluates like cf-promises (with the `--host`, `-D` and `-N` of the command line); `Err` is the
/// printed output and exit code of a failure.
fn pre_evaluate<'h>(
    opts: &Options,
    host: &'h crate::host::Host,
    files: Vec<Loaded>,
) -> Result<crate::eval::Engine<'h>, (String, String, u8)> {
    let classes = crate::eval::setup::ClassOptions {
        define: opts.define.clone(),
        negate: opts.negate.clone(),
        ..Default::default()
    };
    let policy = crate::sim::Policy::checked(&opts.file, files);
    let facts = crate::eval::setup::HostFacts::new(host, policy.entry());
    let engine = policy
        .engine_with_facts(
            host,
            &facts,
            crate::host::hard_classes::Component::Promises,
            &classes,
            crate::eval::output::LogLevel::Notice,
            crate::eval::RunOptions {
                exec: opts.exec,
                allow_network: opts.allow_network,
                validation: Some(crate::syntax::runnable::Mode {
                    check_runnable: opts.check_runnable,
                    dash_b: opts.dash_b,
                }),
                ..crate::eval::RunOptions::default()
            },
        )
        .map_err(|f| (f.stderr, f.stdout, f.code));
    // the process ends after the output: freeing the policy and the host's facts item by item only
    // costs time (~45,000 instructions, 4% of a small file's run)
    std::mem::forget(facts);
    std::mem::forget(policy);
    engine
}

/// Prints the `--show-classes` / `--show-vars` tables of the pre-evaluated policy.
fn show_tables(opts: &Options, e: &crate::eval::Engine<'_>, out: &mut impl Write) -> u8 {
    use crate::eval::render;
    let (cre, vre) = match (
        render::filter(opts.show_classes.as_deref()),
        render::filter(opts.show_vars.as_deref()),
    ) {
        (Ok(c), Ok(v)) => (c, v),
        (Err(e), _) | (_, Err(e)) => {
            log_error(out, &e);
            return 2;
        }
    };
    if opts.show_classes.is_some() {
        let _ = out.write_all(render::classes_table(&e.ctx, cre.as_ref()).as_bytes());
    }
    if opts.show_vars.is_some() {
        let _ = out.write_all(render::vars_table(&e.ctx, vre.as_ref()).as_bytes());
    }
    0
}

/// Parse a single file without following inputs (used by tests and benchmarks).
pub fn check_single(path: &str) -> Result<Loaded, crate::load::LoadError> {
    load_one(path)
}
