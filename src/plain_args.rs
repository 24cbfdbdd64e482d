//! The plain command lines of `cfsim promises` and `cfsim agent` (a few common flags, each its own
//! word), read without clap: a small agent run or one file of a per-file sweep spent a seventh of its
//! instructions building and running clap's parser for ~50 options (and its 70 KB stack frame, 17 page
//! faults). Anything else (another flag, `--flag=value` forms but `--show-vars=`/`--show-classes=`, a
//! flag given twice, a value that starts with `-`, help, version) is left to clap, so what is accepted,
//! rejected and printed does not change; the tests compare both parsers on every flag this one takes,
//! and the defaults below with clap's.

use super::{AgentArgs, Cmd, PromisesArgs};

impl Default for PromisesArgs {
    /// What clap gives `cfsim promises` without options.
    fn default() -> PromisesArgs {
        PromisesArgs {
            file: "./promises.cf".into(),
            file_arg: None,
            syntax_description: None,
            version: false,
            verbose: false,
            debug: false,
            log_level: None,
            dry_run: false,
            eval_functions: None,
            workdir: None,
            diagnostic: false,
            warn: None,
            color: None,
            tag_release: None,
            timestamp: false,
            ignore_preferred_augments: false,
            log_modules: None,
            format: None,
            check_all: false,
            define: Vec::new(),
            negate: Vec::new(),
            bundlesequence: Vec::new(),
            inform: false,
            show_classes: None,
            show_vars: None,
            host: None,
            exec: false,
            allow_network: false,
        }
    }
}

impl Default for AgentArgs {
    /// What clap gives `cfsim agent` without options.
    fn default() -> AgentArgs {
        AgentArgs {
            file: "./promises.cf".into(),
            file_arg: None,
            no_lock: false,
            define: Vec::new(),
            negate: Vec::new(),
            bundlesequence: Vec::new(),
            inform: false,
            verbose: false,
            debug: false,
            dry_run: false,
            log_level: None,
            show_evaluated_classes: None,
            show_evaluated_vars: None,
            version: false,
            bootstrap: None,
            trust_server: None,
            skip_bootstrap_policy_run: false,
            workdir: None,
            self_diagnostics: None,
            timing_output: false,
            color: None,
            no_extensions: false,
            timestamp: false,
            ignore_preferred_augments: false,
            log_modules: None,
            skip_db_check: None,
            simulate: None,
            host: "local".into(),
            exec: false,
            allow_network: false,
            assume_commands: None,
            henc_module: Vec::new(),
            trace: None,
            trace_file: None,
            result_json: None,
            timeline: None,
            write_root: None,
            changes: None,
            changes_file: None,
            spill_dir: None,
            spill_above: "1M".into(),
            max_call_depth: 64,
            max_iterations: 100_000,
            max_value_bytes: 64 << 20,
            max_list_length: 1_000_000,
            max_bundle_calls: 100_000,
            max_total_values: cfsim::eval::DEFAULT_MAX_TOTAL_VALUES,
            module_timeout: cfsim::module::promise_module::DEFAULT_TIMEOUT_SECS,
        }
    }
}

/// One flag of a plain command line, set once at most.
struct Flags<'a> {
    words: std::slice::Iter<'a, std::ffi::OsString>,
    seen: Vec<&'static str>,
}

impl<'a> Flags<'a> {
    /// The next word (`None` at the end; `Some(None)` for a word that is not UTF-8).
    fn next(&mut self) -> Option<Option<&'a str>> {
        self.words.next().map(|w| w.to_str())
    }

    /// Marks `name` as given; `None` the second time.
    fn once(&mut self, name: &'static str) -> Option<()> {
        (!self.seen.contains(&name)).then(|| self.seen.push(name))
    }

    /// A flag without a value: `Some(true)` the first time, `None` (ask clap) the second.
    fn flag(&mut self, name: &'static str) -> Option<bool> {
        self.once(name).map(|()| true)
    }

    /// The value word after a flag (not one that looks like a flag).
    fn value(&mut self, name: &'static str) -> Option<String> {
        self.once(name)?;
        let v = self.next()??;
        (!v.starts_with('-')).then(|| v.to_string())
    }
}

/// `promises`/`agent` parsed by hand when every word is one of the plain flags (`None`: ask clap).
pub fn plain_subcommand(args: &[std::ffi::OsString]) -> Option<Cmd> {
    let name = args.get(1)?.to_str()?;
    let mut f = Flags {
        words: args.get(2..)?.iter(),
        seen: Vec::new(),
    };
    match name {
        "promises" => {
            let mut a = PromisesArgs::default();
            while let Some(word) = f.next() {
                match word? {
                    "-f" | "--file" => a.file = f.value("file")?,
                    "-p" | "--policy-output-format" => a.format = Some(f.value("format")?),
                    "--host" => a.host = Some(f.value("host")?),
                    "-c" | "--full-check" => a.check_all = f.flag("check")?,
                    "-I" | "--inform" => a.inform = f.flag("inform")?,
                    "--exec" => a.exec = f.flag("exec")?,
                    "--allow-network" => a.allow_network = f.flag("allow-network")?,
                    w => {
                        if let Some(re) = w.strip_prefix("--show-vars") {
                            f.once("show-vars")?;
                            a.show_vars = Some(equals_value(re)?);
                        } else if let Some(re) = w.strip_prefix("--show-classes") {
                            f.once("show-classes")?;
                            a.show_classes = Some(equals_value(re)?);
                        } else {
                            a.file_arg = Some(positional(&mut f, w)?);
                        }
                    }
                }
            }
            Some(Cmd::Promises(a))
        }
        "agent" => {
            let mut a = AgentArgs::default();
            while let Some(word) = f.next() {
                match word? {
                    "-f" | "--file" => a.file = f.value("file")?,
                    "--host" => a.host = f.value("host")?,
                    "-K" | "--no-lock" => a.no_lock = f.flag("no-lock")?,
                    "-I" | "--inform" => a.inform = f.flag("inform")?,
                    "-n" | "--dry-run" => a.dry_run = f.flag("dry-run")?,
                    "--exec" => a.exec = f.flag("exec")?,
                    "--allow-network" => a.allow_network = f.flag("allow-network")?,
                    w => a.file_arg = Some(positional(&mut f, w)?),
                }
            }
            Some(Cmd::Agent(Box::new(a)))
        }
        _ => None,
    }
}

/// The value of `--show-vars`/`--show-classes` from the rest of the word: nothing (all) or `=RE`.
fn equals_value(rest: &str) -> Option<String> {
    if rest.is_empty() {
        return Some(String::new());
    }
    rest.strip_prefix('=').map(str::to_string)
}

/// The policy file given as a word of its own (once; not a flag).
fn positional(f: &mut Flags<'_>, word: &str) -> Option<String> {
    if word.is_empty() || word.starts_with('-') {
        return None;
    }
    f.once("FILE")?;
    Some(word.to_string())
}
