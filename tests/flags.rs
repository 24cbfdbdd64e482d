//! Every flag of `cf-agent --help` and `cf-promises --help` 3.21 (recorded in tests/flags/*.help, and
//! re-recorded live when the tools are installed; CI installs them) is accepted by `cfsim agent` /
//! `cfsim promises`, in its long and short form, and listed with a line of help. Flags that cannot
//! change a simulation are accepted and named once on stderr.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::process::{Command, Output};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// (long, short, takes a value) of each option line of a real tool's --help.
fn options(help: &str) -> Vec<(String, Option<char>, bool)> {
    let mut out = Vec::new();
    for line in help.lines() {
        let Some(rest) = line.trim_start().strip_prefix("--") else {
            continue;
        };
        let long: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        // the description follows the first " - " before a capital letter (", - value - Run …")
        let bytes = rest.as_bytes();
        let end = (0..rest.len().saturating_sub(3))
            .find(|&i| &rest[i..i + 3] == " - " && bytes[i + 3].is_ascii_uppercase())
            .unwrap_or(rest.len());
        let spec = &rest[..end];
        let short = spec
            .split_once(", -")
            .and_then(|(_, s)| s.chars().next())
            .filter(|c| c.is_ascii_alphabetic());
        out.push((long, short, spec.contains(" value")));
    }
    out
}

fn recorded(tool: &str) -> String {
    let file = root().join(format!("tests/flags/{tool}.help"));
    let text = std::fs::read_to_string(&file).unwrap();
    let found = std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(tool))
            .find(|f| f.is_file())
    });
    match found {
        Some(bin) => {
            let o = Command::new(bin).arg("--help").output().unwrap();
            let mut live = String::from_utf8_lossy(&o.stdout).into_owned();
            live.push_str(&String::from_utf8_lossy(&o.stderr));
            assert_eq!(
                live, text,
                "{tool} --help changed: re-record tests/flags/{tool}.help"
            );
        }
        None => assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{tool} is required when CI=true"
        ),
    }
    text
}

/// cfsim's optional-value flags (written `--flag=value`, alone without one).
const OPTIONAL: &[&str] = &[
    "color",
    "show-evaluated-classes",
    "show-evaluated-vars",
    "skip-db-check",
    "self-diagnostics",
    "eval-functions",
    "show-classes",
    "show-vars",
];

fn value_for(long: &str, policy: &str, scratch: &str) -> String {
    match long {
        "file" => policy.to_string(),
        "bundlesequence" => "main".into(),
        "define" | "negate" => "some_class".into(),
        "log-level" => "info".into(),
        "bootstrap" => "192.0.2.1".into(),
        "workdir" | "tag-release" => scratch.into(),
        "trust-server" | "skip-db-check" | "eval-functions" => "yes".into(),
        "color" => "auto".into(),
        "log-modules" => "all".into(),
        "simulate" => "manifest".into(),
        "policy-output-format" | "syntax-description" => "none".into(),
        "warn" => "all".into(),
        "self-diagnostics" => "all".into(),
        _ => String::new(),
    }
}

fn cfsim(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(args)
        .output()
        .unwrap()
}

