//! `functions`: function-call expressions (`join(",", getindices("d"))`) parsed and evaluated through
//! the built-in function table — argument expansion, `@(x)` passing, nested calls — on the in-memory
//! environment and host of [`super::env`] (files, directories, commands: nothing of this machine).

use std::sync::OnceLock;

use cfsim::expr::memenv::MemEnv;
use cfsim::functions::cache::FnCache;
use cfsim::functions::callexpr::{eval_call, parse_call};
use cfsim::functions::CallCtx;
use cfsim::syntax::functions_gen::FUNCTIONS;
use cfsim::syntax::tables::DataType;

use super::{env, gen, Target};
use crate::rng::Rng;

pub const TARGET: Target = Target {
    name: "functions",
    about: "function calls evaluated through the function table (in-memory host)",
    dict: DICT,
    generate_percent: 50,
    max_ops: 3,
    generate,
    run,
};

const DICT: &[&str] = &[
    "(",
    ")",
    ",",
    "\"",
    "'",
    "\\\"",
    "@(l)",
    "@(d)",
    "$(s)",
    "\"/in.json\"",
    "\"/in.csv\"",
    "\"/in.env\"",
    "\"/in.yaml\"",
    "\"/in.txt\"",
    "\"/d\"",
    "\".*\"",
    "\"1000\"",
    "\"-1\"",
    "\"99999999\"",
    "\"inf\"",
    "\"%s\"",
    "\"%99999d\"",
    "concat(",
    "join(\",\", ",
    "readjson(\"/in.json\", \"",
    "mergedata(",
    "expandrange(\"[1-",
    "format(\"",
    "string_mustache(\"",
    "sort(",
    "nth(",
    "data_expand(",
    "parsejson('",
    "parseyaml('",
    "[1-9999]",
    "{{#x}}",
    "{{/x}}",
    "\"lex\"",
    "\"int\"",
    "\"real\"",
    "\"ip\"",
];

/// An argument for a parameter of type `ty` whose range (a regex, `lo,hi`, or a menu) is `range`.
fn typed_arg(rng: &mut Rng, ty: DataType, range: &str, depth: usize) -> String {
    if depth < 2 && rng.one_in(10) {
        return typed_call(rng, depth + 1);
    }
    if rng.one_in(12) {
        return gen::arg(rng, depth + 1);
    }
    match ty {
        DataType::Int | DataType::Real => {
            let (lo, hi) = range.split_once(',').unwrap_or(("0", "100"));
            let v = match rng.below(6) {
                0 => lo.to_string(),
                1 => hi.to_string(),
                2 => rng
                    .pick(&[
                        "-1",
                        "0",
                        "1k",
                        "2M",
                        "inf",
                        "1.5",
                        "99999999999999999999",
                        "x",
                    ])
                    .to_string(),
                _ => rng.below(20).to_string(),
            };
            format!("\"{v}\"")
        }
        DataType::Option => {
            let opts: Vec<&str> = range.split(',').collect();
            format!("\"{}\"", rng.pick(&opts))
        }
        DataType::Context => format!("\"{}\"", gen::class_expr(rng, 2)),
        _ if range.starts_with("[a-zA-Z0-9_$") || range.starts_with("@[") => {
            let v = rng.pick(&[
                "l", "d", "big", "empty", "l2", "s", "arr", "nosuch", "d[list]", "main.l",
            ]);
            if range.starts_with('@') || rng.one_in(3) {
                format!("\"@({v})\"")
            } else {
                format!("\"{v}\"")
            }
        }
        _ => gen::arg(rng, depth + 1),
    }
}

/// A call of a function of the syntax table with arguments of its parameters' types.
fn typed_call(rng: &mut Rng, depth: usize) -> String {
    let spec = &FUNCTIONS[rng.below(FUNCTIONS.len())];
    let mut args: Vec<String> = spec
        .params
        .iter()
        .map(|p| typed_arg(rng, p.ty, p.range, depth))
        .collect();
    if spec.variadic {
        for _ in 0..rng.small(3) {
            args.push(gen::arg(rng, depth + 1));
        }
    }
    if rng.one_in(16) {
        args.truncate(rng.below(args.len() + 1));
    }
    format!("{}({})", spec.name, args.join(", "))
}

fn generate(rng: &mut Rng) -> Vec<u8> {
    let mut out = String::new();
    for _ in 0..1 + rng.small(2) {
        if rng.one_in(5) {
            out.push_str(&gen::call(rng, 0));
        } else {
            out.push_str(&typed_call(rng, 0));
        }
        out.push('\n');
    }
    out.into_bytes()
}

fn base_env() -> &'static MemEnv {
    static ENV: OnceLock<MemEnv> = OnceLock::new();
    ENV.get_or_init(env::mem_env)
}

fn run(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let host = env::mem_host(None);
    let mut e = base_env().clone();
    let mut cache = FnCache::default();
    for line in text.split('\n').filter(|l| !l.trim().is_empty()).take(8) {
        let Ok(call) = parse_call(line.trim()) else {
            continue;
        };
        let mut ctx = CallCtx::new(&mut e, &host);
        let _ = eval_call(&mut ctx, &call, &mut cache);
    }
}
