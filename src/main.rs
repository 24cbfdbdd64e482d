//! The `cfsim` binary: thin clap front end; each subcommand calls one library function.
// on Linux/glibc the C runtime's `main` is `start::main` (Rust's start-up without its stack probe)
#![cfg_attr(all(target_os = "linux", target_env = "gnu", not(test)), no_main)]

use std::process::ExitCode;

use cfsim::cli;

mod alloc;
mod plain_args;
#[cfg(all(target_os = "linux", target_env = "gnu", not(test)))]
mod start;

/// mimalloc rather than glibc's malloc: see Cargo.toml for the measurements, `alloc` for the calls.
#[global_allocator]
static GLOBAL: alloc::MiMalloc = alloc::MiMalloc;
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
    Agent(Box<AgentArgs>),
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
        /// Check every case for convergence: run the policy again on the files the first run left;
        /// anything repaired the second time fails the case (as `converge: true` in a spec)
        #[arg(long = "converge")]
        converge: bool,
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
    /// Why a class is (not) defined, why a variable has its value (or none), what became of a promise
    Explain(ExplainArgs),
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

#[derive(clap::Args, Debug)]
struct PromisesArgs {
    /// Entry policy file (overridden by FILE; the last -f counts).
    #[arg(
        short = 'f',
        long = "file",
        default_value = "./promises.cf",
        overrides_with = "file"
    )]
    file: String,
    /// The policy file, as cf-promises takes it after the options (overrides -f)
    #[arg(value_name = "FILE")]
    file_arg: Option<String>,
    /// Print the syntax tables of CFEngine 3.21.0: none or json (identical to cf-promises -s json)
    #[arg(short = 's', long = "syntax-description", value_name = "none|json")]
    syntax_description: Option<String>,
    /// Print the version of CFEngine simulated (and cfsim's)
    #[arg(short = 'V', long = "version")]
    version: bool,
    /// Output verbose information (accepted: cfsim's checker prints what cf-promises prints by default)
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    /// Debugging output (accepted)
    #[arg(short = 'd', long = "debug")]
    debug: bool,
    /// Log level: error, warning, notice, info, verbose, debug (accepted)
    #[arg(short = 'g', long = "log-level")]
    log_level: Option<String>,
    /// All talk and no action (accepted: checking changes nothing anyway)
    #[arg(short = 'n', long = "dry-run")]
    dry_run: bool,
    /// Evaluate functions during syntax checking: yes (default) or no (accepted: cfsim evaluates them)
    #[arg(long = "eval-functions", num_args = 0..=1, default_missing_value = "yes", require_equals = true, value_name = "yes|no")]
    eval_functions: Option<String>,
    /// Override the work directory (accepted: the simulated host's work directory is its profile's)
    #[arg(short = 'w', long = "workdir", value_name = "DIR")]
    workdir: Option<String>,
    /// Internal diagnostics (accepted: developers of the C implementation only)
    #[arg(short = 'x', long = "diagnostic")]
    diagnostic: bool,
    /// Non-default warnings: <warnings>|all, or error=<warnings>|all (accepted)
    #[arg(short = 'W', long = "warn", value_name = "WARNINGS")]
    warn: Option<String>,
    /// Colorize output: always, auto, never (accepted: cfsim prints no colour)
    #[arg(short = 'C', long = "color", num_args = 0..=1, default_missing_value = "auto", require_equals = true, value_name = "WHEN")]
    color: Option<String>,
    /// Tag a directory with cf_promises_validated and cf_promises_release_id (accepted: cfsim writes nothing)
    #[arg(short = 'T', long = "tag-release", value_name = "DIR")]
    tag_release: Option<String>,
    /// Log timestamps on each line (accepted: cfsim's output stays deterministic, without them)
    #[arg(short = 'l', long = "timestamp")]
    timestamp: bool,
    /// Ignore def_preferred.json in favour of def.json (accepted: cfsim reads neither yet)
    #[arg(long = "ignore-preferred-augments")]
    ignore_preferred_augments: bool,
    /// Debug logging of areas of the C implementation (accepted)
    #[arg(long = "log-modules", value_name = "MODULES")]
    log_modules: Option<String>,
    /// Print the policy: none, cf, json, cf-full, json-full.
    #[arg(short = 'p', long = "policy-output-format")]
    format: Option<String>,
    /// Full policy integrity checks: the checks of a runnable policy even without body common control, and the bundlesequence
    #[arg(short = 'c', long = "full-check", alias = "check-all")]
    check_all: bool,
    /// Define classes (accepted; used by pre-evaluation).
    #[arg(short = 'D', long = "define", value_delimiter = ',')]
    define: Vec<String>,
    /// Negate persistent classes (accepted).
    #[arg(short = 'N', long = "negate", value_delimiter = ',')]
    negate: Vec<String>,
    /// Bundlesequence to verify: skips the full checks, as cf-promises does (repeatable)
    #[arg(short = 'b', long = "bundlesequence")]
    bundlesequence: Vec<String>,
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
depends_on cycles; bodies: bodies never used. Exit codes: 0 done; 1 invalid or unreadable policy (as cfsim \
promises), or a warning with --deny-warnings; 2 usage or I/O error."
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

