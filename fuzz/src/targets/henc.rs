//! `henc`: the hierarchical ENC merge (`cfsim henc`): the input is split into ENC files at lines
//! `----`, merged in order with history, rendered, explained and linted; when the first file is an
//! ENC config (JSON), `classify` resolves a node through it with the other files as its data.

use cfsim::henc::enc::{classify, EncConfig};
use cfsim::henc::explain::explain;
use cfsim::henc::lint::lint;
use cfsim::henc::merge::{merge, Source};
use cfsim::henc::MemReader;

use super::{gen, Target};
use crate::rng::Rng;

pub const TARGET: Target = Target {
    name: "henc",
    about: "hENC merge of ENC files, explain, lint and ENC-config classification",
    dict: DICT,
    generate_percent: 30,
    max_ops: 4,
    generate,
    run,
};

const DICT: &[&str] = &[
    "\n----\n",
    "\n+",
    "\n-",
    "\n=",
    "\n@",
    "\n%",
    "\n!",
    "\n_",
    "!RESET_ACTIVE_CLASSES",
    "!RESET_CANCELLED_CLASSES",
    "!RESET_ALL_CLASSES",
    "=a[b]=c",
    "@l= { \"x\" }",
    "%d={\"a\": 1}",
    "#",
    "{\"basedir\": \"d\", \"hierarchy\": [\"%{fqdn}\"]}",
    "%{fqdn}",
    "%{domain}",
    "%{role}",
    "%{",
    "}",
];

fn line(rng: &mut Rng) -> String {
    let name = rng.pick(&[
        "web",
        "db_server",
        "x",
        "a.b",
        "",
        "é",
        "any",
        "sysctl[vm.swappiness]",
    ]);
    match rng.below(10) {
        0 => format!("+{name}"),
        1 => format!("-{name}"),
        2 => format!("={name}={}", gen::text(rng)),
        3 => format!(
            "@{name}= {{ \"{}\", \"{}\" }}",
            gen::text(rng),
            gen::text(rng)
        ),
        4 => format!("%{name}={}", gen::json(rng, 1)),
        5 => rng
            .pick(&[
                "!RESET_ACTIVE_CLASSES",
                "!RESET_CANCELLED_CLASSES",
                "!RESET_ALL_CLASSES",
                "!UNKNOWN",
            ])
            .to_string(),
        6 => format!("_{name}"),
        7 => format!("# {}", gen::text(rng)),
        8 => "".to_string(),
        _ => format!("{}{name}", rng.pick(&[" +", "\t=", "^", "++", "=="])),
    }
}

fn generate(rng: &mut Rng) -> Vec<u8> {
    let mut files = Vec::new();
    if rng.one_in(4) {
        files.push(format!(
            "{{\"basedir\": \"{}\", \"hierarchy\": [\"default\", \"node/%{{fqdn}}\", \"{}\"]{}}}",
            rng.pick(&["data", "", "/", ".."]),
            rng.pick(&["role/%{role}", "%{", "%{x.y}", "f1"]),
            rng.pick(&["", ", \"profile\": \"p/%{fqdn}.json\"", ", \"profile\": 1"])
        ));
    }
    for _ in 0..1 + rng.small(3) {
        let lines: Vec<String> = (0..1 + rng.small(8)).map(|_| line(rng)).collect();
        files.push(lines.join("\n"));
    }
    files.join("\n----\n").into_bytes()
}

fn run(input: &[u8]) {
    let parts: Vec<&[u8]> = split(input);
    let sources: Vec<Source> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| Source {
            name: format!("enc/f{i}"),
            text: if p == b"MISSING" {
                None
            } else {
                Some(p.to_vec())
            },
        })
        .collect();
    let merged = merge(&sources, true);
    let _ = merged.render();
    let _ = merged.sorted_classes();
    let _ = merged.sorted_vars();
    let _ = explain(&sources, &merged);
    for f in lint(&sources) {
        let _ = f.render();
    }
    let _ = merge(&sources, false).render();
    if let Some(Ok(cfg)) = parts
        .first()
        .map(|p| EncConfig::parse(&String::from_utf8_lossy(p)))
    {
        let mut reader = MemReader::new();
        for (i, p) in parts.iter().enumerate().skip(1) {
            let name = format!("{}/f{i}", cfg.basedir.trim_end_matches('/'));
            reader.files.insert(name, p.to_vec());
            let node = format!(
                "{}/node/web1.example.com",
                cfg.basedir.trim_end_matches('/')
            );
            reader.files.entry(node).or_insert_with(|| p.to_vec());
        }
        if let Ok(answer) = classify("web1.example.com", &cfg, &reader) {
            let _ = answer.to_yaml();
        }
    }
}

/// The input split at lines `----`.
fn split(input: &[u8]) -> Vec<&[u8]> {
    let sep = b"\n----\n";
    let mut out = Vec::new();
    let mut rest = input;
    while let Some(at) = rest.windows(sep.len()).position(|w| w == sep) {
        out.push(&rest[..at]);
        rest = &rest[at + sep.len()..];
        if out.len() >= 32 {
            break;
        }
    }
    out.push(rest);
    out
}
