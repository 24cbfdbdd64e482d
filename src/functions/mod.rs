//! Built-in functions: the ONE table (name → implementation + purity), central argument checks against
//! the generated signatures (`syntax::tables`), the call protocol (unresolved arguments skip the call,
//! failures log the agent's error) and the per-run cache of impure functions. One file per family.

pub mod agent_ip;
pub mod args;
pub mod cache;
pub mod callexpr;
pub mod classes;
pub mod community;
pub mod data;
pub mod files;
pub mod hosts;
pub mod inventory;
pub mod json;
pub mod lists;
pub mod math;
pub mod mustache;
pub mod net;
pub mod prng;
pub mod readers;
pub mod regex;
pub mod sorting;
pub mod strings;
pub mod system;
pub mod time;
pub mod vars;

use crate::expr::env::EvalEnv;
use crate::expr::host::HostEnv;
use crate::syntax::tables::{self, DataType, FnSpec};
use crate::value::Value;

/// Most elements a function builds into one list (`string_split` with empty matches, `expandrange`,
/// …); beyond it the call fails with an error instead of exhausting memory.
pub const MAX_ELEMENTS: usize = 100_000;

/// Longest string a function builds (the default `--max-value-bytes`): `string_replace`,
/// `regex_replace` and `string_mustache`, whose results can grow by a product of their inputs, fail
/// with an error instead of exhausting memory.
pub const MAX_RESULT_BYTES: usize = 64 << 20;

/// Log level of a message a function emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Info,
    Verbose,
    /// A command's own output, passed through to the agent's terminal as it is (`returnszero` with a
    /// shell).
    Output,
    /// Same, shown only with `-I`/`-v` (`returnszero` with `noshell`).
    OutputInform,
}

/// One message a function emitted (printed by the agent as `   error: <message>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    pub level: Level,
    pub message: String,
}

/// One evaluated argument. `naked` is the variable name when the source argument was exactly `@(x)` or
/// `$(x)` (collecting functions take the variable itself, not its expansion).
#[derive(Debug, Clone, PartialEq)]
pub struct FnArg {
    pub value: Value,
    pub naked: Option<String>,
}

impl FnArg {
    /// A plain string argument.
    pub fn str(s: impl Into<String>) -> FnArg {
        FnArg {
            value: Value::str(s),
            naked: None,
        }
    }

    /// The scalar text of the argument (lists and data give an empty string).
    pub fn text(&self) -> &str {
        self.value.as_scalar().unwrap_or("")
    }
}

/// The function failed; the reason was logged in `CallCtx::log`. The promise using it is not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FnFail;

/// Result of one implementation.
pub type FnResult = Result<Value, FnFail>;

/// What a function sees while it runs.
pub struct CallCtx<'a> {
    pub env: &'a mut dyn EvalEnv,
    pub host: &'a dyn HostEnv,
    pub log: Vec<LogLine>,
    /// True in cf-agent (the default), false in cf-promises: a few messages differ between the tools.
    pub agent: bool,
    /// A function stopped at one of cfsim's limits (its result is incomplete): the run's exit code
    /// becomes `EXIT_LIMIT`.
    pub limit_hit: bool,
    /// The agent runs with `--simulate`: calls of [`UNSAFE_FUNCTIONS`], nested ones too, are not made.
    pub simulate: bool,
    /// The run's `--max-list-length`: functions that copy whole tables (`datastate()`) refuse a result
    /// holding more values, before building it.
    pub max_values: usize,
    /// Value units the run may still produce (`--max-total-values`): each function result uses its
    /// size; at zero calls are refused. `work_said`: the refusal was reported (once a run).
    pub work_left: u64,
    pub work_said: bool,
}

/// Functions the agent does not call in `--simulate` mode (they may change the machine).
pub const UNSAFE_FUNCTIONS: &[&str] = &[
    "execresult",
    "execresult_as_data",
    "returnszero",
    "usemodule",
    "selectservers",
    "remotescalar",
    "remoteclassesmatching",
    "hubknowledge",
];

impl<'a> CallCtx<'a> {
    /// A context with an empty log.
    pub fn new(env: &'a mut dyn EvalEnv, host: &'a dyn HostEnv) -> CallCtx<'a> {
        CallCtx {
            env,
            host,
            log: Vec::new(),
            agent: true,
            limit_hit: false,
            simulate: false,
            max_values: usize::MAX,
            work_left: u64::MAX,
            work_said: false,
        }
    }

    /// Logs an error and returns the failure.
    pub fn fail(&mut self, message: impl Into<String>) -> FnFail {
        self.error(message);
        FnFail
    }

    /// Logs an error without failing.
    pub fn error(&mut self, message: impl Into<String>) {
        self.log.push(LogLine {
            level: Level::Error,
            message: message.into(),
        });
    }

    /// Logs a warning.
    pub fn warning(&mut self, message: impl Into<String>) {
        self.log.push(LogLine {
            level: Level::Warning,
            message: message.into(),
        });
    }

    /// Logs an info message (shown with `-I`).
    pub fn info(&mut self, message: impl Into<String>) {
        self.log.push(LogLine {
            level: Level::Info,
            message: message.into(),
        });
    }

    /// Logs a verbose message.
    pub fn verbose(&mut self, message: impl Into<String>) {
        self.log.push(LogLine {
            level: Level::Verbose,
            message: message.into(),
        });
    }
}