#[derive(clap::Args)]
#[command(
    group(clap::ArgGroup::new("question").required(true).args(["class", "var", "promise"])),
    after_help = "The policy runs on the host as `cfsim agent` would (same flags), with its trace; the \
answer cites every promise as FILE:LINE with the trace's sequence number (#N, as in `cfsim agent --trace`). \
Exit codes: 0 answered; 1 invalid policy or a run that could not start (the output of `cfsim agent`); 2 \
usage error: unknown class, variable or promise, bad name, host profile. JSON shape: docs/explain.md."
)]
struct ExplainArgs {
    /// Entry policy file.
    #[arg(short = 'f', long = "file", default_value = "./promises.cf")]
    file: String,
    /// Host profile JSON file, or `local` (default).
    #[arg(long = "host", default_value = "local")]
    host: String,
    #[arg(short = 'D', long = "define", value_delimiter = ',')]
    define: Vec<String>,
    #[arg(short = 'N', long = "negate", value_delimiter = ',')]
    negate: Vec<String>,
    #[arg(short = 'b', long = "bundlesequence")]
    bundlesequence: Option<String>,
    /// A class: why it is defined (the promise, its guard, the chain back) or why not (every
    /// promise that could have defined it). `ns:name` or `name`; bundle-local classes too.
    #[arg(long = "class", value_name = "NAME")]
    class: Option<String>,
    /// A variable: every assignment in order (the last wins), or why it was never set.
    #[arg(long = "var", value_name = "[NS:][BUNDLE.]NAME")]
    var: Option<String>,
    /// A promise, by its handle or by FILE:LINE: each evaluation and what came of it.
    #[arg(long = "promise", value_name = "HANDLE|FILE:LINE")]
    promise: Option<String>,
    /// text or json
    #[arg(long = "format", default_value = "text", value_parser = ["text", "json"])]
    format: String,
    /// Run commands for real instead of simulating them (implies --allow-network).
    #[arg(long = "exec")]
    exec: bool,
    /// A module program that is the hENC module (as for `cfsim agent`).
    #[arg(long = "henc-module", value_name = "PATH")]
    henc_module: Vec<String>,
}

