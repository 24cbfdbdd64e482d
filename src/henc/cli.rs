//! Front ends of `cfsim henc` and `cfsim enc`: read through [`FsReader`], write stdout/stderr, return the
//! exit code. `cfsim henc` without `--explain`/`--lint` is a drop-in for the hENC Perl module: same lines,
//! documented order, exit 0 whatever the inputs (missing files are skipped silently).

use std::io::Write;
use std::process::ExitCode;

use super::enc::{self, EncConfig, EncError};
use super::{explain, lint, load, merge, FsReader};

/// Default ENC config path when neither `--config` nor `$CFSIM_ENC_CONFIG` is given.
pub const DEFAULT_ENC_CONFIG: &str = "/etc/cfsim/enc.json";

fn write_out(bytes: &[u8]) -> ExitCode {
    let stdout = std::io::stdout();
    let mut lock = stdout.lock();
    match lock.write_all(bytes).and_then(|()| lock.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        // A closed pipe (`cfsim henc … | head`) is not an error of the merge.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("cfsim henc: cannot write output: {e}");
            ExitCode::from(2)
        }
    }
}

/// `cfsim henc [--explain|--lint] [FILE...]`; no FILE reads standard input, like Perl's `<>`.
pub fn henc(files: &[String], explain_mode: bool, lint_mode: bool) -> ExitCode {
    let names: Vec<String> = if files.is_empty() {
        vec!["-".to_string()]
    } else {
        files.to_vec()
    };
    // inputs are read here, bounded, so that an oversized one is an error rather than a skipped file
    let mut mem = super::MemReader::new();
    for n in &names {
        match super::read_bounded(n) {
            Ok(bytes) => {
                mem.files.insert(n.clone(), bytes);
            }
            Err(super::ReadError::TooLarge) => {
                let what = if n == "-" {
                    "standard input"
                } else {
                    n.as_str()
                };
                eprintln!(
                    "cfsim henc: {what}: larger than {} MiB; not an ENC file",
                    super::MAX_ENC_BYTES >> 20
                );
                return ExitCode::from(2);
            }
            // missing files are skipped, as the hENC module skips them
            Err(super::ReadError::Unreadable) => {}
        }
    }
    let sources = load(&names, &mem);
    if lint_mode {
        let findings = lint::lint(&sources);
        let mut text = String::new();
        for f in &findings {
            text.push_str(&f.render());
            text.push('\n');
        }
        let code = write_out(text.as_bytes());
        return if findings.is_empty() {
            code
        } else {
            ExitCode::from(1)
        };
    }
    if explain_mode {
        let merged = merge::merge(&sources, true);
        return write_out(explain::explain(&sources, &merged).as_bytes());
    }
    write_out(&merge::merge(&sources, false).render())
}

/// Whether `node` is a host name Puppet could pass: labels of letters, digits, `-` and `_`, separated
/// by dots, at most 253 bytes; never a path (`/`, `..`) that could read outside the ENC tree.
pub fn valid_node_name(node: &str) -> bool {
    !node.is_empty()
        && node.len() <= 253
        && node.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
}

/// `cfsim enc NODE [--config FILE]`.
pub fn enc(node: &str, config: Option<&str>) -> ExitCode {
    if !valid_node_name(node) {
        eprintln!(
            "cfsim enc: `{node}` is not a node name (letters, digits, '-', '_' and dots; no '/' or '..')"
        );
        return ExitCode::from(2);
    }
    let path = config
        .map(str::to_string)
        .or_else(|| std::env::var("CFSIM_ENC_CONFIG").ok())
        .unwrap_or_else(|| DEFAULT_ENC_CONFIG.to_string());
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cfsim enc: cannot read config `{path}`: {e}");
            return ExitCode::from(2);
        }
    };
    let dir = std::path::Path::new(&path)
        .parent()
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    let result = EncConfig::parse(&text)
        .map(|cfg| cfg.relative_to(&dir))
        .and_then(|cfg| enc::classify(node, &cfg, &FsReader));
    match result {
        Ok(answer) => {
            for w in &answer.warnings {
                eprintln!("cfsim enc: warning: {w}");
            }
            write_out(answer.to_yaml().as_bytes())
        }
        Err(e) => {
            if let EncError::UnknownNode { warnings, .. } = &e {
                for w in warnings {
                    eprintln!("cfsim enc: warning: {w}");
                }
            }
            eprintln!("cfsim enc: {e}");
            ExitCode::from(1)
        }
    }
}
