//! `agent`: end to end — a small policy written to a file of the worker, loaded and checked with
//! `sim::Policy::load`, and run with `sim::simulate_policy` for the profile
//! `policies/hosts/web1-oslo-debian.json`, with low limits (call depth 16, 1,000 iterations per
//! promise, 1 MiB values, 1,000-element lists, 500 bundle calls: a run may cost their product, which
//! is bounded but not what the target looks for); one input in four also asks for the result
//! document, `-I` output and the evaluated classes and variables.

use std::path::PathBuf;
use std::sync::OnceLock;

use cfsim::eval::Limits;
use cfsim::host::Host;
use cfsim::sim::{simulate_policy, Options, Policy};

use super::{gen, Target};
use crate::rng::Rng;

pub const TARGET: Target = Target {
    name: "agent",
    about: "end to end: generated policy loaded and simulated for a host profile (low limits)",
    dict: DICT,
    generate_percent: 60,
    max_ops: 2,
    generate,
    run,
};

const DICT: &[&str] = &[
    "bundle agent main\n{\n",
    "vars:\n",
    "classes:\n",
    "reports:\n",
    "methods:\n",
    "}\n",
    ";\n",
    "\"s\" string => \"$(s)$(s)\";\n",
    "\"l\" slist => { @(l), @(l) };\n",
    "usebundle => main;",
    "usebundle => b($(l));",
    "\"x\" expression => \"any\";\n",
    "\"$(l)\";\n",
    "if => \"any\";",
    "string => concat(\"",
    "data => parsejson('",
    "slist => splitstring(\"",
    "@(l)",
    "$(s)",
    "$(main.s)",
    "any::\n",
    "!any::\n",
    "$(sys.fqhost)",
    "$(this.promiser)",
    "classes => if_ok(\"x\")",
    "depends_on",
];

const BUNDLE_ARGS: &[&str] = &["", "(x)", "(x, y)"];

/// Calls that return a string, an slist and a data container, with arguments of the right types.
const STRING_CALLS: &[&str] = &[
    "concat(\"a\", \"$(s)\", \"$(l)\")",
    "format(\"%s-%d-%S\", \"$(s)\", \"3\", d)",
    "join(\",\", l)",
    "canonify(\"$(s) $(l)\")",
    "string_upcase(\"$(s)\")",
    "nth(l, \"1\")",
    "nth(d, \"a\")",
    "storejson(d)",
    "ifelse(\"any\", \"a\", \"b\")",
    "length(l)",
    "string_mustache(\"{{#list}}{{.}}{{/list}}{{a}}\", d)",
    "string_replace(\"$(s)\", \"a\", \"$(s)$(s)\")",
    "eval(\"1+$(n)\", \"math\", \"infix\")",
    "readfile(\"/etc/hostname\", \"100\")",
    "hash(\"$(s)\", \"sha256\")",
    "string_head(\"$(s)\", \"-1\")",
    "execresult(\"/bin/echo hi\", \"noshell\")",
    "getenv(\"HOME\", \"10\")",
    "sum(l)",
    "classify(\"$(s)\")",
    "strftime(\"localtime\", \"%F\", now())",
];
const LIST_CALLS: &[&str] = &[
    "splitstring(\"$(s),b,c\", \",\", \"10\")",
    "getindices(d)",
    "getvalues(d)",
    "sort(l, \"lex\")",
    "maplist(\"x$(this)\", l)",
    "expandrange(\"[1-20]\", \"2\")",
    "unique(l)",
    "sublist(l, \"head\", \"2\")",
    "difference(l, l)",
    "classesmatching(\"a.*\")",
    "reverse(l)",
    "grep(\"a.*\", l)",
    "variablesmatching(\".*main.*\")",
    "shuffle(l, \"seed\")",
    "string_split(\"$(s) $(s)\", \" \", \"5\")",
    "lsdir(\"/etc\", \".*\", \"false\")",
    "findfiles(\"/etc/*\")",
    "getusers(\"\", \"\")",
    "readstringlist(\"/etc/hosts\", \"#.*\", \"\\n\", \"10\", \"1000\")",
];
const DATA_CALLS: &[&str] = &[
    "mergedata(d, \"[1,2]\")",
    "data_expand(d)",
    "parsejson('{\"a\": \"$(s)\", \"list\": [1, 2]}')",
    "mapdata(\"none\", \"$(this.k)=$(this.v)\", d)",
    "readjson(\"/etc/hosts\", \"1k\")",
    "parseyaml('a: [1, 2]')",
    "data_regextract(\"(?<x>a+)\", \"$(s)aaa\")",
    "getclassmetatags(\"c\")",
    "datastate()",
    "bundlestate(\"main\")",
    "variablesmatching_as_data(\".*\")",
    "readcsv(\"/etc/hosts\")",
];

fn vars_promise(rng: &mut Rng) -> String {
    let name = rng.pick(&["s", "l", "d", "n", "arr[$(l)]", "s$(l)", "t", "big"]);
    match rng.below(8) {
        0 => format!("      \"{name}\" slist => {{ \"a\", \"$(s)\", @(l) }};\n"),
        1 => format!(
            "      \"{name}\" data => parsejson('{}');\n",
            gen::json(rng, 0).replace('\'', "")
        ),
        2 => format!(
            "      \"{name}\" int => \"{}\";\n",
            rng.pick(&["1", "-5", "1k", "99999999999", "$(n)"])
        ),
        3 => format!("      \"{name}\" string => {};\n", rng.pick(STRING_CALLS)),
        4 => format!("      \"{name}\" slist => {};\n", rng.pick(LIST_CALLS)),
        5 => format!("      \"{name}\" data => {};\n", rng.pick(DATA_CALLS)),
        _ => format!(
            "      \"{name}\" string => \"{}\";\n",
            gen::text(rng).replace('"', "")
        ),
    }
}

