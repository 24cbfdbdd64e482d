//! The `cfsim` binary: thin clap front end; each subcommand calls one library function.

use std::process::ExitCode;

use cfsim::cli;
use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "cfsim", version, about = "Simulate CFEngine 3.21 agent runs")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Check a policy and print it, as cf-promises does.
    Promises(PromisesArgs),
    /// Simulate a cf-agent run.
    Agent(AgentArgs),
    /// Run policy tests: *.cfsim.yaml specs and acceptance-style .cf policies (exit 0 pass, 1 fail, 2 invalid)
    Test {
        /// Spec files, acceptance .cf files, or directories searched for *.cfsim.yaml (default .)
        paths: Vec<String>,
        /// human, tap, junit or json
        #[arg(long = "format", default_value = "human", value_parser = ["human", "tap", "junit", "json"])]
        format: String,
        /// Worker threads (default: one per core)
        #[arg(short = 'j', long = "jobs")]
        jobs: Option<usize>,
        /// Only the cases whose "SPEC: NAME [HOST]" matches this regex
        #[arg(long = "filter", value_name = "RE")]
        filter: Option<String>,
        /// Take only shard K of N (1-based) of the sorted cases
        #[arg(long = "shard", value_name = "K/N")]
        shard: Option<String>,
        /// Host profile for acceptance-style .cf tests (default: this machine)
        #[arg(long = "host", default_value = "local")]
        host: String,
        /// Compare each case's run with its insta-format snapshot (snapshots/<spec>__<test>__<host>.snap
        /// next to the spec); a difference is written as .snap.new and fails (INSTA_UPDATE is honoured)
        #[arg(long = "snapshot")]
        snapshot: bool,
        /// Write every new or changed snapshot as accepted (implies --snapshot)
        #[arg(long = "accept")]
        accept: bool,
        /// Report which promises were acted on, repaired, never reached, and whose guards were never
        /// true, over every case (text after the human report; a "coverage" key with --format json)
        #[arg(long = "coverage")]
        coverage: bool,
        /// Also write the coverage as JSON to PATH (implies --coverage)
        #[arg(long = "coverage-json", value_name = "PATH")]
        coverage_json: Option<String>,
    },
    /// What changes on each node between two revisions of a policy (exit 0 none, 2 changes, 1 failure)
    Diff {
        /// The old revision: a directory or git:REF
        #[arg(long = "before")]
        before: String,
        /// The new revision: a directory or git:REF
        #[arg(long = "after")]
        after: String,
        /// Entry policy, relative to each revision's root
        #[arg(short = 'f', long = "file")]
        file: String,
        /// Host profiles: directories, quoted globs or files
        #[arg(long = "hosts", required = true, num_args = 1..)]
        hosts: Vec<String>,
        /// text or json
        #[arg(long = "format", default_value = "text", value_parser = ["text", "json"])]
        format: String,
        #[arg(short = 'j', long = "jobs")]
        jobs: Option<usize>,
        /// Take only shard K of N (1-based) of the sorted hosts
        #[arg(long = "shard", value_name = "K/N")]
        shard: Option<String>,
    },
    /// Simulate one policy for many host profiles in parallel: a summary per node, or JSON lines
    Fleet(FleetArgs),
    /// Graphs of a policy (bundle calls, classes, depends_on, bodies) as DOT, mermaid or JSON, with lints
    Graph(GraphArgs),
    /// Host profiles: `cfsim host generate` makes synthetic fleets
    #[command(subcommand)]
    Host(HostCmd),
    /// List the 186 built-in functions of CFEngine 3.21 with implemented / not implemented
    Functions,
    /// Merge hENC files like the hENC Perl module (install as modules/henc); no FILE reads stdin
    Henc {
        /// For every class and variable: the file:line that decided it and the lines it overrode
        #[arg(long, conflicts_with = "lint")]
        explain: bool,
        /// Report hENC pitfalls as file:line warnings (exit 1 when any)
        #[arg(long)]
        lint: bool,
        /// ENC files, most general first (later files win)
        files: Vec<String>,
    },
    /// Puppet external node classifier built on the hENC merge (exit 1 for an unknown node)
    Enc {
        /// Config file (JSON); default $CFSIM_ENC_CONFIG, then /etc/cfsim/enc.json
        #[arg(long)]
        config: Option<String>,
        /// The node name Puppet passes
        node: String,
    },
}

