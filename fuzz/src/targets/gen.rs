//! Structure-aware generators shared by the targets: CFEngine policy text (bundles, bodies, promises,
//! attributes, class guards, macros), class expressions, strings with variable references, function
//! calls, and JSON/YAML-like data.

use crate::rng::Rng;

pub const CLASSES: &[&str] = &[
    "any",
    "linux",
    "debian",
    "cfengine",
    "a",
    "b",
    "c",
    "web",
    "db_server",
    "x86_64",
    "Monday",
    "Hr12",
    "am_policy_hub",
    "ipv4_10_0_0_1",
    "!any",
    "nope",
    "_x",
    "a_b",
    "default:a",
    "ns:c",
];

pub const VARS: &[&str] = &[
    "s",
    "n",
    "l",
    "d",
    "arr[k]",
    "arr[$(s)]",
    "this.promiser",
    "sys.fqhost",
    "sys.os",
    "const.n",
    "b.s",
    "default:b.s",
    "d[a]",
    "d[list][0]",
    "nested",
    "empty",
    "big",
    "l2",
    "missing",
    "i",
];

pub const FUNCTIONS: &[&str] = &[
    "concat",
    "join",
    "splitstring",
    "string_split",
    "readjson",
    "parsejson",
    "readyaml",
    "parseyaml",
    "readcsv",
    "readenvfile",
    "readdata",
    "readfile",
    "readstringlist",
    "readintlist",
    "format",
    "canonify",
    "classmatch",
    "classesmatching",
    "variablesmatching",
    "getindices",
    "getvalues",
    "mergedata",
    "data_expand",
    "data_regextract",
    "regextract",
    "regcmp",
    "strcmp",
    "and",
    "or",
    "not",
    "ifelse",
    "length",
    "nth",
    "sort",
    "reverse",
    "unique",
    "filter",
    "grep",
    "maplist",
    "mapdata",
    "maparray",
    "string_mustache",
    "expandrange",
    "iprange",
    "hostrange",
    "isvariable",
    "isgreaterthan",
    "islessthan",
    "eval",
    "int",
    "string_head",
    "string_tail",
    "string_length",
    "string_upcase",
    "string_reverse",
    "string_replace",
    "storejson",
    "format",
    "translatepath",
    "lsdir",
    "findfiles",
    "fileexists",
    "isdir",
    "filesize",
    "hash",
    "canonifyuniquely",
    "every",
    "some",
    "none",
    "countclassesmatching",
    "getfields",
    "sum",
    "product",
    "max",
    "min",
    "mean",
    "variance",
    "shuffle",
    "sublist",
    "difference",
    "intersection",
    "union",
    "network_connections",
    "execresult",
    "returnszero",
    "usemodule",
    "callstack_promisers",
    "bundlesmatching",
    "validjson",
    "validdata",
    "escape",
    "text_xform",
    "strftime",
    "on",
    "ago",
    "accumulated",
    "now",
    "laterthan",
    "splayclass",
    "selectservers",
    "peers",
    "peerleader",
    "regline",
    "regarray",
    "parsestringarray",
    "parseintarray",
    "getuid",
    "getgid",
    "userexists",
    "groupexists",
    "findprocesses",
    "processexists",
    "packagesmatching",
    "ip2host",
    "host2ip",
    "hostinnetgroup",
    "iprange",
    "isipinsubnet",
    "classify",
    "url_get",
    "getenv",
    "getusers",
    "findlocalusers",
    "get_attribute",
    "cf_version_minimum",
    "version_compare",
    "file_hash",
    "dirname",
    "basename",
    "filestat",
    "readtcp",
    "remotescalar",
    "hubknowledge",
    "regex_replace",
    "type",
    "isconnectable",
    "inline_yaml",
    "makerange",
    "string_trim",
    "string_downcase",
    "variance",
    "randomint",
    "irange",
    "rrange",
    "lastnode",
    "getclassmetatags",
    "getvariablemetatags",
    "datastate",
    "bundlestate",
    "read_module_protocol",
];