fn promise(rng: &mut Rng, kind: &str, bundles: &[String]) -> String {
    let guard = if rng.one_in(4) {
        format!("    {}::\n", gen::plain_class_expr(rng, 0))
    } else {
        String::new()
    };
    let cond = rng.pick(&[
        "",
        ",\n        if => \"any\"",
        ",\n        unless => \"c\"",
        ",\n        if => \"$(s)\"",
        ",\n        ifvarclass => \"c_$(l)\"",
    ]);
    let body = match kind {
        "vars" => vars_promise(rng),
        "classes" => match rng.below(3) {
            0 => format!(
                "      \"{}\" expression => \"{}\"{cond};\n",
                rng.pick(&["c", "x", "c_$(l)", "web"]),
                gen::class_expr(rng, 2)
            ),
            1 => format!(
                "      \"{}\" or => {{ \"{}\", \"{}\" }};\n",
                rng.pick(&["c", "x"]),
                gen::plain_class_expr(rng, 1),
                gen::plain_class_expr(rng, 1)
            ),
            _ => format!(
                "      \"{}\" expression => {};\n",
                rng.pick(&["c", "x"]),
                rng.pick(&[
                    "classmatch(\"a.*\")",
                    "isvariable(\"s\")",
                    "strcmp(\"$(s)\", \"hello\")",
                    "regcmp(\".*\", \"$(l)\")",
                    "fileexists(\"/etc/hosts\")"
                ])
            ),
        },
        "methods" => {
            let callee = bundles
                .get(rng.below(bundles.len()))
                .map(String::as_str)
                .unwrap_or("main");
            format!(
                "      \"m\" usebundle => {callee}{}{cond};\n",
                rng.pick(&["", "(\"a\")", "($(l))", "(@(l))", "(\"a\", \"b\")"])
            )
        }
        _ => format!(
            "      \"{}\"{};\n",
            gen::text(rng).replace('"', ""),
            cond.trim_start_matches(',')
        ),
    };
    guard + &body
}

fn generate(rng: &mut Rng) -> Vec<u8> {
    let names: Vec<String> = (0..1 + rng.small(3))
        .map(|i| {
            if i == 0 {
                "main".into()
            } else {
                format!("b{i}")
            }
        })
        .collect();
    let mut out = String::from("body common control\n{\n  bundlesequence => { \"main\" };\n}\n");
    for name in &names {
        let args = if name == "main" {
            ""
        } else {
            rng.pick(BUNDLE_ARGS)
        };
        let common = rng.one_in(8);
        out.push_str(&format!(
            "bundle {} {name}{args}\n{{\n",
            if common { "common" } else { "agent" }
        ));
        for kind in ["vars", "classes", "methods", "reports"] {
            if (rng.one_in(3) && kind != "vars") || (kind == "methods" && common) {
                continue;
            }
            out.push_str(&format!("  {kind}:\n"));
            for _ in 0..1 + rng.small(3) {
                out.push_str(&promise(rng, kind, &names));
            }
        }
        out.push_str("}\n");
    }
    out.into_bytes()
}

fn host() -> &'static Option<Host> {
    static HOST: OnceLock<Option<Host>> = OnceLock::new();
    HOST.get_or_init(|| {
        let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../policies/hosts/web1-oslo-debian.json");
        cfsim::host::load_host(&p.to_string_lossy()).ok()
    })
}

/// The policy file of this worker (one per process: inputs run one at a time).
fn policy_path() -> &'static PathBuf {
    static P: OnceLock<PathBuf> = OnceLock::new();
    P.get_or_init(|| {
        let d = std::env::temp_dir().join("cfsim-fuzz-agent");
        let _ = std::fs::create_dir_all(&d);
        d.join(format!("promises-{}.cf", std::process::id()))
    })
}

fn run(input: &[u8]) {
    let Some(host) = host() else {
        panic!("the host profile policies/hosts/web1-oslo-debian.json does not load");
    };
    let path = policy_path();
    if std::fs::write(path, input).is_err() {
        return;
    }
    let loaded = Policy::load(&path.to_string_lossy());
    let _ = std::fs::remove_file(path);
    let Ok(policy) = loaded else {
        return;
    };
    // one input in four also asks for the result document, `-I` and the evaluated classes and
    // variables (they cost a third more per run)
    let full = input.len().is_multiple_of(4);
    let o = Options {
        file: path.to_string_lossy().into_owned(),
        inform: full,
        show_classes: full.then(String::new),
        show_vars: full.then(String::new),
        result_json: full.then(|| "-".into()),
        limits: Some(Limits {
            max_call_depth: 16,
            max_iterations: 1000,
            module_timeout_secs: 1,
            max_value_bytes: 1 << 20,
            max_list_length: 1_000,
            max_bundle_calls: 500,
            max_total_values: 1 << 20,
        }),
        ..Options::default()
    };
    let _ = simulate_policy(&policy, host, &o);
}
