//! The in-memory world the expression and function targets evaluate in: variables of every kind
//! (scalars, lists, arrays, data containers, references to references), a few classes, and a
//! `MemHost` with files, a directory, commands and users — nothing of this machine is read.

use cfsim::expr::host::MemHost;
use cfsim::expr::memenv::MemEnv;
use cfsim::value::Value;

/// The variables and classes (built once per process and cloned per input).
pub fn mem_env() -> MemEnv {
    let mut e = MemEnv::new("main");
    e.set("s", Value::str("hello"));
    e.set("n", Value::int(42));
    e.set("i", Value::str("1"));
    e.set("nested", Value::str("$(s)"));
    e.set("l", Value::slist(vec!["a".into(), "b".into(), "c".into()]));
    e.set("l2", Value::slist(vec!["x".into(), "$(s)".into()]));
    e.set("empty", Value::slist(Vec::new()));
    e.set(
        "big",
        Value::slist((0..100).map(|i| format!("item{i}")).collect()),
    );
    e.set("arr[k]", Value::str("v"));
    e.set("arr[hello]", Value::str("w"));
    e.set("x[1]", Value::str("s"));
    e.set(
        "d",
        Value::Data(
            serde_json::json!({"a": "1", "list": [1, 2, {"k": null}], "b": {"c": [true, 1.5]}}),
        ),
    );
    e.set("b.s", Value::str("other"));
    for c in [
        "any", "linux", "debian", "cfengine", "a", "web", "x86_64", "Hr12",
    ] {
        e.define(c, &[]);
    }
    e.define_local("b", &["source=promise"]);
    e
}

/// Sample contents of the data files when the input is not put there.
const SAMPLES: &[(&str, &[u8])] = &[
    ("/in.json", b"{\"a\": [1, 2, {\"b\": null}], \"s\": \"x\"}"),
    ("/in.csv", b"a,b,c\n1,\"2,3\",4\n\"x\"\"y\",,\n"),
    ("/in.env", b"A=1\nexport B=\"two words\"\n# c\nC='x'\n"),
    ("/in.yaml", b"---\na: [1, 2]\nb:\n  c: d\n"),
    ("/in.txt", b"line one\nline 2\n3\n"),
    ("/d/in", b"10 20 30\n"),
];

/// A host whose data files hold `input` (or samples when `None`).
pub fn mem_host(input: Option<&[u8]>) -> MemHost {
    let mut h = MemHost {
        now: 1_767_225_600,
        hostname: "web1".into(),
        ..MemHost::default()
    };
    for (name, sample) in SAMPLES {
        h.files
            .insert((*name).into(), input.unwrap_or(sample).to_vec());
    }
    h.files
        .insert("/d/a.json".into(), b"{\"a\": [1, 2]}".to_vec());
    h.files
        .insert("/d/sub/b.txt".into(), b"line1\nline2\n".to_vec());
    h.dirs = vec!["/".into(), "/d".into(), "/d/sub".into()];
    h.commands
        .insert("/bin/echo hi".into(), (0, "hi\n".into(), String::new()));
    h.env.insert("HOME".into(), "/root".into());
    h.addresses = vec![("eth0".into(), "10.0.0.1".into())];
    h.hosts.insert("web1".into(), vec!["10.0.0.1".into()]);
    h
}