pub const PROMISE_TYPES: &[&str] = &[
    "vars",
    "classes",
    "reports",
    "methods",
    "commands",
    "files",
    "packages",
    "processes",
    "services",
    "meta",
    "defaults",
    "users",
    "storage",
    "guest_environments",
    "databases",
    "measurements",
];

pub const ATTRIBUTES: &[&str] = &[
    "string",
    "slist",
    "int",
    "real",
    "ilist",
    "rlist",
    "data",
    "expression",
    "and",
    "or",
    "not",
    "xor",
    "dist",
    "select_class",
    "scope",
    "persistence",
    "usebundle",
    "comment",
    "handle",
    "ifvarclass",
    "if",
    "unless",
    "depends_on",
    "meta",
    "policy",
    "create",
    "edit_line",
    "perms",
    "action",
    "classes",
    "contain",
    "module",
    "args",
    "inform",
    "useshell",
    "bundle_return_value_index",
    "if_match_regex",
    "friend_pattern",
    "delete",
    "copy_from",
    "depth_search",
    "file_select",
    "edit_template",
    "template_method",
    "template_data",
    "printfile",
    "report_to_file",
    "showstate",
    "lastseen",
];

/// A quoted string literal (double, single or back quotes) whose body is `body`.
pub fn quote(rng: &mut Rng, body: &str) -> String {
    match rng.below(8) {
        0 => format!("'{}'", body.replace('\'', "\\'")),
        1 => format!("`{}`", body.replace('`', "")),
        _ => format!("\"{}\"", body.replace('\\', "\\\\").replace('"', "\\\"")),
    }
}

/// A variable reference: `$(x)`, `${x}`, `@(x)`, possibly nested.
pub fn varref(rng: &mut Rng, depth: usize) -> String {
    let name = if depth < 3 && rng.one_in(6) {
        format!(
            "{}[{}]",
            rng.pick(&["arr", "d", "x"]),
            varref(rng, depth + 1)
        )
    } else if depth < 3 && rng.one_in(8) {
        varref(rng, depth + 1)
    } else {
        rng.pick(VARS).to_string()
    };
    match rng.below(6) {
        0 => format!("${{{name}}}"),
        1 => format!("@({name})"),
        2 if rng.one_in(4) => format!("$({name}"),
        _ => format!("$({name})"),
    }
}

/// A string that may hold references.
pub fn text(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..rng.small(5) {
        match rng.below(5) {
            0 | 1 => s.push_str(&varref(rng, 0)),
            2 => s.push_str(rng.pick(&[
                "a",
                "hello world",
                "/etc/hosts",
                ",",
                "x.y",
                "1",
                "é",
                "$",
                "@",
                "\\n",
            ])),
            3 => s.push_str(rng.pick(CLASSES)),
            _ => s.push_str(&rng.below(1000).to_string()),
        }
    }
    s
}

/// A class expression.
pub fn class_expr(rng: &mut Rng, depth: usize) -> String {
    if depth > 4 || rng.below(3) == 0 {
        return match rng.below(6) {
            0 => varref(rng, 0),
            1 => format!("{}_$({})", rng.pick(CLASSES), rng.pick(VARS)),
            _ => rng.pick(CLASSES).to_string(),
        };
    }
    let a = class_expr(rng, depth + 1);
    let b = class_expr(rng, depth + 1);
    match rng.below(7) {
        0 => format!("{a}|{b}"),
        1 => format!("{a}||{b}"),
        2 => format!("{a}&{b}"),
        3 => format!("{a}.{b}"),
        4 => format!("!{a}"),
        5 => format!("({a})"),
        _ => format!("{a}.!({b})"),
    }
}

