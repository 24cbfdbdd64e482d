//! `data`: the data parsers of the functions — JSON (`parsejson`/`readjson`, both writers), YAML
//! (`parseyaml`/`readyaml`, `data => '---'`), CSV (`readcsv`), env files (`readenvfile`), module data
//! files — directly and through the functions that read the input as a file of the in-memory host.

use cfsim::expr::memenv::MemEnv;
use cfsim::functions::cache::FnCache;
use cfsim::functions::callexpr::{eval_call, parse_call};
use cfsim::functions::{data, json, readers, CallCtx};
use cfsim::value::Value;

use super::{env, gen, Target};
use crate::rng::Rng;

pub const TARGET: Target = Target {
    name: "data",
    about: "JSON, YAML, CSV and env-file parsers and the functions that read them",
    dict: DICT,
    generate_percent: 30,
    max_ops: 4,
    generate,
    run,
};

const DICT: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "null",
    "true",
    "false",
    "\\u",
    "\\ud800",
    "\\\"",
    "---\n",
    "...\n",
    "- ",
    ": ",
    "? ",
    "&a ",
    "*a",
    "!!str ",
    "!!binary ",
    "|\n",
    ">\n",
    "  ",
    "#",
    "%YAML 1.2\n",
    "<<: *a\n",
    "'",
    "\"\"",
    "\r\n",
    "export ",
    "=",
    "$(s)",
    "${s}",
    "1e5",
    "0x1F",
    "0o7",
    ".inf",
    "~",
    "yes",
    "on",
];

fn csv(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..1 + rng.small(5) {
        let cells: Vec<&str> = (0..1 + rng.small(4))
            .map(|_| rng.pick(&["a", "\"b,c\"", "\"x\"\"y\"", "", "1", "\"", "é", " sp "]))
            .collect();
        s.push_str(&cells.join(","));
        s.push_str(rng.pick(&["\r\n", "\n", "\r\n", ""]));
    }
    s
}

fn envfile(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..1 + rng.small(5) {
        let line = match rng.below(6) {
            0 => "# comment".to_string(),
            1 => format!(
                "export {}={}",
                rng.pick(&["A", "B_2", "x"]),
                rng.pick(&["1", "\"q w\"", "'s'", ""])
            ),
            2 => "novalue".to_string(),
            3 => "=x".to_string(),
            _ => format!(
                "{}={}",
                rng.pick(&["A", "PATH", "k.k", "é"]),
                rng.pick(&["v", "\"a\\\"b\"", "'x", "a=b"])
            ),
        };
        s.push_str(&line);
        s.push('\n');
    }
    s
}

fn yaml(rng: &mut Rng, depth: usize) -> String {
    let ind = "  ".repeat(depth);
    let mut s = String::new();
    for _ in 0..1 + rng.small(4) {
        match rng.below(6) {
            0 if depth < 4 => {
                s.push_str(&format!(
                    "{ind}{}:\n",
                    rng.pick(&["a", "b", "\"q\"", "? k", "&x k"])
                ));
                s.push_str(&yaml(rng, depth + 1));
            }
            1 if depth < 4 => {
                s.push_str(&format!("{ind}-\n"));
                s.push_str(&yaml(rng, depth + 1));
            }
            2 => s.push_str(&format!(
                "{ind}- {}\n",
                rng.pick(&["1", "yes", "~", "*x", "'s'", "[1, 2]", "{a: b}"])
            )),
            _ => s.push_str(&format!(
                "{ind}{}: {}\n",
                rng.pick(&["a", "b", "c", "<<", "1"]),
                rng.pick(&[
                    "1", "1.5", "on", "null", "\"s\"", "*x", "&x v", "|", "[a, [b]]", "!!int 3"
                ])
            )),
        }
    }
    s
}

fn generate(rng: &mut Rng) -> Vec<u8> {
    match rng.below(4) {
        0 => gen::json(rng, 0),
        1 => format!("---\n{}", yaml(rng, 0)),
        2 => csv(rng),
        _ => envfile(rng),
    }
    .into_bytes()
}

/// Calls that read the input as a file, or expand it from a variable.
const CALLS: &[&str] = &[
    "readjson(\"/in.json\")",
    "readjson(\"/in.json\", \"100\")",
    "readyaml(\"/in.yaml\")",
    "readcsv(\"/in.csv\")",
    "readenvfile(\"/in.env\")",
    "readdata(\"/in.json\", \"auto\")",
    "readdata(\"/in.yaml\", \"auto\")",
    "readdata(\"/in.csv\", \"CSV\")",
    "readdata(\"/in.env\", \"ENV\")",
    "readstringlist(\"/in.txt\", \"#[^\\n]*\", \"\\n\", \"100\", \"10000\")",
    "readintlist(\"/in.txt\", \"#[^\\n]*\", \"[\\s,]+\", \"100\", \"10000\")",
    "readfile(\"/in.txt\", \"1000\")",
    "parsejson(\"$(input)\")",
    "parseyaml(\"$(input)\")",
    "validjson(\"$(input)\")",
    "storejson(parsejson(\"$(input)\"))",
    "string_mustache(\"$(input)\", \"@(d)\")",
    "format(\"%S\", parsejson(\"$(input)\"))",
];

fn run(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    if let Ok(j) = json::parse(&text) {
        let _ = json::write_compact(&j);
        let _ = json::write_pretty(&j);
    }
    let _ = cfsim::yaml::parse(&text);
    let _ = readers::parse_csv(&text);
    let _ = readers::parse_env(&text);
    let _ = cfsim::module::protocol::load_data_file("/x/d.json", Some(&text));
    let host = env::mem_host(Some(input));
    let mut e: MemEnv = env::mem_env();
    e.set("input", Value::str(text.as_ref()));
    {
        let mut ctx = CallCtx::new(&mut e, &host);
        let _ = data::parse_container(&mut ctx, &text);
        let _ = data::parse_yaml_container(&mut ctx, &text);
    }
    let mut cache = FnCache::default();
    for c in CALLS {
        if let Ok(call) = parse_call(c) {
            let mut ctx = CallCtx::new(&mut e, &host);
            let _ = eval_call(&mut ctx, &call, &mut cache);
        }
    }
}