#[derive(clap::Args)]
struct PromisesArgs {
    /// Entry policy file.
    #[arg(short = 'f', long = "file", default_value = "./promises.cf")]
    file: String,
    /// Print the policy: none, cf, json, cf-full, json-full.
    #[arg(short = 'p', long = "policy-output-format")]
    format: Option<String>,
    /// Full check (accepted for compatibility; checks are always full).
    #[arg(short = 'c', long = "check-all")]
    check_all: bool,
    /// Define classes (accepted; used by pre-evaluation).
    #[arg(short = 'D', long = "define", value_delimiter = ',')]
    define: Vec<String>,
    /// Negate persistent classes (accepted).
    #[arg(short = 'N', long = "negate", value_delimiter = ',')]
    negate: Vec<String>,
    /// Bundlesequence override (accepted).
    #[arg(short = 'b', long = "bundlesequence")]
    bundlesequence: Option<String>,
    /// Inform output.
    #[arg(short = 'I', long = "inform")]
    inform: bool,
    /// Print the pre-evaluated classes (optionally only names matching the regex).
    #[arg(long = "show-classes", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    show_classes: Option<String>,
    /// Print the pre-evaluated variables (optionally only names matching the regex).
    #[arg(long = "show-vars", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    show_vars: Option<String>,
    /// Host profile JSON file, or `local` (default).
    #[arg(long = "host")]
    host: Option<String>,
    /// Let functions run commands (execresult, returnszero, …) as cf-promises does; without it they fail.
    #[arg(long = "exec")]
    exec: bool,
    /// Let host2ip() and other name lookups use DNS (with --host local); otherwise the host's /etc/hosts answers.
    #[arg(long = "allow-network")]
    allow_network: bool,
}

#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
struct FleetArgs {
    #[command(subcommand)]
    sub: Option<FleetSub>,
    /// Entry policy file (loaded and checked once for every host).
    #[arg(short = 'f', long = "file", required = true)]
    file: Option<String>,
    /// Host profiles: a directory (its *.json), a quoted glob ('hosts/*.json') or files; repeatable.
    #[arg(long = "hosts", required = true, num_args = 1..)]
    hosts: Vec<String>,
    /// Worker threads (default: one per core).
    #[arg(short = 'j', long = "jobs")]
    jobs: Option<usize>,
    /// `table`: one row per node (clean/dirty/failed, outcome counts) and a fleet total; `jsonl`: each
    /// node's --result-json document (plus "profile") on one line.
    #[arg(long = "format", default_value = "table", value_parser = ["table", "jsonl"])]
    format: String,
    /// Take only shard K of N (1-based: 1/4 … 4/4) of the sorted host list; `cfsim fleet merge` joins them.
    #[arg(long = "shard", value_name = "K/N")]
    shard: Option<String>,
    /// Show, per node in the table, the classes matching this regex.
    #[arg(long = "classes", value_name = "RE")]
    classes: Option<String>,
    #[arg(short = 'D', long = "define", value_delimiter = ',')]
    define: Vec<String>,
    #[arg(short = 'N', long = "negate", value_delimiter = ',')]
    negate: Vec<String>,
    #[arg(short = 'b', long = "bundlesequence")]
    bundlesequence: Option<String>,
}