#[derive(Subcommand)]
enum HostCmd {
    /// Write a host profile of this machine (the facts cfsim discovers, users and groups) to --out; with
    /// --files, copy those trees into a `.root` directory beside it, used as the profile's files_root.
    /// Reads only; runs nothing; environment variables other than HOME, LANG, LOGNAME, PATH, SHELL,
    /// TERM and USER are left out
    Capture {
        /// The profile file to write, e.g. myhost.json (its trees go to myhost.root/)
        #[arg(long = "out")]
        out: String,
        /// Absolute paths of files or directories to copy into the profile's files_root
        #[arg(long = "files", value_name = "PATH", num_args = 1..)]
        files: Vec<String>,
    },
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

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Exit codes: 0 the run completed (failed promises included, as cf-agent); 1 fatal \
error or invalid policy (cf-agent would run its failsafe policy); 2 usage or I/O error (bad flags, host \
profile, unreadable file); 3 a limit was hit (--max-call-depth, --max-iterations, --max-value-bytes, \
--max-list-length, --max-bundle-calls, --max-total-values, --module-timeout): the run went on, but the simulation is \
incomplete."
)]
struct AgentArgs {
    /// Specify an alternative input file than the default (overridden by FILE; the last -f counts)
    #[arg(
        short = 'f',
        long = "file",
        default_value = "./promises.cf",
        overrides_with = "file"
    )]
    file: String,
    /// The policy file, as cf-agent takes it after the options (overrides -f)
    #[arg(value_name = "FILE")]
    file_arg: Option<String>,
    /// Ignore locking constraints (accepted: cfsim never uses locks)
    #[arg(short = 'K', long = "no-lock")]
    no_lock: bool,
    /// Define a list of comma separated classes at the start of execution
    #[arg(short = 'D', long = "define", value_delimiter = ',')]
    define: Vec<String>,
    /// Undefine a list of comma separated classes at the start of execution
    #[arg(short = 'N', long = "negate", value_delimiter = ',')]
    negate: Vec<String>,
    /// Set or override the bundlesequence (given more than once, the last one counts)
    #[arg(short = 'b', long = "bundlesequence")]
    bundlesequence: Vec<String>,
    /// Print basic information about changes made (promises repaired)
    #[arg(short = 'I', long = "inform")]
    inform: bool,
    /// Output verbose information about the behaviour of the agent
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
    /// Debugging output (cfsim: its most detailed level, -g debug)
    #[arg(short = 'd', long = "debug")]
    debug: bool,
    /// All talk and no action mode: make no changes, only inform of promises not kept
    #[arg(short = 'n', long = "dry-run")]
    dry_run: bool,
    /// How detailed logs should be: error, warning, notice, info, verbose, debug
    #[arg(short = 'g', long = "log-level")]
    log_level: Option<String>,
    /// Show the final evaluated classes (optionally only those matching a regex)
    #[arg(long = "show-evaluated-classes", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    show_evaluated_classes: Option<String>,
    /// Show the final evaluated variables (optionally only those matching a regex)
    #[arg(long = "show-evaluated-vars", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    show_evaluated_vars: Option<String>,
    /// Print the version of CFEngine simulated (and cfsim's)
    #[arg(short = 'V', long = "version")]
    version: bool,
    /// Bootstrap to a policy server (accepted: a simulation never bootstraps)
    #[arg(short = 'B', long = "bootstrap", value_name = "SERVER")]
    bootstrap: Option<String>,
    /// Trust the server when bootstrapping: yes or no (accepted: a simulation never bootstraps)
    #[arg(short = 'T', long = "trust-server", value_name = "yes|no")]
    trust_server: Option<String>,
    /// Do not run policy after bootstrapping (accepted: a simulation never bootstraps)
    #[arg(long = "skip-bootstrap-policy-run")]
    skip_bootstrap_policy_run: bool,
    /// Override the work directory (accepted: the simulated host's work directory is its profile's)
    #[arg(short = 'w', long = "workdir", value_name = "DIR")]
    workdir: Option<String>,
    /// Run checks of a CFEngine installation (accepted: there is none to check in a simulation)
    #[arg(short = 'x', long = "self-diagnostics", num_args = 0..=1, default_missing_value = "", require_equals = true, value_name = "CHECK")]
    self_diagnostics: Option<String>,
    /// Timing information in verbose mode (accepted: simulated times would mean nothing)
    #[arg(short = 't', long = "timing-output")]
    timing_output: bool,
    /// Colorize output: always, auto, never (accepted: cfsim prints no colour)
    #[arg(short = 'C', long = "color", num_args = 0..=1, default_missing_value = "auto", require_equals = true, value_name = "WHEN")]
    color: Option<String>,
    /// Disable extension loading (accepted: cfsim loads no extensions)
    #[arg(short = 'E', long = "no-extensions")]
    no_extensions: bool,
    /// Log timestamps on each line (accepted: cfsim's output stays deterministic, without them)
    #[arg(short = 'l', long = "timestamp")]
    timestamp: bool,
    /// Ignore def_preferred.json in favour of def.json (accepted: cfsim reads neither yet)
    #[arg(long = "ignore-preferred-augments")]
    ignore_preferred_augments: bool,
    /// Debug logging of areas of the C implementation (accepted: they do not exist in cfsim)
    #[arg(long = "log-modules", value_name = "MODULES")]
    log_modules: Option<String>,
    /// Skip database integrity checks (accepted: a simulation opens no databases)
    #[arg(long = "skip-db-check", num_args = 0..=1, default_missing_value = "", require_equals = true, value_name = "yes|no")]
    skip_db_check: Option<String>,
    /// Simulate mode: manifest, manifest-full or diff: files promises act on the virtual host, reports
    /// and commands as in a dry run, then the agent's report of what changed
    #[arg(long = "simulate", value_name = "MODE")]
    simulate: Option<String>,
    /// Host profile JSON file, or `local` (default).
    #[arg(long = "host", default_value = "local")]
    host: String,
    /// Run commands for real instead of simulating them (implies --allow-network).
    #[arg(long = "exec")]
    exec: bool,
    /// Let host2ip() and other name lookups use DNS (with --host local); otherwise the host's /etc/hosts answers.
    #[arg(long = "allow-network")]
    allow_network: bool,
    /// What a command the host profile has no result for returns (commands promises, execresult,
    /// returnszero, …): `succeed` (exit 0) or `fail` (exit 1), no output. Without it such a command is
    /// not simulated (commands promises are reported and get no outcome; functions fail).
    #[arg(
        long = "assume-commands",
        value_name = "succeed|fail",
        require_equals = true
    )]
    assume_commands: Option<String>,
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
    /// Write the run as one self-contained HTML page to PATH: bundles × passes × promise types, a cell
    /// per evaluation coloured by outcome, details on click, class/variable search; `-` for stdout.
    #[arg(long = "timeline", value_name = "PATH.html")]
    timeline: Option<String>,
    /// Write the final state of every path the run created or changed under DIR/<absolute path>
    /// (content, mode, symlink target); deleted paths are listed in DIR/.cfsim-removed.
    #[arg(long = "write-root", value_name = "DIR")]
    write_root: Option<String>,
    /// Print every change to the virtual host's files as JSON (`--changes=json`, after the output), or
    /// write it to PATH with `--changes-file PATH`.
    #[arg(long = "changes", value_name = "FORMAT", require_equals = true)]
    changes: Option<String>,
    /// Write the JSON list of changes to PATH (`-`: stdout).
    #[arg(long = "changes-file", value_name = "PATH")]
    changes_file: Option<String>,
    /// Directory of the run's private temporary file for file contents past --spill-above (created
    /// 0600 and unlinked at once; default $TMPDIR, else /tmp; never inside the host's files_root).
    #[arg(long = "spill-dir", value_name = "DIR")]
    spill_dir: Option<String>,
    /// Bytes of changed file contents kept in memory before larger ones spill to the temporary file
    /// (K, M, G suffixes; `none`: keep everything in memory).
    #[arg(long = "spill-above", value_name = "SIZE", default_value = "1M")]
    spill_above: String,
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
    /// Most value units (string bytes, plus one per list element or data value) the run's function
    /// results and variable assignments may add up to; later calls and assignments are refused.
    #[arg(long = "max-total-values", default_value_t = cfsim::eval::DEFAULT_MAX_TOTAL_VALUES,
          value_parser = clap::value_parser!(u64).range(1..))]
    max_total_values: u64,
    /// Seconds to wait for a promise module's answer (`--exec`) before killing it.
    #[arg(long = "module-timeout", default_value_t = cfsim::module::promise_module::DEFAULT_TIMEOUT_SECS)]
    module_timeout: u64,
}

