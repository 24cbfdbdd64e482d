//! The hENC demo of issue 6 (`policies/henc/demo/`) under the real cf-agent 3.21, run "as" every
//! shipped host profile: private network, mount and UTS namespaces built from the profile with the
//! technique of `tests/host_namespace.rs` (veth interfaces, hostname, fake `/etc`), plus fresh private
//! work and log directories bind-mounted over `/var/lib/cfengine3` and `/var/log/cfengine3`, so
//! nothing outside the scratch directory is written. In each namespace the agent runs twice: with the
//! Perl reference (`tests/henc/henc_reference.pl`) as `modules/henc`, then with `cfsim henc`. Both
//! runs must give exactly `recorded/<profile>.out` (the lines before the tables), `.classes` (the soft
//! classes of `--show-evaluated-classes`) and `.vars` (the module's `henc.*` rows of
//! `--show-evaluated-vars`); the filters are in `henc_demo_support` and the demo README.
//! `CFSIM_RECORD=1` (or `record.sh`) rewrites the recordings from the Perl run. Skip note without
//! cf-agent or namespaces; FAIL when `CI=true` and the agent is missing. The offline tests check the
//! recordings' completeness, re-merge every recorded hierarchy with `cfsim henc` and the Perl
//! reference, and check the ENC data (every sigil and command, lint-clean).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod henc_demo_support;
mod host_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use cfsim::host::{load_host, Host};
use henc_demo_support::{demo, profiles, recorded, split_run};
use host_support::netns::{fake_etc, namespaces_permitted, net_script, run_unshared, sh_quote};
use host_support::{agent_available, repo_path};

const MARK: &str = "=====CFSIM-HENC-MODULE=====";

/// Copy the demo's policy and ENC files (not the recordings, not a local `modules/henc`).
fn copy_demo(dst: &Path) {
    let src = demo();
    std::fs::create_dir_all(dst.join("modules")).unwrap();
    for entry in std::fs::read_dir(&src).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|x| x == "cf") {
            std::fs::copy(&p, dst.join(p.file_name().unwrap())).unwrap();
        }
    }
    let st = Command::new("cp")
        .args(["-a"])
        .arg(src.join("enc"))
        .arg(dst.join("enc"))
        .status()
        .unwrap();
    assert!(st.success());
}

/// Runs the demo twice in namespaces built from `profile` (Perl module, then `cfsim henc`).
/// Returns the two raw outputs, or None (with a note) when the namespace run failed.
fn run_in_namespace(profile: &Host, dir: &Path) -> Option<(String, String)> {
    let demo_dir = dir.join("demo");
    copy_demo(&demo_dir);
    let perl = repo_path("tests/henc/henc_reference.pl");
    let wrapper = dir.join("henc-cfsim");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nexec {} henc \"$@\"\n",
            sh_quote(env!("CARGO_BIN_EXE_cfsim"))
        ),
    )
    .unwrap();
    for sub in ["work", "log"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    // A fresh work directory holding only the real one's host key and bin link, so another process
    // writing the real state databases meanwhile cannot leave a torn copy here.
    for sub in ["ppkeys", "bin"] {
        let src = Path::new("/var/lib/cfengine3").join(sub);
        if src.exists() || src.is_symlink() {
            let st = Command::new("cp")
                .arg("-a")
                .arg(&src)
                .arg(dir.join("work"))
                .status()
                .unwrap();
            assert!(st.success(), "cannot copy {}", src.display());
        }
    }
    let run =
        "cf-agent -K -f ./promises.cf --show-evaluated-classes --show-evaluated-vars='henc\\..*'";
    let script = format!(
        "{net}mount -t sysfs sysfs /sys && mount --bind {etc} /etc && \
         mount --bind {work} /var/lib/cfengine3 && mount --bind {log} /var/log/cfengine3 && \
         hostname {host} && cd {demo} && \
         cp {perl} modules/henc && chmod 755 modules/henc && \
         cf-promises -c -f ./promises.cf && {run} && echo {MARK} && \
         cp {wrapper} modules/henc && chmod 755 modules/henc && {run}",
        net = net_script(profile),
        etc = sh_quote(&dir.join("etc").to_string_lossy()),
        work = sh_quote(&dir.join("work").to_string_lossy()),
        log = sh_quote(&dir.join("log").to_string_lossy()),
        host = sh_quote(&profile.hostname),
        demo = sh_quote(&demo_dir.to_string_lossy()),
        perl = sh_quote(&perl.to_string_lossy()),
        wrapper = sh_quote(&wrapper.to_string_lossy()),
    );
    let text = run_unshared(&script)?;
    // The agent's state went to the private work directory, not to the real one.
    assert!(
        dir.join("work/state").is_dir(),
        "the agent wrote no state into the private work directory"
    );
    let (perl_run, cfsim_run) = text.split_once(&format!("{MARK}\n"))?;
    Some((perl_run.to_string(), cfsim_run.to_string()))
}

