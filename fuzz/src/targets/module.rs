//! `module`: the module protocol parser (`commands` promises with `module => "true"`): `=`, `@`, `%`,
//! `+`, `-`, `^context`, `^meta`, `^persistence` lines, the data-file form `&name=path`, and
//! `cfengine-die`.

use cfsim::module::protocol::{load_data_file, parse_output};

use super::{gen, Target};
use crate::rng::Rng;

pub const TARGET: Target = Target {
    name: "module",
    about: "module protocol output parser",
    dict: DICT,
    generate_percent: 30,
    max_ops: 4,
    generate,
    run,
};

const DICT: &[&str] = &[
    "\n=",
    "\n@",
    "\n%",
    "\n+",
    "\n-",
    "\n^context=",
    "\n^meta=",
    "\n^persistence=",
    "\n&",
    "=",
    "{",
    "}",
    "\"",
    "'",
    ",",
    "[",
    "]",
    "cfengine-die",
    "inventory,attribute_name=x",
    "\n^context=ns",
    "@l= { \"a\" }",
    "%d={\"a\":1}",
    "-any",
    "+a b",
    "\r",
];

fn line(rng: &mut Rng) -> String {
    let name = rng.pick(&[
        "x", "a_b", "arr[k]", "é", "", "a b", "1", "x[", "d[a][b]", "sys",
    ]);
    match rng.below(10) {
        0 => format!(
            "+{}",
            rng.pick(&["a", "any", "linux", "a.b", "$(x)", "", "-x"])
        ),
        1 => format!("-{}", rng.pick(&["a", "any", "x"])),
        2 => format!("={name}={}", gen::text(rng)),
        3 => {
            let items: Vec<String> = (0..rng.small(4))
                .map(|_| format!("\"{}\"", gen::text(rng)))
                .collect();
            format!("@{name}= {{ {} }}", items.join(", "))
        }
        4 => format!("%{name}={}", gen::json(rng, 0)),
        5 => format!(
            "^context={}",
            rng.pick(&["ctx", "a.b", "", "1", "x y", "ns:x"])
        ),
        6 => format!(
            "^meta={}",
            rng.pick(&["inventory,attribute_name=Role", "a,b", "", "=x"])
        ),
        7 => format!(
            "^persistence={}",
            rng.pick(&["10", "0", "-1", "x", "99999999999999999999"])
        ),
        8 => format!("&{name}={}", rng.pick(&["/d.json", "d.yaml", "", "x.csv"])),
        _ => rng
            .pick(&["garbage", "", "cfengine-die", "# c", "^unknown=1"])
            .to_string(),
    }
}

fn generate(rng: &mut Rng) -> Vec<u8> {
    let mut out = String::new();
    for _ in 0..1 + rng.small(8) {
        out.push_str(&line(rng));
        out.push('\n');
    }
    out.into_bytes()
}

fn run(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let _ = parse_output("/var/cfengine/modules/fuzz --arg", &text);
    let _ = parse_output("fuzz", &text);
    let _ = load_data_file("/tmp/in.json", Some(&text));
}