#[derive(clap::Args)]
#[command(
    after_help = "Lints (stderr, FILE:LINE:COL: warning: ...): calls: agent bundles never reached from the \
bundlesequence; classes: classes used but never defined, classes defined but never used; depends: \
depends_on cycles; bodies: bodies never used. Exit codes: 0 done; 1 invalid policy (as cfsim promises), \
or a warning with --deny-warnings; 2 usage or I/O error."
)]
struct GraphArgs {
    /// Entry policy file (loaded, checked and pre-evaluated as `cfsim promises` does).
    #[arg(short = 'f', long = "file", default_value = "./promises.cf")]
    file: String,
    /// calls: bundlesequence and bundle calls; classes: class definitions and uses; depends:
    /// depends_on to handles; bodies: body use and inherit_from.
    #[arg(long = "kind", default_value = "calls", value_parser = ["calls", "classes", "depends", "bodies"])]
    kind: String,
    /// dot (Graphviz), mermaid or json.
    #[arg(long = "format", default_value = "dot", value_parser = ["dot", "mermaid", "json"])]
    format: String,
    /// Show only what is reachable from this node: a bundle (`main`, `ns:b`), class, handle or body
    /// name, or a node id; in the classes graph a bundle name selects its promises.
    #[arg(long = "from", value_name = "NODE")]
    from: Option<String>,
    /// At most N edges away from --from (or from the bundlesequence / the graph's roots).
    #[arg(long = "depth", value_name = "N")]
    depth: Option<usize>,
    /// Exit 1 when there is any warning.
    #[arg(long = "deny-warnings")]
    deny_warnings: bool,
    /// Print the lints of every kind, not only those of the graph shown.
    #[arg(long = "all-lints")]
    all_lints: bool,
    /// Host profile for the pre-evaluation that loads inputs named by variables (default: this machine).
    #[arg(long = "host", default_value = "local")]
    host: String,
}

#[derive(Subcommand)]
enum HostCmd {
    /// Write N host profiles made from base profiles (cycled: an OS mix), each with its own hostname
    /// and, with --vary, its own domain and IPv4 address from a list of ranges
    Generate {
        /// Base profile(s), used in turn
        #[arg(long = "from", required = true, num_args = 1..)]
        from: Vec<String>,
        /// How many profiles
        #[arg(long = "count")]
        count: usize,
        /// hostname=PATTERN ({n} or {n:4} for the number), domain=D1,D2,…, ipv4=CIDR1,CIDR2,… (repeatable)
        #[arg(long = "vary", value_name = "KEY=VALUE")]
        vary: Vec<String>,
        /// Directory to write <hostname>.json into
        #[arg(long = "out")]
        out: String,
    },
}

#[derive(Subcommand)]
enum FleetSub {
    /// Join the `--format jsonl` outputs of shards into what one unsharded run prints
    Merge {
        #[arg(long = "format", default_value = "jsonl", value_parser = ["table", "jsonl"])]
        format: String,
        #[arg(long = "classes", value_name = "RE")]
        classes: Option<String>,
        /// Shard outputs (JSON lines)
        #[arg(required = true)]
        files: Vec<String>,
    },
}

fn fleet_format(s: &str) -> cfsim::fleet::Format {
    if s == "jsonl" {
        cfsim::fleet::Format::Jsonl
    } else {
        cfsim::fleet::Format::Table
    }
}