/// The command line. Building clap's whole command tree (every subcommand and flag) costs ~0.2 ms, a
/// tenth of a small `cfsim promises` run; for `promises` and `agent`, which a sweep or a CI job starts
/// once per file, only that subcommand is built. Anything it does not accept, and every request for help
/// or the version, goes through the whole tree, which prints clap's usual text.
fn parse_cli() -> Cli {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match plain_args::plain_subcommand(&args).or_else(|| fast_subcommand(&args)) {
        Some(cmd) => Cli { cmd },
        None => Cli::parse_from(args),
    }
}

/// `promises`/`agent` parsed with only their own arguments built (`None`: use the whole tree).
fn fast_subcommand(args: &[std::ffi::OsString]) -> Option<Cmd> {
    use clap::{Args, FromArgMatches};
    let name = args.get(1)?.to_str()?;
    let rest = args.get(2..)?;
    let asks_help = |a: &std::ffi::OsString| {
        let a = a.to_string_lossy();
        a == "-h" || a == "--help" || a == "-V" || a == "--version" || a == "help"
    };
    if rest.iter().any(asks_help) {
        return None;
    }
    let argv = std::iter::once(std::ffi::OsString::from(name)).chain(rest.iter().cloned());
    match name {
        "promises" => {
            let m = PromisesArgs::augment_args(clap::Command::new("promises"))
                .try_get_matches_from(argv)
                .ok()?;
            PromisesArgs::from_arg_matches(&m).ok().map(Cmd::Promises)
        }
        "agent" => {
            let m = AgentArgs::augment_args(clap::Command::new("agent"))
                .try_get_matches_from(argv)
                .ok()?;
            AgentArgs::from_arg_matches(&m)
                .ok()
                .map(|a| Cmd::Agent(Box::new(a)))
        }
        _ => None,
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(test))))]
fn main() -> ExitCode {
    run()
}