#[test]
fn demo_recordings_match_real_agent_with_perl_and_cfsim_henc() {
    let test = "demo_recordings_match_real_agent_with_perl_and_cfsim_henc";
    if !agent_available(test) || !namespaces_permitted(test) {
        return;
    }
    let record = std::env::var("CFSIM_RECORD").as_deref() == Ok("1");
    let rec_dir = demo().join("recorded");
    let mut failures = Vec::new();
    for (n, (name, path)) in profiles().into_iter().enumerate() {
        let profile = load_host(path.to_str().unwrap()).unwrap();
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("henc-demo-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        fake_etc(&profile, &dir);
        let result = run_in_namespace(&profile, &dir);
        let demo_dir = dir.join("demo");
        let _ = std::fs::remove_dir_all(&dir);
        let Some((perl_run, cfsim_run)) = result else {
            failures.push(format!("{name}: the namespace run failed"));
            continue;
        };
        let perl = split_run(&perl_run, &demo_dir);
        let cfsim = split_run(&cfsim_run, &demo_dir);
        let file = |ext: &str| rec_dir.join(format!("{name}.{ext}"));
        if record {
            std::fs::write(file("out"), &perl.out).unwrap();
            std::fs::write(file("classes"), &perl.classes).unwrap();
            std::fs::write(file("vars"), &perl.vars).unwrap();
        }
        let want = recorded(&name);
        for (module, got) in [("Perl module", &perl), ("cfsim henc module", &cfsim)] {
            for (what, g, w) in [
                ("report lines", &got.out, &want.out),
                ("classes", &got.classes, &want.classes),
                ("henc vars", &got.vars, &want.vars),
            ] {
                if g != w {
                    failures.push(format!(
                        "{name}: {module}: {what} differ from the recording\n--- recorded\n{w}--- live\n{g}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn recordings_cover_every_shipped_profile_and_nothing_else() {
    let mut want: Vec<String> = Vec::new();
    for (name, _) in profiles() {
        want.push(format!("{name}.classes"));
        want.push(format!("{name}.out"));
        want.push(format!("{name}.vars"));
    }
    want.sort();
    let mut have: Vec<String> = std::fs::read_dir(demo().join("recorded"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    have.sort();
    assert_eq!(have, want);
    assert!(want.len() >= 18, "expected at least 6 profiles");
    for (name, _) in profiles() {
        let out = std::fs::read_to_string(demo().join(format!("recorded/{name}.out"))).unwrap();
        let classes =
            std::fs::read_to_string(demo().join(format!("recorded/{name}.classes"))).unwrap();
        assert!(
            out.lines().all(|l| l.starts_with("R: ")),
            "{name}: the agent printed more than report lines:\n{out}"
        );
        assert_eq!(
            out.lines()
                .filter(|l| l.starts_with("R: henc: level "))
                .count(),
            4,
            "{name}: the henclist has four levels"
        );
        assert!(out.contains("R: summary: hENC classification completed\n"));
        assert!(classes
            .lines()
            .any(|l| l == "henc_classification_completed"));
        let vars = std::fs::read_to_string(demo().join(format!("recorded/{name}.vars"))).unwrap();
        assert!(
            vars.lines().all(|l| l.starts_with("default:henc.")),
            "{name}: unexpected vars rows:\n{vars}"
        );
    }
}

/// The hENC levels a recording shows (`R: henc: level X`), as paths in the demo's `enc/`.
fn recorded_levels(name: &str) -> Vec<String> {
    let out = std::fs::read_to_string(demo().join(format!("recorded/{name}.out"))).unwrap();
    out.lines()
        .filter_map(|l| l.strip_prefix("R: henc: level "))
        .map(|l| demo().join("enc").join(l).to_string_lossy().to_string())
        .collect()
}

fn sorted_lines(bytes: &[u8]) -> Vec<String> {
    let mut v: Vec<String> = String::from_utf8_lossy(bytes)
        .lines()
        .map(String::from)
        .collect();
    v.sort();
    v
}

#[test]
fn recorded_hierarchies_merge_to_the_same_lines_with_cfsim_and_perl() {
    let perl_ok = Command::new("perl")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success());
    for (name, _) in profiles() {
        let files = recorded_levels(&name);
        let ours = Command::new(env!("CARGO_BIN_EXE_cfsim"))
            .arg("henc")
            .args(&files)
            .output()
            .unwrap();
        assert_eq!(ours.status.code(), Some(0), "{name}: cfsim henc failed");
        let got = sorted_lines(&ours.stdout);
        assert!(got.contains(&"+henc_classification_completed".to_string()));
        if !perl_ok {
            eprintln!("note: perl not installed; {name}: Perl reference not compared");
            continue;
        }
        let theirs = Command::new("perl")
            .arg(repo_path("tests/henc/henc_reference.pl"))
            .args(&files)
            .output()
            .unwrap();
        assert_eq!(
            got,
            sorted_lines(&theirs.stdout),
            "{name}: cfsim henc and the Perl reference merge {files:?} differently"
        );
    }
}

/// Every file of the demo's ENC data, sorted.
fn enc_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&demo().join("enc"), &mut out);
    out.sort();
    out
}

#[test]
fn enc_data_exercises_every_henc_sigil_and_reset_command() {
    let text: String = enc_files()
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let lines: Vec<&str> = text.lines().collect();
    for sigil in ['+', '-', '_', '=', '@', '%', '/'] {
        assert!(
            lines.iter().any(|l| l.starts_with(sigil)),
            "no ENC line starts with {sigil}"
        );
    }
    for cmd in [
        "!RESET_ALL_CLASSES",
        "!RESET_ACTIVE_CLASSES",
        "!RESET_CANCELLED_CLASSES",
    ] {
        assert!(lines.contains(&cmd), "no ENC file uses {cmd}");
    }
    assert!(
        lines.iter().any(|l| l.starts_with('=') && l.contains("]=")),
        "no classic array entry"
    );
}

#[test]
fn enc_data_is_lint_clean() {
    let files: Vec<String> = enc_files()
        .iter()
        .map(|p| p.to_string_lossy().to_string())
        .collect();
    let out = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(["henc", "--lint"])
        .args(&files)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "cfsim henc --lint: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn split_run_applies_the_documented_filters() {
    let dir = Path::new("/tmp/x/demo");
    let run = "R: hello /tmp/x/demo/enc\n\
Class name                                                   Meta tags                                Comment\n\
any                                                          source=agent,hardclass\n\
from_module\n\
located                                                      source=promise\n\
Variable name                            Variable value                                               Meta tags\n\
default:henc.files                       /tmp/x/demo/enc/default                                      source=promise\n\
default:henc.site                        Oslo      \n";
    let rec = split_run(run, dir);
    assert_eq!(rec.out, "R: hello <demo>/enc\n");
    assert_eq!(rec.classes, "from_module\nlocated source=promise\n");
    assert_eq!(rec.vars, "default:henc.site                        Oslo\n");
}