fn check_tool(tool: &str, sub: &str) {
    let help = recorded(tool);
    let opts = options(&help);
    assert!(
        opts.len() >= 20,
        "{tool}: only {} options parsed",
        opts.len()
    );
    let ours = String::from_utf8_lossy(&cfsim(&[sub.into(), "--help".into()]).stdout).into_owned();
    let policy = root()
        .join("policies/lessons/01_normal_order.cf")
        .to_string_lossy()
        .into_owned();
    let scratch = std::env::temp_dir().join(format!("cfsim-flags-{}-{sub}", std::process::id()));
    let scratch_s = scratch.to_string_lossy().into_owned();
    let mut bad = Vec::new();
    for (long, short, takes) in &opts {
        // listed with help text: `--long` (and `-S, --long`) followed by a description
        let listed = match short {
            Some(c) => ours.contains(&format!("-{c}, --{long}")),
            None => ours.contains(&format!("--{long}")),
        };
        if !listed {
            bad.push(format!("--{long}: not listed in cfsim {sub} --help"));
        }
        if ["help", "version"].contains(&long.as_str()) {
            continue;
        }
        let value = value_for(long, &policy, &scratch_s);
        let optional = OPTIONAL.contains(&long.as_str());
        let mut forms = vec![if *takes && !(optional && value.is_empty()) {
            format!("--{long}={value}")
        } else {
            format!("--{long}")
        }];
        if let Some(c) = short {
            forms.push(if *takes && !optional {
                format!("-{c}{value}")
            } else {
                format!("-{c}")
            });
        }
        for form in forms {
            let mut args = vec![sub.to_string(), "-f".into(), policy.clone()];
            if sub == "agent" {
                args.push("--host".into());
                args.push(
                    root()
                        .join("policies/hosts/web1-oslo-debian.json")
                        .to_string_lossy()
                        .into(),
                );
            }
            args.push(form.clone());
            let o = cfsim(&args);
            let code = o.status.code();
            if code == Some(2) || code.is_none() {
                bad.push(format!(
                    "{form}: exit {code:?}: {}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                ));
            }
        }
    }
    assert!(
        !scratch.exists(),
        "a flag made cfsim write {}",
        scratch.display()
    );
    assert!(bad.is_empty(), "{tool}:\n{}", bad.join("\n"));
}

#[test]
fn every_cf_agent_flag_is_accepted_by_cfsim_agent() {
    check_tool("cf-agent", "agent");
}

#[test]
fn every_cf_promises_flag_is_accepted_by_cfsim_promises() {
    check_tool("cf-promises", "promises");
}

#[test]
fn flags_that_cannot_apply_are_named_once_on_stderr() {
    let policy = root().join("policies/lessons/01_normal_order.cf");
    let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-l", "--color=always", "-f"])
        .arg(&policy)
        .args(["--host"])
        .arg(root().join("policies/hosts/web1-oslo-debian.json"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err,
        "cfsim: -C/--color accepted for compatibility: cfsim prints no colour\n\
         cfsim: -l/--timestamp accepted for compatibility: cfsim prints no timestamps, so its output stays deterministic\n"
    );
    // the output itself is the same as without them
    let plain = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-f"])
        .arg(&policy)
        .args(["--host"])
        .arg(root().join("policies/hosts/web1-oslo-debian.json"))
        .output()
        .unwrap();
    assert_eq!(o.stdout, plain.stdout);
}

#[test]
fn version_syntax_tables_positional_file_and_repeated_bundlesequence() {
    let v = cfsim(&["agent".into(), "-V".into()]);
    assert!(String::from_utf8_lossy(&v.stdout).starts_with("CFEngine Core 3.21.0\n"));
    // -s json is cf-promises -s json, byte for byte (the committed recording of it)
    let s = cfsim(&["promises".into(), "-s".into(), "json".into()]);
    let want = std::fs::read(root().join("src/syntax/cf-syntax-3.21.0.json")).unwrap();
    assert!(
        s.stdout == want,
        "cfsim promises -s json differs from cf-promises -s json"
    );
    // FILE after the options, as cf-agent takes it
    let lesson = root().join("policies/lessons/08_iteration.cf");
    let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K"])
        .arg(&lesson)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("R: colour red\n"));
    // -b given twice: the last one counts (cf-agent 3.21: `-b a -b b` runs only b)
    let d = std::env::temp_dir().join(format!("cfsim-flags-b-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join("t.cf");
    std::fs::write(
        &p,
        "bundle agent a { reports: \"in a\"; }\nbundle agent b { reports: \"in b\"; }\nbundle agent main { reports: \"in main\"; }\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["agent", "-K", "-f"])
        .arg(&p)
        .args(["-b", "a", "-b", "b"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "R: in b\n");
    let _ = std::fs::remove_dir_all(&d);
}
