//! `parse-diff`: the fast parser (`syntax::fast`) against the normative pest parser + lowering on the
//! same input: the fast path must decline (`None`) or give exactly pest's AST (spans included, through
//! `Debug`), diagnostics and `recovered` flag; a disagreement is a panic, hence a finding.

use cfsim::syntax::{parse_with, Engine};

use super::{gen, parse, Target};
use crate::rng::Rng;

pub const TARGET: Target = Target {
    name: "parse-diff",
    about: "fast parser vs pest parser + lowering: same AST, spans and diagnostics",
    dict: parse::DICT,
    generate_percent: 30,
    max_ops: 6,
    generate,
    run,
};

fn generate(rng: &mut Rng) -> Vec<u8> {
    gen::policy(rng).into_bytes()
}

fn run(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let Some(fast) = parse_with("./fuzz.cf", &text, Engine::Fast) else {
        return;
    };
    let Some(pest) = parse_with("./fuzz.cf", &text, Engine::Pest) else {
        panic!("the pest engine always answers");
    };
    let dump =
        |p: &cfsim::syntax::Parsed| format!("{:?}\n{:?}\n{}", p.policy, p.diags, p.recovered);
    let (f, p) = (dump(&fast), dump(&pest));
    if f != p {
        panic!("fast parser disagrees with pest:\nfast: {f}\npest: {p}");
    }
}