/// A function implementation.
pub type FnImpl = fn(&mut CallCtx<'_>, &[FnArg]) -> FnResult;

/// One row of the table.
pub struct FnDef {
    pub name: &'static str,
    /// False for functions that look at the machine or the clock: their results are cached per run.
    pub pure: bool,
    pub f: FnImpl,
}

/// Shorthand used by the family files to declare rows.
pub const fn def(name: &'static str, pure: bool, f: FnImpl) -> FnDef {
    FnDef { name, pure, f }
}

/// Every family's rows.
const FAMILIES: &[&[FnDef]] = &[
    strings::FUNCTIONS,
    lists::FUNCTIONS,
    data::FUNCTIONS,
    regex::FUNCTIONS,
    classes::FUNCTIONS,
    vars::FUNCTIONS,
    math::FUNCTIONS,
    files::FUNCTIONS,
    readers::FUNCTIONS,
    system::FUNCTIONS,
    net::FUNCTIONS,
    hosts::FUNCTIONS,
    inventory::FUNCTIONS,
    time::FUNCTIONS,
    mustache::FUNCTIONS,
    community::FUNCTIONS,
];

/// The 3.21 functions cfsim does not implement, and why.
pub const NOT_IMPLEMENTED: &[(&str, &str)] = &[
    ("selectservers", "connects to servers over the network"),
    ("readtcp", "opens TCP connections"),
];

/// Implemented functions whose answer depends on a choice the user makes, shown by `cfsim functions`.
pub const NOTES: &[(&str, &str)] = &[
    ("execresult", LOCAL_COMMANDS),
    ("execresult_as_data", LOCAL_COMMANDS),
    ("returnszero", LOCAL_COMMANDS),
    ("usemodule", LOCAL_COMMANDS),
    ("ldaparray", COMMUNITY),
    ("ldaplist", COMMUNITY),
    ("ldapvalue", COMMUNITY),
    ("regldap", COMMUNITY),
    ("url_get", COMMUNITY),
    ("hubknowledge", COMMUNITY),
    ("remotescalar", COMMUNITY),
    ("remoteclassesmatching", COMMUNITY),
];

/// Functions answered as the reference community build answers them.
const COMMUNITY: &str =
    "as the community build: Enterprise/libcurl-only, answers without any network";

/// Why command-running functions fail on the local host by default.
const LOCAL_COMMANDS: &str =
    "runs its command on the local host only with --exec (cfsim never runs a \
     program on its own); a simulated host answers from its profile";

/// Iterates the whole table.
pub fn table() -> impl Iterator<Item = &'static FnDef> {
    FAMILIES.iter().flat_map(|f| f.iter())
}

/// Looks up an implemented function (through a name index built once per process: a linear walk of
/// the table cost 1.5% of a masterfiles fleet node; the first definition of a name wins, as the walk).
pub fn lookup(name: &str) -> Option<&'static FnDef> {
    type Index =
        std::collections::HashMap<&'static str, &'static FnDef, crate::fasthash::FastState>;
    static INDEX: std::sync::OnceLock<Index> = std::sync::OnceLock::new();
    INDEX
        .get_or_init(|| {
            let mut m = Index::default();
            for d in table() {
                m.entry(d.name).or_insert(d);
            }
            m
        })
        .get(name)
        .copied()
}

/// Whether an unresolved argument skips the call this pass (false for 3-argument `ifelse` and for the
/// mapping functions, which see `$(this)` unexpanded).
pub fn skips_on_unresolved(name: &str, nargs: usize) -> bool {
    !matches!(
        (name, nargs),
        ("ifelse", 3) | ("maplist", _) | ("maparray", _) | ("mapdata", _)
    )
}