/// A class expression without variable references (as an unquoted class guard must be).
pub fn plain_class_expr(rng: &mut Rng, depth: usize) -> String {
    if depth > 3 || rng.below(3) == 0 {
        return rng.pick(&CLASSES[..17]).trim_start_matches('!').to_string();
    }
    let a = plain_class_expr(rng, depth + 1);
    let b = plain_class_expr(rng, depth + 1);
    match rng.below(5) {
        0 => format!("{a}|{b}"),
        1 => format!("{a}.{b}"),
        2 => format!("!{a}"),
        3 => format!("({a})"),
        _ => format!("{a}&{b}"),
    }
}

/// A function call expression as policy writes it.
pub fn call(rng: &mut Rng, depth: usize) -> String {
    let name = rng.pick(FUNCTIONS);
    let n = rng.small(4);
    let args: Vec<String> = (0..n).map(|_| arg(rng, depth)).collect();
    format!("{name}({})", args.join(", "))
}

/// One function argument.
pub fn arg(rng: &mut Rng, depth: usize) -> String {
    match rng.below(10) {
        0 if depth < 3 => call(rng, depth + 1),
        1 => format!(
            "\"{}\"",
            rng.pick(&["@(l)", "@(d)", "@(l2)", "@(empty)", "@(big)"])
        ),
        2 => format!(
            "\"{}\"",
            rng.pick(&[".*", "(a|b)+", "^x$", "[", "a{1,99999}", "(?i)A", "\\d+"])
        ),
        3 => format!("\"{}\"", rng.below(100_000)),
        4 => format!(
            "\"{}\"",
            rng.pick(&[
                "/in.json", "/in.csv", "/in.env", "/in.yaml", "/in.txt", "/d", "/d/*", "/nope",
                "/d/**"
            ])
        ),
        5 => format!("'{}'", json(rng, 0).replace('\'', "")),
        6 => rng
            .pick(&[
                "\"\"",
                "\",\"",
                "\"\\n\"",
                "\"%s %d\"",
                "\"{{#x}}{{.}}{{/x}}\"",
            ])
            .to_string(),
        7 => format!("\"{}\"", class_expr(rng, 2)),
        _ => {
            let t = text(rng);
            quote(rng, &t)
        }
    }
}

/// A JSON text (sometimes not quite valid).
pub fn json(rng: &mut Rng, depth: usize) -> String {
    if depth > 4 {
        return "1".into();
    }
    match rng.below(9) {
        0 => {
            let n = rng.small(4);
            let items: Vec<String> = (0..n).map(|_| json(rng, depth + 1)).collect();
            format!("[{}]", items.join(","))
        }
        1 | 2 => {
            let n = rng.small(4);
            let items: Vec<String> = (0..n)
                .map(|_| {
                    format!(
                        "\"{}\": {}",
                        rng.pick(&["a", "b", "list", "k", "", "é", "a.b", "0"]),
                        json(rng, depth + 1)
                    )
                })
                .collect();
            format!("{{{}}}", items.join(", "))
        }
        3 => rng.pick(&["true", "false", "null"]).to_string(),
        4 => rng
            .pick(&["1.5", "-0", "1e400", "12345678901234567890", "0.1", "-7"])
            .to_string(),
        5 if rng.one_in(8) => rng
            .pick(&["[", "{\"a\"", "[1,]", "{\"a\":}", "nul", "\"\\u00", "01"])
            .to_string(),
        _ => format!(
            "\"{}\"",
            rng.pick(&["x", "$(s)", "", "\\n", "\\u00e9", "a b", "\\ud800"])
        ),
    }
}

/// An rvalue of a promise attribute.
fn rval(rng: &mut Rng, depth: usize) -> String {
    match rng.below(8) {
        0 if depth < 2 => {
            let n = rng.small(4);
            let items: Vec<String> = (0..n).map(|_| rval(rng, depth + 1)).collect();
            format!("{{ {} }}", items.join(", "))
        }
        1 => call(rng, 0),
        2 => format!("'{}'", json(rng, 0).replace('\'', "")),
        3 => format!("\"{}\"", class_expr(rng, 1)),
        4 => rng
            .pick(&[
                "\"true\"",
                "\"false\"",
                "\"1\"",
                "\"2.5\"",
                "\"-3\"",
                "\"inf\"",
                "\"1k\"",
            ])
            .to_string(),
        5 => rng
            .pick(&["@(l)", "$(s)", "p1", "myname(\"a\")", "cfsim_body"])
            .to_string(),
        _ => {
            let t = text(rng);
            quote(rng, &t)
        }
    }
}

