//! Hostile and careless input, through the command line: each case of the robustness issue ends with a
//! clear message and a non-zero exit, never an abort, a hang, a read outside what the user allowed, or
//! unbounded memory. A child that does not finish within its generous time guard is killed (by its own
//! PID) and the test fails: that catches a hang, it measures no speed.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch directory of this test process.
fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cfsim-hostile-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `cfsim ARGS` with `stdin`, killing it after `guard` (a hang is a failure).
fn run_guarded(args: &[&str], stdin: Stdio, dir: &std::path::Path, guard: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cfsim"))
        .args(args)
        .current_dir(dir)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stdout.read_to_end(&mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stderr.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > guard {
            let _ = child.kill();
            let _ = child.wait();
            panic!("cfsim {args:?} still running after {guard:?}: a hang");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn enc_node_names_must_be_names() {
    for bad in ["../../../etc/passwd", "/etc/passwd", "a/b", "..", "-x", ""] {
        let o = run_guarded(
            &["enc", "--", bad],
            Stdio::null(),
            &root(),
            Duration::from_secs(60),
        );
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            text(&o.stderr).contains("is not a node name"),
            "{bad}: {}",
            text(&o.stderr)
        );
        assert!(
            !text(&o.stdout).contains("root:"),
            "{bad}: read /etc/passwd"
        );
    }
}

#[test]
fn henc_stdin_and_special_files_are_bounded() {
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let o = run_guarded(
        &["henc"],
        Stdio::from(zero),
        &root(),
        Duration::from_secs(120),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("standard input: larger than 64 MiB; not an ENC file"),
        "{}",
        text(&o.stderr)
    );
    // a FIFO nobody writes to is not opened (it would block forever), /dev/zero is not read
    let d = scratch("fifo");
    let fifo = d.join("enc.fifo");
    let st = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(st.success());
    let o = run_guarded(
        &["henc", fifo.to_str().unwrap(), "/dev/zero"],
        Stdio::null(),
        &root(),
        Duration::from_secs(60),
    );
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(text(&o.stdout), "+henc_classification_completed\n");
    let _ = std::fs::remove_dir_all(&d);
}

fn hostile_dir() -> PathBuf {
    root().join("tests/hostile")
}

fn agent(policy: &str, extra: &[&str]) -> Output {
    let mut args = vec!["agent", "-K", "-f", policy];
    args.extend_from_slice(extra);
    run_guarded(
        &args,
        Stdio::null(),
        &hostile_dir(),
        Duration::from_secs(300),
    )
}

#[test]
fn deep_methods_recursion_ends_at_the_limit_not_in_a_stack_overflow() {
    // aborted with a stack overflow around depth 2,843 (release) / 800 (debug) before the evaluation
    // got a thread with a stack sized from the limit
    let o = agent("./recurse.cf", &["--max-call-depth", "3000"]);
    let out = text(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(
        out.contains("   error: cfsim: methods nested deeper than 3000 bundles; not calling 'rec'"),
        "{}",
        &out[out.len().saturating_sub(500)..]
    );
    let o = agent("./recurse.cf", &["--max-call-depth", "10001"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("10001 is not in 1..=10000"));
}

/// With the default `--max-call-depth` (64) the evaluation stays on the main thread when its stack may
/// grow to 8 MiB (the usual `ulimit -s`), and moves to a thread with a stack sized from the limit when
/// the main stack is smaller: under `ulimit -s 512` a debug build would overflow at about 40 levels
/// on the main thread; the run ends at the limit with the same output either way.
#[test]
fn the_default_depth_ends_at_the_limit_whatever_the_stack_ulimit() {
    let run = |ulimit: &str| {
        let script = format!("ulimit -s {ulimit} && exec \"$0\" agent -K -f ./recurse.cf",);
        let o = Command::new("sh")
            .args(["-c", &script, env!("CARGO_BIN_EXE_cfsim")])
            .current_dir(hostile_dir())
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(3),
            "ulimit -s {ulimit}: {}",
            text(&o.stderr)
        );
        text(&o.stdout)
    };
    let usual = run("8192");
    assert!(
        usual.contains("   error: cfsim: methods nested deeper than 64 bundles; not calling 'rec'"),
        "{}",
        &usual[usual.len().saturating_sub(500)..]
    );
    assert_eq!(run("512"), usual);
    assert_eq!(run("unlimited"), usual);
}

#[test]
fn values_that_double_stop_at_the_size_limits() {
    let o = agent("./double_string.cf", &["--max-value-bytes", "1048576"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        text(&o.stdout).contains("error: cfsim: the value of variable 's' is 1049598 bytes, more than the limit of 1048576 (--max-value-bytes); not set"),
        "{}",
        text(&o.stdout)
    );
    let o = agent("./double_list.cf", &["--max-list-length", "10000"]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        text(&o.stdout).contains("error: cfsim: the value of variable 'l' has 16383 elements, more than the limit of 10000 (--max-list-length); not set"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn iteration_limit_is_checked_before_the_bindings_are_made_and_fails_the_run() {
    let o = agent("./iterate_product.cf", &[]);
    assert_eq!(o.status.code(), Some(3));
    assert!(text(&o.stdout).contains(
        "error: cfsim: promise '$(n) $(m) $(k)' would iterate more than 100000 times; skipped"
    ));
    // 0 would skip every promise, even one without a list: refused
    let o = agent("./iterate_product.cf", &["--max-iterations", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("0 is not in 1.."));
    let o = agent("./iterate_product.cf", &["--max-iterations", "1"]);
    assert_eq!(o.status.code(), Some(3));
}

/// A host profile (web1's, with `files_root`) in `dir`.
fn profile_with_root(dir: &std::path::Path, files_root: &str) -> PathBuf {
    let text =
        std::fs::read_to_string(root().join("policies/hosts/web1-oslo-debian.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v.as_object_mut().unwrap().remove("$schema");
    v["files_root"] = serde_json::Value::String(files_root.to_string());
    let p = dir.join("host.json");
    std::fs::write(&p, v.to_string()).unwrap();
    p
}

#[test]
fn files_root_is_a_jail() {
    use std::os::unix::fs::symlink;
    let d = scratch("jail");
    std::fs::create_dir_all(d.join("outside")).unwrap();
    std::fs::write(d.join("outside/secret.txt"), "SECRET\n").unwrap();
    let r = d.join("profile/root");
    std::fs::create_dir_all(r.join("etc")).unwrap();
    std::fs::write(r.join("etc/real.txt"), "inside\n").unwrap();
    let secret = d.join("outside/secret.txt");
    symlink(&secret, r.join("etc/abs")).unwrap(); // absolute target: re-rooted
    symlink("../../../outside/secret.txt", r.join("etc/rel")).unwrap(); // climbs: stops at the root
    symlink("/etc/real.txt", r.join("etc/ok")).unwrap(); // inside the root: followed
    symlink("loop2", r.join("etc/loop1")).unwrap();
    symlink("loop1", r.join("etc/loop2")).unwrap();
    let host = profile_with_root(&d.join("profile"), "root");
    let policy = d.join("jail.cf");
    std::fs::write(
        &policy,
        format!(
            r#"bundle agent main
{{
  vars:
      "abs" string => readfile("/etc/abs", 100);
      "rel" string => readfile("/etc/rel", 100);
      "dots" string => readfile("/../../../outside/secret.txt", 100);
      "ok" string => readfile("/etc/ok", 100);
      "loop" string => readfile("/etc/loop1", 100);
  reports:
      "abs=$(abs) rel=$(rel) dots=$(dots) ok=$(ok) loop=$(loop)";
      "outside seen" if => fileexists("{}");
}}
"#,
            secret.display()
        ),
    )
    .unwrap();
    let o = run_guarded(
        &[
            "agent",
            "-K",
            "-f",
            policy.to_str().unwrap(),
            "--host",
            host.to_str().unwrap(),
        ],
        Stdio::null(),
        &d,
        Duration::from_secs(60),
    );
    let out = text(&o.stdout);
    assert!(!out.contains("SECRET"), "read outside the root:\n{out}");
    assert!(!out.contains("outside seen"), "{out}");
    assert!(
        out.contains("R: abs=$(abs) rel=$(rel) dots=$(dots) ok=inside\n loop=$(loop)"),
        "{out}"
    );
    // a relative files_root may not climb out of the profile's directory
    let bad = profile_with_root(&d.join("profile"), "..");
    let o = run_guarded(
        &[
            "agent",
            "-K",
            "-f",
            policy.to_str().unwrap(),
            "--host",
            bad.to_str().unwrap(),
        ],
        Stdio::null(),
        &d,
        Duration::from_secs(60),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stdout).contains("field `files_root`: expected a directory below the profile's directory (no `..`), or an absolute path, got string \"..\""),
        "{}",
        text(&o.stdout)
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn functions_never_block_on_special_files() {
    let d = scratch("special");
    let fifo = d.join("fifo");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let policy = d.join("special.cf");
    std::fs::write(
        &policy,
        format!(
            r#"bundle agent main
{{
  vars:
      "z" string => readfile("/dev/zero");
      "f" string => readfile("{}", 10);
      "j" data => readjson("/dev/zero", 100);
  reports:
      "done z=$(z)";
}}
"#,
            fifo.display()
        ),
    )
    .unwrap();
    // with this machine as the host: the real agent would read /dev/zero until memory runs out and
    // block on the FIFO (recorded: cf-agent 3.21 hangs on readfile of a FIFO)
    let o = run_guarded(
        &[
            "agent",
            "-K",
            "-f",
            policy.to_str().unwrap(),
            "--host",
            "local",
        ],
        Stdio::null(),
        &d,
        Duration::from_secs(60),
    );
    assert!(
        text(&o.stdout).contains("R: done z=$(z)"),
        "{}",
        text(&o.stdout)
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn a_module_named_henc_is_not_trusted_by_its_name() {
    let d = scratch("henc-name");
    std::fs::create_dir_all(d.join("modules")).unwrap();
    std::fs::create_dir_all(d.join("enc")).unwrap();
    let module = d.join("modules/henc");
    std::fs::write(&module, "#!/bin/sh\necho \"+pwned\"\n").unwrap();
    let st = Command::new("chmod")
        .arg("755")
        .arg(&module)
        .status()
        .unwrap();
    assert!(st.success());
    std::fs::write(d.join("enc/a"), "+from_enc\n").unwrap();
    std::fs::write(
        d.join("p.cf"),
        r#"bundle agent main
{
  commands:
      "$(this.promise_dirname)/modules/henc $(this.promise_dirname)/enc/a" module => "true";
  reports:
      "pwned" if => "pwned";
      "from_enc" if => "from_enc";
      "done";
}
"#,
    )
    .unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["agent", "-K", "-f", "./p.cf"];
        args.extend_from_slice(extra);
        text(&run_guarded(&args, Stdio::null(), &d, Duration::from_secs(60)).stdout)
    };
    // a different script called henc: not merged natively (the built-in merge used to answer, and
    // its classes appeared although the script never ran)
    let plain = run(&[]);
    assert!(plain.contains("is not simulated"), "{plain}");
    assert!(plain.ends_with("\nR: done\n"), "{plain}");
    assert!(
        !plain.contains("pwned") && !plain.contains("from_enc"),
        "{plain}"
    );
    // it runs only with --exec, as any command
    assert_eq!(run(&["--exec"]), "R: pwned\nR: done\n");
    // declared an hENC module explicitly: merged natively
    let m = module.to_string_lossy().into_owned();
    assert_eq!(run(&["--henc-module", &m]), "R: from_enc\nR: done\n");
    let _ = std::fs::remove_dir_all(&d);
}