#[derive(clap::Args)]
#[command(
    after_help = "Exit codes: 0 the run completed (failed promises included, as cf-agent); 1 fatal \
error or invalid policy (cf-agent would run its failsafe policy); 2 usage or I/O error (bad flags, host \
profile, unreadable file); 3 a limit was hit (--max-call-depth, --max-iterations, --max-value-bytes, \
--max-list-length, --max-bundle-calls, --module-timeout): the run went on, but the simulation is \
incomplete."
)]
struct AgentArgs {
    #[arg(short = 'f', long = "file", default_value = "./promises.cf")]
    file: String,
    /// Accepted for compatibility: cfsim never uses locks.
    #[arg(short = 'K', long = "no-lock")]
    no_lock: bool,
    #[arg(short = 'D', long = "define", value_delimiter = ',')]
    define: Vec<String>,
    #[arg(short = 'N', long = "negate", value_delimiter = ',')]
    negate: Vec<String>,
    #[arg(short = 'b', long = "bundlesequence")]
    bundlesequence: Option<String>,
    #[arg(short = 'I', long = "inform")]
    inform: bool,
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    #[arg(short = 'n', long = "dry-run")]
    dry_run: bool,
    #[arg(short = 'g', long = "log-level")]
    log_level: Option<String>,
    #[arg(long = "show-evaluated-classes", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    show_evaluated_classes: Option<String>,
    #[arg(long = "show-evaluated-vars", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    show_evaluated_vars: Option<String>,
    /// Host profile JSON file, or `local` (default).
    #[arg(long = "host", default_value = "local")]
    host: String,
    /// Run commands for real instead of simulating them (implies --allow-network).
    #[arg(long = "exec")]
    exec: bool,
    /// Let host2ip() and other name lookups use DNS (with --host local); otherwise the host's /etc/hosts answers.
    #[arg(long = "allow-network")]
    allow_network: bool,
    /// A module program (as the commands promise names it) that is the hENC module: cfsim merges its
    /// ENC files natively instead of running it (a `cfsim henc` wrapper is recognised without this)
    #[arg(long = "henc-module", value_name = "PATH")]
    henc_module: Vec<String>,
    /// Print the evaluation trace: `--trace` text, `--trace=json` JSON lines.
    #[arg(long = "trace", num_args = 0..=1, default_missing_value = "text", require_equals = true)]
    trace: Option<String>,
    /// Write the trace as JSON lines (schema: docs/trace.schema.json) to PATH; `-` for stdout.
    #[arg(long = "trace-file", value_name = "PATH")]
    trace_file: Option<String>,
    /// Write the run's result as JSON (schema: docs/result.schema.json) to PATH; `-` for stdout.
    #[arg(long = "result-json", value_name = "PATH")]
    result_json: Option<String>,
    /// Deepest nesting of methods calls (1 to 10000) before cfsim stops with a diagnostic.
    #[arg(long = "max-call-depth", default_value_t = 64,
          value_parser = clap::value_parser!(u64).range(1..=cfsim::eval::MAX_CALL_DEPTH as u64))]
    max_call_depth: u64,
    /// Most iterations of one promise (at least 1) before cfsim skips it with a diagnostic.
    #[arg(long = "max-iterations", default_value_t = 100_000,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_iterations: u64,
    /// Largest string a variable may hold (bytes); larger values are not set, with a diagnostic.
    #[arg(long = "max-value-bytes", default_value_t = 64 << 20)]
    max_value_bytes: usize,
    /// Most elements of a list (or values of a data container) a variable may hold.
    #[arg(long = "max-list-length", default_value_t = 1_000_000)]
    max_list_length: usize,
    /// Most bundle runs (bundlesequence and methods calls) in one run; later calls are refused.
    #[arg(long = "max-bundle-calls", default_value_t = 100_000)]
    max_bundle_calls: usize,
    /// Seconds to wait for a promise module's answer (`--exec`) before killing it.
    #[arg(long = "module-timeout", default_value_t = cfsim::module::promise_module::DEFAULT_TIMEOUT_SECS)]
    module_timeout: u64,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let code = match cli.cmd {
        Cmd::Functions => {
            print!("{}", cfsim::functions::coverage_report());
            return ExitCode::SUCCESS;
        }
        Cmd::Henc {
            explain,
            lint,
            files,
        } => return cfsim::henc::cli::henc(&files, explain, lint),
        Cmd::Host(HostCmd::Generate {
            from,
            count,
            vary,
            out,
        }) => {
            let mut v = cfsim::host::generate::Vary::default();
            for spec in &vary {
                if let Err(e) = v.add(spec) {
                    eprintln!("   error: {e}");
                    return ExitCode::from(2);
                }
            }
            match cfsim::host::generate::generate(&from, count, &v, std::path::Path::new(&out)) {
                Ok(paths) => {
                    println!("wrote {} host profiles to {out}", paths.len());
                    0
                }
                Err(e) => {
                    eprintln!("   error: {e}");
                    2
                }
            }
        }
        Cmd::Test {
            paths,
            format,
            jobs,
            filter,
            shard,
            host,
            snapshot,
            accept,
            coverage,
            coverage_json,
        } => {
            let shard = match shard.as_deref().map(cfsim::fleet::Shard::parse) {
                Some(Ok(s)) => Some(s),
                Some(Err(e)) => {
                    eprintln!("   error: {e}");
                    return ExitCode::from(2);
                }
                None => None,
            };
            cli::test::run(&cli::test::Options {
                paths,
                format: cfsim::testing::report::Format::parse(&format)
                    .unwrap_or(cfsim::testing::report::Format::Human),
                jobs,
                filter,
                shard,
                host,
                snapshot,
                accept,
                coverage,
                coverage_json,
            })
        }
        Cmd::Diff {
            before,
            after,
            file,
            hosts,
            format,
            jobs,
            shard,
        } => {
            let shard = match shard.as_deref().map(cfsim::fleet::Shard::parse) {
                Some(Ok(s)) => Some(s),
                Some(Err(e)) => {
                    eprintln!("   error: {e}");
                    return ExitCode::from(1);
                }
                None => None,
            };
            cli::diff::run(&cli::diff::Options {
                before,
                after,
                file,
                hosts,
                json: format == "json",
                jobs,
                shard,
            })
        }
        Cmd::Fleet(a) => {
            if let Some(FleetSub::Merge {
                format,
                classes,
                files,
            }) = a.sub
            {
                return ExitCode::from(cli::fleet::merge(
                    &files,
                    fleet_format(&format),
                    classes.as_deref(),
                ));
            }
            let shard = match a.shard.as_deref().map(cfsim::fleet::Shard::parse) {
                Some(Ok(s)) => Some(s),
                Some(Err(e)) => {
                    eprintln!("   error: {e}");
                    return ExitCode::from(2);
                }
                None => None,
            };
            cli::fleet::run(&cli::fleet::Options {
                file: a.file.unwrap_or_default(),
                hosts: a.hosts,
                jobs: a.jobs,
                format: fleet_format(&a.format),
                shard,
                classes: a.classes,
                define: a.define,
                negate: a.negate,
                bundlesequence: a.bundlesequence,
            })
        }
        Cmd::Graph(a) => cli::graph::run(&cli::graph::Options {
            file: a.file,
            kind: cfsim::graph::Kind::parse(&a.kind).unwrap_or(cfsim::graph::Kind::Calls),
            format: cfsim::graph::render::Format::parse(&a.format)
                .unwrap_or(cfsim::graph::render::Format::Dot),
            from: a.from,
            depth: a.depth,
            deny_warnings: a.deny_warnings,
            all_lints: a.all_lints,
            host: a.host,
        }),
        Cmd::Enc { config, node } => return cfsim::henc::cli::enc(&node, config.as_deref()),
        Cmd::Promises(a) => {
            let format = match a.format.as_deref().map(cli::promises::OutputFormat::parse) {
                Some(None) => {
                    println!(
                        "   error: Invalid policy output format: '{}'. Possible values are 'none', 'cf', 'json', 'cf-full', 'json-full'",
                        a.format.unwrap_or_default()
                    );
                    return ExitCode::from(2);
                }
                Some(f) => f,
                None => None,
            };
            cli::promises::run(&cli::promises::Options {
                file: a.file,
                format,
                show_classes: a.show_classes,
                show_vars: a.show_vars,
                host: a.host,
                define: a.define,
                negate: a.negate,
                exec: a.exec,
                allow_network: a.allow_network,
            })
        }
        Cmd::Agent(a) => {
            let _ = a.no_lock;
            let trace = match a.trace.as_deref() {
                None => None,
                Some("text") => Some(cli::agent::TraceFormat::Text),
                Some("json") => Some(cli::agent::TraceFormat::Json),
                Some(other) => {
                    println!("   error: Unknown trace format '{other}' (text or json)");
                    return ExitCode::from(2);
                }
            };
            cli::agent::run(&cli::agent::Options {
                file: a.file,
                host: a.host,
                define: a.define,
                negate: a.negate,
                bundlesequence: a.bundlesequence,
                inform: a.inform,
                verbose: a.verbose,
                dry_run: a.dry_run,
                level: a.log_level,
                show_classes: a.show_evaluated_classes,
                show_vars: a.show_evaluated_vars,
                exec: a.exec,
                allow_network: a.allow_network,
                henc_modules: a.henc_module,
                trace,
                trace_file: a.trace_file,
                result_json: a.result_json,
                brief_result: false,
                limits: Some(cfsim::eval::Limits {
                    max_call_depth: usize::try_from(a.max_call_depth).unwrap_or(64),
                    max_iterations: usize::try_from(a.max_iterations).unwrap_or(usize::MAX),
                    module_timeout_secs: a.module_timeout,
                    max_value_bytes: a.max_value_bytes,
                    max_list_length: a.max_list_length,
                    max_bundle_calls: a.max_bundle_calls,
                }),
            })
        }
    };
    ExitCode::from(code)
}