/// The whole program after start-up: parses the command line and runs the subcommand.
fn run() -> ExitCode {
    let cli = parse_cli();
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
        Cmd::Host(HostCmd::Capture { out, files }) => {
            let req = cfsim::host::capture::Request {
                out: std::path::PathBuf::from(&out),
                files,
            };
            match cfsim::host::capture::capture(&req) {
                Ok(c) => {
                    for (p, why) in &c.skipped {
                        eprintln!(" warning: not captured: {p}: {why}");
                    }
                    match &c.root {
                        Some(r) => println!(
                            "wrote {out} and {} ({} entries, {} bytes; {} skipped)",
                            r.display(),
                            c.entries,
                            c.bytes,
                            c.skipped.len()
                        ),
                        None => println!("wrote {out}"),
                    }
                    0
                }
                Err(e) => {
                    eprintln!("   error: {e}");
                    2
                }
            }
        }
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
            converge,
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
                converge,
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
        Cmd::Explain(a) => {
            let question = match (a.class, a.var, a.promise) {
                (Some(c), _, _) => cli::explain::Question::Class(c),
                (_, Some(v), _) => cli::explain::Question::Var(v),
                (_, _, Some(p)) => cli::explain::Question::Promise(p),
                (None, None, None) => {
                    eprintln!("   error: one of --class, --var or --promise is needed");
                    return ExitCode::from(2);
                }
            };
            cli::explain::run(&cli::explain::Request {
                question,
                format: if a.format == "json" {
                    cli::explain::Format::Json
                } else {
                    cli::explain::Format::Text
                },
                run: cfsim::sim::Options {
                    file: a.file,
                    host: a.host,
                    define: a.define,
                    negate: a.negate,
                    bundlesequence: a.bundlesequence,
                    exec: a.exec,
                    henc_modules: a.henc_module,
                    ..cfsim::sim::Options::default()
                },
            })
        }
        Cmd::Enc { config, node } => return cfsim::henc::cli::enc(&node, config.as_deref()),
        Cmd::Promises(a) => {
            if a.version {
                print!("{}", cli::compat::version());
                return ExitCode::SUCCESS;
            }
            match a.syntax_description.as_deref() {
                Some("json") => {
                    print!("{}", cli::compat::SYNTAX_JSON);
                    return ExitCode::SUCCESS;
                }
                Some("none") | None => {}
                Some(other) => {
                    println!("   error: Invalid syntax description output format '{other}'. Possible values are 'none', 'json'");
                    return ExitCode::from(2);
                }
            }
            use cli::compat::Ignored;
            let mut ignored = Vec::new();
            for (used, flag, why) in [
                (
                    a.workdir.is_some(),
                    "-w/--workdir",
                    "the simulated host's work directory is its profile's",
                ),
                (
                    a.diagnostic,
                    "-x/--diagnostic",
                    "for developers of the C implementation",
                ),
                (
                    a.warn.is_some(),
                    "-W/--warn",
                    "cfsim has no optional warnings yet",
                ),
                (a.color.is_some(), "-C/--color", "cfsim prints no colour"),
                (
                    a.tag_release.is_some(),
                    "-T/--tag-release",
                    "cfsim writes nothing",
                ),
                (
                    a.timestamp,
                    "-l/--timestamp",
                    "cfsim prints no timestamps, so its output stays deterministic",
                ),
                (
                    a.ignore_preferred_augments,
                    "--ignore-preferred-augments",
                    "cfsim reads no def_preferred.json",
                ),
                (
                    a.log_modules.is_some(),
                    "--log-modules",
                    "they name areas of the C implementation",
                ),
                (
                    a.eval_functions.as_deref() == Some("no"),
                    "--eval-functions=no",
                    "cfsim evaluates functions while checking",
                ),
                (
                    a.debug || a.verbose || a.log_level.is_some(),
                    "-d/-v/-g",
                    "cfsim's checker prints the default level only",
                ),
            ] {
                if used {
                    ignored.push(Ignored { flag, why });
                }
            }
            cli::compat::report(&ignored);
            let _ = (a.dry_run, a.inform);
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
                file: a.file_arg.unwrap_or(a.file),
                format,
                show_classes: a.show_classes,
                show_vars: a.show_vars,
                host: a.host,
                define: a.define,
                negate: a.negate,
                exec: a.exec,
                allow_network: a.allow_network,
                check_runnable: a.check_all,
                dash_b: !a.bundlesequence.is_empty(),
            })
        }
        Cmd::Agent(a) => {
            let _ = a.no_lock;
            if a.version {
                print!("{}", cli::compat::version());
                return ExitCode::SUCCESS;
            }
            use cli::compat::Ignored;
            let mut ignored = Vec::new();
            for (used, flag, why) in [
                (
                    a.bootstrap.is_some(),
                    "-B/--bootstrap",
                    "a simulation never bootstraps",
                ),
                (
                    a.trust_server.is_some(),
                    "-T/--trust-server",
                    "a simulation never bootstraps",
                ),
                (
                    a.skip_bootstrap_policy_run,
                    "--skip-bootstrap-policy-run",
                    "a simulation never bootstraps",
                ),
                (
                    a.workdir.is_some(),
                    "-w/--workdir",
                    "the simulated host's work directory is its profile's",
                ),
                (
                    a.self_diagnostics.is_some(),
                    "-x/--self-diagnostics",
                    "there is no installation to check",
                ),
                (
                    a.timing_output,
                    "-t/--timing-output",
                    "simulated times would mean nothing",
                ),
                (a.color.is_some(), "-C/--color", "cfsim prints no colour"),
                (
                    a.no_extensions,
                    "-E/--no-extensions",
                    "cfsim loads no extensions",
                ),
                (
                    a.timestamp,
                    "-l/--timestamp",
                    "cfsim prints no timestamps, so its output stays deterministic",
                ),
                (
                    a.ignore_preferred_augments,
                    "--ignore-preferred-augments",
                    "cfsim reads no def_preferred.json",
                ),
                (
                    a.log_modules.is_some(),
                    "--log-modules",
                    "they name areas of the C implementation",
                ),
                (
                    a.skip_db_check.is_some(),
                    "--skip-db-check",
                    "a simulation opens no databases",
                ),
            ] {
                if used {
                    ignored.push(Ignored { flag, why });
                }
            }
            cli::compat::report(&ignored);
            let log_level = match (a.log_level, a.debug) {
                (None, true) => Some("debug".to_string()),
                (l, _) => l,
            };
            // given more than once, the last one counts, as in cf-agent (recorded: -b a -b b runs b)
            let bundlesequence = a.bundlesequence.last().cloned();
            let trace = match a.trace.as_deref() {
                None => None,
                Some("text") => Some(cli::agent::TraceFormat::Text),
                Some("json") => Some(cli::agent::TraceFormat::Json),
                Some(other) => {
                    println!("   error: Unknown trace format '{other}' (text or json)");
                    return ExitCode::from(2);
                }
            };
            let simulate = match a.simulate.as_deref() {
                None => None,
                Some("diff") => Some(cfsim::host::simreport::Mode::Diff),
                Some("manifest") => Some(cfsim::host::simreport::Mode::Manifest),
                Some("manifest-full") => Some(cfsim::host::simreport::Mode::ManifestFull),
                Some(other) => {
                    println!("   error: Unknown simulate mode '{other}' (diff, manifest or manifest-full)");
                    return ExitCode::from(2);
                }
            };
            let assume_commands = match a.assume_commands.as_deref() {
                None => None,
                Some(s) => match cfsim::expr::host::Assume::parse(s) {
                    Some(x) => Some(x),
                    None => {
                        println!(
                            "   error: Unknown --assume-commands value '{s}' (succeed or fail)"
                        );
                        return ExitCode::from(2);
                    }
                },
            };
            let spill = match cfsim::host::spill::parse_size(&a.spill_above) {
                Ok(budget) => cfsim::host::spill::SpillConfig {
                    dir: a.spill_dir.map(std::path::PathBuf::from),
                    budget,
                },
                Err(m) => {
                    println!("   error: --spill-above: {m}");
                    return ExitCode::from(2);
                }
            };
            cli::agent::run(&cli::agent::Options {
                // the run's lines go out as they are made (a dry run can print gigabytes)
                stream: true,
                // one run per process: its memory goes back at exit, not freed item by item
                exit_after: true,
                spill,
                simulate,
                start_files: None,
                file: a.file_arg.unwrap_or(a.file),
                host: a.host,
                define: a.define,
                negate: a.negate,
                bundlesequence,
                inform: a.inform,
                verbose: a.verbose,
                dry_run: a.dry_run,
                level: log_level,
                show_classes: a.show_evaluated_classes,
                show_vars: a.show_evaluated_vars,
                exec: a.exec,
                allow_network: a.allow_network,
                assume_commands,
                henc_modules: a.henc_module,
                trace,
                trace_file: a.trace_file,
                result_json: a.result_json,
                timeline: a.timeline,
                write_root: a.write_root,
                changes_json: match (a.changes.as_deref(), a.changes_file) {
                    (_, Some(p)) => Some(p),
                    (Some("json"), None) => Some("-".into()),
                    (Some(other), None) => {
                        println!("   error: Unknown changes format '{other}' (json)");
                        return ExitCode::from(2);
                    }
                    (None, None) => None,
                },
                brief_result: false,
                brief_without_classes: false,
                keep_trace: false,
                limits: Some(cfsim::eval::Limits {
                    max_call_depth: usize::try_from(a.max_call_depth).unwrap_or(64),
                    max_iterations: usize::try_from(a.max_iterations).unwrap_or(usize::MAX),
                    module_timeout_secs: a.module_timeout,
                    max_value_bytes: a.max_value_bytes,
                    max_list_length: a.max_list_length,
                    max_bundle_calls: a.max_bundle_calls,
                    max_total_values: a.max_total_values,
                }),
            })
        }
    };
    ExitCode::from(code)
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;
    use clap::Parser;

    fn argv(line: &str) -> Vec<std::ffi::OsString> {
        line.split(' ').map(std::ffi::OsString::from).collect()
    }

    /// `parsed` (by a shortcut) is what the whole command tree gives for `line`.
    fn same_as_clap(line: &str, parsed: Option<Cmd>) {
        match (Cli::try_parse_from(argv(line)), parsed) {
            (
                Ok(Cli {
                    cmd: Cmd::Promises(w),
                }),
                Some(Cmd::Promises(f)),
            ) => {
                assert_eq!(format!("{w:?}"), format!("{f:?}"), "{line}")
            }
            (Ok(Cli { cmd: Cmd::Agent(w) }), Some(Cmd::Agent(f))) => {
                assert_eq!(format!("{w:?}"), format!("{f:?}"), "{line}")
            }
            (w, f) => panic!("{line}: clap {:?} shortcut {:?}", w.is_ok(), f.is_some()),
        }
    }

    /// The fast path parses `promises`/`agent` exactly as the whole command tree does, and leaves
    /// everything else (errors, help, version, other subcommands) to it.
    #[test]
    fn fast_path_parses_as_the_whole_tree() {
        for line in [
            "cfsim promises -f ./promises.cf",
            "cfsim promises -c -f x.cf -p json",
            "cfsim promises --host local -D a,b -N c -I -v --show-vars",
            "cfsim agent -K -f ./promises.cf",
            "cfsim agent -KI -f p.cf --host h.json -D x -n --simulate=diff",
            "cfsim agent -K -b main,other --define a --result-json r.json",
        ] {
            same_as_clap(line, fast_subcommand(&argv(line)));
        }
        for line in [
            "cfsim promises --no-such-flag",
            "cfsim promises --help",
            "cfsim agent -h",
            "cfsim agent --version",
            "cfsim fleet -f x",
            "cfsim",
        ] {
            assert!(fast_subcommand(&argv(line)).is_none(), "{line}");
        }
    }

    /// The hand parser gives what clap gives, defaults included, on every flag it takes, and leaves
    /// to clap every line it does not take whole.
    #[test]
    fn plain_path_parses_as_clap() {
        for line in [
            "cfsim agent",
            "cfsim promises",
            "cfsim agent -K -f ./agent-hello.cf",
            "cfsim agent --no-lock --file p.cf --host h.json --inform --dry-run --exec --allow-network",
            "cfsim agent -K -I -n --host local ./p.cf",
            "cfsim agent p.cf -f q.cf",
            "cfsim promises -f ./promises.cf",
            "cfsim promises -p json -f ./lib/files.cf",
            "cfsim promises -c -I --exec --allow-network --host h.json --policy-output-format cf x.cf",
            "cfsim promises --full-check --file a.cf --inform --show-vars --show-classes",
            "cfsim promises --show-vars=sys\\..* --show-classes=linux -f a.cf",
            "cfsim promises --show-vars= -f a.cf",
        ] {
            same_as_clap(line, plain_args::plain_subcommand(&argv(line)));
        }
        for line in [
            "cfsim agent -K -K",
            "cfsim agent -KI -f p.cf",
            "cfsim agent -f a.cf -f b.cf",
            "cfsim agent --file=p.cf",
            "cfsim agent -f -K",
            "cfsim agent -f",
            "cfsim agent a.cf b.cf",
            "cfsim agent -D x -f p.cf",
            "cfsim agent --host",
            "cfsim agent -h",
            "cfsim agent --version",
            "cfsim agent -- p.cf",
            "cfsim promises -p json -p cf",
            "cfsim promises --show-varsx",
            "cfsim promises --show-vars --show-vars",
            "cfsim promises -b main",
            "cfsim promises --help",
            "cfsim fleet -f x",
            "cfsim",
        ] {
            assert!(
                plain_args::plain_subcommand(&argv(line)).is_none(),
                "{line}"
            );
        }
    }
}
