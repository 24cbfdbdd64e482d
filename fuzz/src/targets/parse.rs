//! `parse`: the policy parser with error recovery, every parse-time and post-parse check
//! (`load::check_all`), the rendered diagnostics, and both printers (`-p json`, `-p cf`).

use cfsim::load::{check_all, Loaded};
use cfsim::source::SourceFile;
use cfsim::syntax::{json, parse_file_recovering, print};

use super::{gen, Target};
use crate::rng::Rng;

pub const TARGET: Target = Target {
    name: "parse",
    about: "policy parser, checks (load::check_all), diagnostics and printers",
    dict: DICT,
    generate_percent: 30,
    max_ops: 6,
    generate,
    run,
};

pub(crate) const DICT: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "\"",
    "'",
    "`",
    ";",
    ",",
    "::",
    ":",
    "=>",
    "->",
    "$(",
    "${",
    "@(",
    "@{",
    "]",
    "[",
    "#",
    "bundle agent x\n{\n",
    "body common control\n{\n",
    "promise agent p\n{\n",
    "@if minimum_version(3.1)\n",
    "@if feature(yaml)\n",
    "@else\n",
    "@endif\n",
    "vars:\n",
    "classes:\n",
    "reports:\n",
    "methods:\n",
    "linux::\n",
    "\"a\"::\n",
    "\"p\" string => \"v\";\n",
    "||",
    "!!",
    "&&",
    "x(y(z(",
    "{ { {",
    "$($(",
    "slist => @(x)",
    "int => \"1.5\"",
    "data => '{\"a\": [1]}'",
    "data => '---\na: 1'",
    "usebundle => x(\"a\")",
    "inputs => { \"a.cf\" }",
    "bundlesequence => { @(x) }",
    "edit_line",
    "body ",
    "bundle ",
    "inherit_from => x;",
    "meta:\n",
    "\"tags\" slist => { \"a\" };",
];

fn generate(rng: &mut Rng) -> Vec<u8> {
    gen::policy(rng).into_bytes()
}

fn run(input: &[u8]) {
    let text = String::from_utf8_lossy(input).into_owned();
    let parsed = parse_file_recovering("./fuzz.cf", &text);
    let file = SourceFile::with_lines("./fuzz.cf", text, parsed.lines);
    let loaded = Loaded {
        file,
        policy: parsed.policy,
        diags: parsed.diags,
        recovered: parsed.recovered,
    };
    let files = std::slice::from_ref(&loaded);
    let report = check_all(files);
    if report.has_errors() {
        let _ = report.render(files);
    } else {
        for (_, d) in &report.diags {
            let _ = d.render(&loaded.file);
        }
    }
    let _ = json::policy_to_json_text(&loaded.policy, &loaded.file.lines);
    let _ = print::policy_to_cf(&loaded.policy);
}
