//! Regex engines for the agent's matching, side by side: fidelity of `fancy-regex` and `pcre2` (both with
//! the agent's flags: DOTALL, MULTILINE; full match = the leftmost match spans the subject) on the
//! `regcmp` cases of `policies/functions/pcre.cases` (expected outcomes as cf-agent 3.21 recorded them in
//! `pcre.expected`), and their speed on typical policy regexes (compile + match).
//!
//!   cargo bench --bench regex            # 200 rounds
//!   cargo bench --bench regex -- 50
//!
//! Needs in Cargo.toml: `[[bench]] name = "regex" harness = false`.

// a benchmark, like a test, may stop on a pattern of its own table that does not compile
#![allow(clippy::unwrap_used)]

use std::hint::black_box;
use std::time::Instant;

/// (pattern, subject, what the agent said: T full match, F no full match, E compile error).
const CASES: &[(&str, &str, char)] = &[
    (r#"foo(?=bar)bar"#, r#"foobar"#, 'T'),
    (r#"foo(?!bar).*"#, r#"foobaz"#, 'T'),
    (r#"foo(?!bar).*"#, r#"foobar"#, 'F'),
    (r#".*(?<=o)bar"#, r#"foobar"#, 'T'),
    (r#"(?<!x)y.*"#, r#"yz"#, 'T'),
    (r#".(?<!x)y"#, r#"xy"#, 'F'),
    (r#"(\w+)\1"#, r#"foofoo"#, 'T'),
    (r#"(\w+)\1"#, r#"foobar"#, 'F'),
    (r#"(a)(b)\2\1"#, r#"abba"#, 'T'),
    (r#"(?<x>ab)\k<x>"#, r#"abab"#, 'T'),
    (r#"(?P<y>c)(?P=y)"#, r#"cc"#, 'T'),
    (r#"(a)\g1"#, r#"aa"#, 'T'),
    (r#"(?>a+)b"#, r#"aaab"#, 'T'),
    (r#"(?>a*)a"#, r#"aaa"#, 'F'),
    (r#"a++b"#, r#"aab"#, 'T'),
    (r#"a*+a"#, r#"aaa"#, 'F'),
    (r#"\d++\d"#, r#"123"#, 'F'),
    (r#"x?+x"#, r#"x"#, 'F'),
    (r#"\Qa.b\E"#, r#"a.b"#, 'T'),
    (r#"\Qa.b\E"#, r#"axb"#, 'F'),
    (r#"\Qa.b"#, r#"a.b"#, 'T'),
    (r#"abc\Z"#, r#"abc"#, 'T'),
    (r#"\Aabc\z"#, r#"abc"#, 'T'),
    (r#".*\bfoo\b.*"#, r#"a foo b"#, 'T'),
    (r#".*\bfoo\b.*"#, r#"afoob"#, 'F'),
    (r#"[[:alpha:]]+[[:digit:]]"#, r#"abc1"#, 'T'),
    (r#"a\hb"#, r#"a b"#, 'T'),
    (r#"\p{Lu}+"#, r#"ABC"#, 'T'),
    (r#"\p{Lu}+"#, r#"AbC"#, 'F'),
    (r#"a.*?b"#, r#"axbyb"#, 'F'),
    (r#"(?U)a.*b"#, r#"axbyb"#, 'F'),
    (r#"a|ab"#, r#"ab"#, 'F'),
    (r#"ab|a"#, r#"ab"#, 'T'),
    (r#"(?x) a b c  # comment"#, r#"abc"#, 'T'),
    (r#"a(?i)b"#, r#"aB"#, 'T'),
    (r#"(?i)A(?-i)b"#, r#"aB"#, 'F'),
    (r#"\((?:[^()]|(?R))*\)"#, r#"(a(b)c)"#, 'T'),
    (r#"(a)?(?(1)b|c)"#, r#"ab"#, 'T'),
    (r#"(a)?(?(1)b|c)"#, r#"c"#, 'T'),
    (r#"(a)?(?(1)b|c)"#, r#"ac"#, 'F'),
    (r#"caf."#, r#"café"#, 'F'),
    (r#"caf.."#, r#"café"#, 'T'),
    (r#"\w+"#, r#"café"#, 'F'),
    (r#"[^a]+"#, r#"é"#, 'T'),
    (r#"(?i)CAFÉ"#, r#"café"#, 'F'),
    (r#"café"#, r#"café"#, 'T'),
    (r#"caf[é]"#, r#"café"#, 'F'),
    (r#".{5}"#, r#"café"#, 'T'),
    (r#"(?<=a+)b"#, r#"ab"#, 'E'),
    (r#"a{2,1}"#, r#"aa"#, 'E'),
    (r#"(?P<n>a)(?P<n>b)"#, r#"ab"#, 'E'),
    (r#"\k<zz>"#, r#"a"#, 'E'),
    (r#"[z-a]"#, r#"a"#, 'E'),
    (r#"(?z)"#, r#"a"#, 'E'),
    (r#"\2(a)"#, r#"a"#, 'E'),
    (r#"x**"#, r#"x"#, 'E'),
    (r#"\p{Foo}"#, r#"a"#, 'E'),
    (r#"(?<n"#, r#"a"#, 'E'),
    (r#"a{99999}"#, r#"a"#, 'E'),
    (r#"[[:foo:]]"#, r#"a"#, 'E'),
];

trait Engine {
    fn name(&self) -> &'static str;
    /// None: compile error; Some(full match).
    fn full(&self, pattern: &str, subject: &str) -> Option<bool>;
    fn compile(&self, pattern: &str) -> Box<dyn Fn(&str) -> bool>;
}

struct Fancy;
impl Engine for Fancy {
    fn name(&self) -> &'static str {
        "fancy-regex 0.20"
    }
    fn full(&self, pattern: &str, subject: &str) -> Option<bool> {
        let re = fancy_regex::RegexBuilder::new(pattern)
            .multi_line(true)
            .dot_matches_new_line(true)
            .build()
            .ok()?;
        Some(matches!(re.find(subject), Ok(Some(m)) if m.start() == 0 && m.end() == subject.len()))
    }
    fn compile(&self, pattern: &str) -> Box<dyn Fn(&str) -> bool> {
        let re = fancy_regex::RegexBuilder::new(pattern)
            .multi_line(true)
            .dot_matches_new_line(true)
            .build()
            .unwrap();
        Box::new(move |s| matches!(re.find(s), Ok(Some(m)) if m.start() == 0 && m.end() == s.len()))
    }
}

struct Pcre2;
fn pcre2_build(pattern: &str) -> Result<pcre2::bytes::Regex, pcre2::Error> {
    pcre2::bytes::RegexBuilder::new()
        .multi_line(true)
        .dotall(true)
        .jit_if_available(true)
        .build(pattern)
}
impl Engine for Pcre2 {
    fn name(&self) -> &'static str {
        "pcre2 0.2 (PCRE2 10.x, JIT)"
    }
    fn full(&self, pattern: &str, subject: &str) -> Option<bool> {
        let re = pcre2_build(pattern).ok()?;
        Some(
            matches!(re.find(subject.as_bytes()), Ok(Some(m)) if m.start() == 0 && m.end() == subject.len()),
        )
    }
    fn compile(&self, pattern: &str) -> Box<dyn Fn(&str) -> bool> {
        let re = pcre2_build(pattern).unwrap();
        Box::new(
            move |s| matches!(re.find(s.as_bytes()), Ok(Some(m)) if m.start() == 0 && m.end() == s.len()),
        )
    }
}

fn class_names() -> Vec<String> {
    let mut v = Vec::new();
    for i in 0..2000 {
        v.push(match i % 5 {
            0 => format!("ipv4_10_{}_{}", i % 256, i / 256),
            1 => format!("cfsim_role_{i}"),
            2 => format!("Hr{:02}_Q{}", i % 24, i % 4),
            3 => format!("debian_{}", i % 13),
            _ => format!("mac_00_16_3e_{:02x}_{:02x}", i % 256, i / 8),
        });
    }
    v
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let engines: [&dyn Engine; 2] = [&Fancy, &Pcre2];
    println!("fidelity on {} recorded regcmp cases:", CASES.len());
    for e in engines {
        let mut same = 0;
        let mut differ = Vec::new();
        for (p, s, want) in CASES {
            let got = match e.full(p, s) {
                None => 'E',
                Some(true) => 'T',
                Some(false) => 'F',
            };
            if got == *want {
                same += 1;
            } else {
                differ.push(format!("{p:?} on {s:?}: agent {want}, engine {got}"));
            }
        }
        println!("  {:<28} {same}/{} identical", e.name(), CASES.len());
        for d in differ {
            println!("      {d}");
        }
    }
    let names = class_names();
    let subjects: Vec<&str> = names.iter().map(String::as_str).collect();
    let workloads: &[(&str, &str)] = &[
        ("anchored literal", "debian_7"),
        ("alternation", "(debian|ubuntu|redhat|centos)_\\d+"),
        (".* heavy", ".*_1.*_.*"),
        ("classesmatching prefix", "ipv4_10_.*"),
        ("look-ahead", "cfsim_role_(?!1).*"),
    ];
    println!(
        "speed: compile once + full-match {} class names, {rounds} rounds (ms per round):",
        subjects.len()
    );
    for (what, p) in workloads {
        let mut line = format!("  {what:<24} {p:<36}");
        for e in engines {
            let start = Instant::now();
            let mut hits = 0usize;
            for _ in 0..rounds {
                let m = e.compile(black_box(p));
                hits += subjects.iter().filter(|s| m(s)).count();
            }
            let ms = start.elapsed().as_secs_f64() * 1000.0 / rounds as f64;
            line.push_str(&format!(
                "  {}: {ms:.3} ({} hits)",
                e.name().split(' ').next().unwrap_or(""),
                hits / rounds
            ));
        }
        println!("{line}");
    }
    let start = Instant::now();
    println!(
        "compile only ({rounds} rounds of the {} corpus patterns, ms per round):",
        CASES.len()
    );
    for e in engines {
        let start2 = Instant::now();
        for _ in 0..rounds {
            for (p, _, _) in CASES {
                black_box(e.full(p, ""));
            }
        }
        println!(
            "  {:<28} {:.3}",
            e.name(),
            start2.elapsed().as_secs_f64() * 1000.0 / rounds as f64
        );
    }
    black_box(start);
}