fn promise(rng: &mut Rng, out: &mut String) {
    if rng.one_in(3) {
        out.push_str(&format!("    {}::\n", class_expr(rng, 1)));
    }
    out.push_str(&format!("      {}", {
        let t = text(rng);
        quote(rng, &t)
    }));
    if rng.one_in(6) {
        out.push_str(&format!(" -> {}", rval(rng, 1)));
    }
    let n = rng.small(3);
    for i in 0..n {
        out.push_str(if i == 0 { "\n        " } else { ",\n        " });
        out.push_str(&format!("{} => {}", rng.pick(ATTRIBUTES), rval(rng, 0)));
    }
    out.push_str(";\n");
}

/// A bundle (agent or common), a body or a custom promise type declaration.
pub fn block(rng: &mut Rng, out: &mut String) {
    let name = rng.pick(&[
        "main",
        "b",
        "x",
        "ns:b",
        "lib",
        "p1",
        "cfsim_body",
        "myname",
    ]);
    match rng.below(8) {
        0 => {
            out.push_str(&format!(
                "body {} {name}",
                rng.pick(&["common", "classes", "action", "perms", "contain", "agent"])
            ));
            if name == "control" || rng.one_in(3) {
                out.push_str("(a, b)");
            }
            out.push_str("\n{\n");
            for _ in 0..rng.small(4) {
                if rng.one_in(4) {
                    out.push_str(&format!("  {}::\n", class_expr(rng, 1)));
                }
                out.push_str(&format!(
                    "  {} => {};\n",
                    rng.pick(ATTRIBUTES),
                    rval(rng, 0)
                ));
            }
            out.push_str("}\n");
        }
        1 if rng.one_in(4) => {
            out.push_str("promise agent cfsim_p\n{\n  path => \"/bin/true\";\n  interpreter => \"/bin/sh\";\n}\n");
        }
        _ => {
            let kind = rng.pick(&["agent", "common", "edit_line", "server", "monitor"]);
            out.push_str(&format!("bundle {kind} {name}"));
            if rng.one_in(3) {
                out.push_str("(p1, p2)");
            }
            out.push_str("\n{\n");
            for _ in 0..rng.small(4) {
                out.push_str(&format!("  {}:\n", rng.pick(PROMISE_TYPES)));
                for _ in 0..rng.small(4) {
                    promise(rng, out);
                }
            }
            out.push_str("}\n");
        }
    }
}

/// A whole policy file, with a `body common control` and a `main` bundle most of the time.
pub fn policy(rng: &mut Rng) -> String {
    let mut out = String::new();
    if rng.below(4) != 0 {
        out.push_str("body common control\n{\n  bundlesequence => { \"main\" };\n}\n");
    }
    if rng.one_in(5) {
        out.push_str(rng.pick(&[
            "@if minimum_version(3.18)\n",
            "@if feature(xml)\n",
            "@else\n",
            "@endif\n",
        ]));
    }
    if rng.below(3) != 0 {
        out.push_str("bundle agent main\n{\n");
        for _ in 0..1 + rng.small(3) {
            out.push_str(&format!(
                "  {}:\n",
                rng.pick(&["vars", "classes", "reports", "methods", "vars", "reports"])
            ));
            for _ in 0..1 + rng.small(4) {
                promise(rng, &mut out);
            }
        }
        out.push_str("}\n");
    }
    for _ in 0..rng.small(3) {
        block(rng, &mut out);
    }
    if rng.one_in(5) {
        out.push_str(rng.pick(&["@endif\n", "@if minimum_version(99)\n"]));
    }
    out
}
