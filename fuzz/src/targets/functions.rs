//! `functions`: function-call expressions (`join(",", getindices("d"))`) parsed and evaluated through
//! the built-in function table — argument expansion, `@(x)` passing, nested calls — on the in-memory
//! environment and host of [`super::env`] (files, directories, commands: nothing of this machine).

use std::sync::OnceLock;

use cfsim::expr::memenv::MemEnv;
use cfsim::functions::cache::FnCache;
use cfsim::functions::callexpr::{eval_call, parse_call};
use cfsim::functions::CallCtx;

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

fn generate(rng: &mut Rng) -> Vec<u8> {
    let mut out = String::new();
    for _ in 0..1 + rng.small(2) {
        out.push_str(&gen::call(rng, 0));
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