/// Minimum argument counts of variadic functions (the signature table lists their parameters but not
/// how many are required), with the agent's message when it has one.
const MIN_ARGS: &[(&str, usize, Option<&str>)] = &[
    ("basename", 1, Some("Function basename requires a filename as first arg!")),
    ("classfiltercsv", 3, None),
    ("classesmatching", 1, Some("Fatal CFEngine error: Function 'classesmatching' requires at least one argument")),
    ("classmatch", 1, Some("Fatal CFEngine error: Function 'classmatch' requires at least one argument")),
    ("countclassesmatching", 1, Some("Fatal CFEngine error: Function 'countclassesmatching' requires at least one argument")),
    ("variablesmatching", 1, Some("Fatal CFEngine error: Function 'variablesmatching' requires at least one argument")),
    ("variablesmatching_as_data", 1, Some("Fatal CFEngine error: Function 'variablesmatching_as_data' requires at least one argument")),
    ("eval", 1, Some("Fatal CFEngine error: in built-in FnCall eval: missing first argument, an evaluation input")),
    ("execresult", 1, None),
    ("execresult_as_data", 1, None),
    ("findfiles_up", 2, None),
    ("format", 1, None),
    ("getclassmetatags", 1, None),
    ("getvariablemetatags", 1, None),
    ("iprange", 1, None),
    ("isipinsubnet", 1, None),
    ("readcsv", 1, None),
    ("readenvfile", 1, None),
    ("readfile", 1, None),
    ("readjson", 1, None),
    ("readyaml", 1, None),
    ("search_up", 2, None),
    ("sort", 1, None),
    ("string_mustache", 1, None),
    ("type", 1, Some("Function type requires variable identifier as first argument")),
    ("validjson", 1, Some("Function 'validjson' requires one argument")),
];

/// Checks arity and argument types against the generated signature, with the agent's messages.
pub fn check_args(ctx: &mut CallCtx<'_>, spec: &FnSpec, args: &[FnArg]) -> Result<(), FnFail> {
    let n = spec.params.len();
    if let Some((_, min, msg)) = MIN_ARGS.iter().find(|(f, _, _)| *f == spec.name) {
        if args.len() < *min {
            if let Some(m) = msg {
                ctx.error(*m);
            }
            return Err(FnFail);
        }
    }
    if !spec.variadic && args.len() != n {
        return Err(ctx.fail(format!(
            "Arguments to function '{}' do not tally. Expected {} not {}",
            spec.name,
            n,
            args.len()
        )));
    }
    for (p, a) in spec.params.iter().zip(args) {
        let Some(text) = a.value.as_scalar() else {
            continue;
        };
        let problem = match p.ty {
            DataType::Int => args::check_int_range(text, p.range),
            DataType::Real => args::check_real_range(text, p.range),
            DataType::Option => args::check_option(text, p.range),
            _ => None,
        };
        if let Some(problem) = problem {
            if problem == "Cannot parse value as integer" {
                ctx.error(format!("Failed to parse integer number: {text}"));
            }
            return Err(ctx.fail(format!(
                "Fatal CFEngine error: In function '{}', error in variable '{}', '{}'",
                spec.name, text, problem
            )));
        }
    }
    Ok(())
}

/// Outcome of calling a function by name.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    Value(Value),
    /// Logged failure: the promise is not kept.
    Failed,
    /// The function does not exist in 3.21 (`Unknown function`).
    Unknown,
    /// A 3.21 function this crate does not implement.
    NotImplemented,
}

/// Calls `name` with evaluated arguments: signature check, then the implementation.
pub fn call(ctx: &mut CallCtx<'_>, name: &str, args: &[FnArg]) -> CallOutcome {
    let Some(spec) = tables::function(name) else {
        return CallOutcome::Unknown;
    };
    let Some(def) = lookup(name) else {
        ctx.error(format!("cfsim does not implement the function '{name}'"));
        return CallOutcome::NotImplemented;
    };
    if check_args(ctx, spec, args).is_err() {
        return CallOutcome::Failed;
    }
    match (def.f)(ctx, args) {
        Ok(v) => CallOutcome::Value(v),
        Err(FnFail) => CallOutcome::Failed,
    }
}

/// The coverage listing of `cfsim functions`: every 3.21 function with implemented / not implemented.
pub fn coverage_report() -> String {
    let mut out = String::new();
    let mut done = 0;
    for spec in tables::functions() {
        let imp = lookup(spec.name).is_some();
        if imp {
            done += 1;
        }
        let status = if imp {
            match NOTES.iter().find(|(n, _)| *n == spec.name) {
                Some((_, note)) => format!("implemented: {note}"),
                None => "implemented".to_string(),
            }
        } else {
            let why = NOT_IMPLEMENTED
                .iter()
                .find(|(n, _)| *n == spec.name)
                .map_or("", |(_, w)| w);
            format!("not implemented: {why}")
        };
        out.push_str(&format!(
            "{:<28} {:<8} {:<14} {}\n",
            spec.name,
            spec.returns.name(),
            spec.category,
            status
        ));
    }
    out.push_str(&format!(
        "{done} of {} functions implemented\n",
        tables::functions().len()
    ));
    out
}
