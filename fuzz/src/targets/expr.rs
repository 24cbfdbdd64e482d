//! `expr`: class expressions (parse and evaluate), variable expansion (`$(x)`, `${x}`, nested and
//! indexed references), implicit iteration over lists (bounded bindings) and variable-reference
//! parsing, on every line of the input, in the in-memory environment of [`super::env`].

use std::sync::OnceLock;

use cfsim::expr::classexpr;
use cfsim::expr::expand::{expand_bound, expand_scalar, has_reference, naked_list_name};
use cfsim::expr::iterate;
use cfsim::expr::memenv::MemEnv;
use cfsim::expr::varref::VarRef;

use super::{env, gen, Target};
use crate::rng::Rng;

pub const TARGET: Target = Target {
    name: "expr",
    about: "class expressions, variable expansion and implicit iteration",
    dict: DICT,
    generate_percent: 40,
    max_ops: 4,
    generate,
    run,
};

const DICT: &[&str] = &[
    "$(",
    "${",
    "@(",
    "@{",
    ")",
    "}",
    "[",
    "]",
    "(",
    "!",
    "&",
    "|",
    "||",
    ".",
    "::",
    ":",
    "$(s)",
    "$(l)",
    "@(l)",
    "$(d[a])",
    "$(arr[$(s)])",
    "$($(s))",
    "any",
    "linux",
    "!any",
    "a.b",
    "default:",
    "this.",
    "sys.",
    "const.",
    "$(big)",
    "$(empty)",
    "$(l)$(l2)$(big)",
];

fn generate(rng: &mut Rng) -> Vec<u8> {
    let mut out = String::new();
    for _ in 0..1 + rng.small(5) {
        if rng.one_in(2) {
            out.push_str(&gen::class_expr(rng, 0));
        } else {
            out.push_str(&gen::text(rng));
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
    let env = base_env();
    let lines: Vec<&str> = text.split('\n').take(64).collect();
    for line in &lines {
        if let Ok(e) = classexpr::parse(line) {
            let _ = e.eval(env);
        }
        let _ = classexpr::eval_str(line, env);
        let _ = expand_scalar(line, env);
        let _ = has_reference(line);
        let _ = naked_list_name(line);
        let _ = iterate::references_of(&[line]);
        let _ = VarRef::parse(line).lval();
        let _ = cfsim::expr::canonify(line);
    }
    if let Ok(bindings) = iterate::bindings(&iterate::references_of(&lines), env, 1000) {
        for b in bindings.iter().take(50) {
            for line in &lines {
                let _ = expand_bound(line, env, b);
            }
        }
    }
}
