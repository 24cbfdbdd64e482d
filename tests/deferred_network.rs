//! `cfsim agent` on the local host starts without the network facts and runs again on the fully
//! discovered host when the policy asks for one (`src/host/netwatch.rs`): whatever the policy reads,
//! its output is the output of a run with discovery up front (`CFSIM_NO_DEFERRED_NETWORK` set). Each
//! policy below reads the network facts another way; the last reads none; the masterfiles' two entries
//! read them during their pre-evaluation.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::process::Command;

const POLICIES: &[(&str, &str)] = &[
    (
        "sys_scalar",
        "reports:\n\"ipv4 $(sys.ipv4) interface $(sys.interface)\";",
    ),
    (
        "sys_array",
        "vars:\n\"i\" slist => getindices(\"sys.ipv4\");\n\"m\" slist => getvalues(\"sys.hardware_mac\");\n\
         reports:\n\"i $(i) m $(m) flags $(sys.interface_flags[$(i)])\";",
    ),
    (
        "sys_list",
        "reports:\n\"ip $(sys.ip_addresses) if $(sys.interfaces)\";",
    ),
    (
        "sys_data",
        "vars:\n\"j\" string => storejson(\"sys.inet\");\nreports:\n\"inet $(j)\";",
    ),
    (
        "class_guard",
        "classes:\n\"mylo\" expression => \"net_iface_lo\";\n\"v4\" expression => classmatch(\"ipv4_.*\");\n\
         reports:\nmylo::\n\"lo\";\nv4::\n\"v4\";\nipv4_127_0_0_1::\n\"localhost address\";\n\
         127_0_0_1::\n\"bare address\";\nany::\n\"end\";",
    ),
    (
        "class_listing",
        "vars:\n\"c\" slist => classesmatching(\"(ipv4|ipv6|mac|net_iface)_.*\");\n\
         \"n\" int => length(\"c\");\nreports:\n\"classes $(n)\";",
    ),
    (
        "var_listing",
        "vars:\n\"v\" slist => variablesmatching(\"default:sys\\.ip.*\");\n\"n\" int => length(\"v\");\n\
         \"d\" data => datastate();\nreports:\n\"vars $(n)\";",
    ),
    (
        "iprange",
        "classes:\n\"lo8\" expression => iprange(\"127.0.0.0/8\");\n\"any4\" expression => iprange(\"0.0.0.0/0\");\n\
         reports:\nlo8::\n\"in 127/8\";\nany4::\n\"in 0/0\";\nany::\n\"end\";",
    ),
    (
        "defines_hard_name",
        "classes:\n\"net_iface_lo\" expression => \"any\";\n\"ipv4_127\" expression => \"any\";\n\
         vars:\n\"t\" slist => getclassmetatags(\"net_iface_lo\");\n\
         reports:\nnet_iface_lo::\n\"set\";\nany::\n\"tags $(t)\";",
    ),
    (
        // no network fact named: the order of a classic array's indices follows the agent's table,
        // whose size counts the network's `sys` variables too
        "array_order",
        "vars:\n\"ok[1][0]\" string => \"a\";\n\"ok[2][0]\" string => \"b\";\n\"ok[3][0]\" string => \"c\";\n\
         \"k\" slist => getindices(\"ok\");\n\"v\" slist => getvalues(\"ok[2]\");\nreports:\n\"k $(k)\";\n\"v $(v)\";",
    ),
    (
        "none",
        "reports:\n\"Hello from $(sys.fqhost) on $(sys.os)\";",
    ),
];

fn run(dir: &std::path::Path, args: &[&str], deferred: bool) -> (String, Option<i32>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_cfsim"));
    cmd.current_dir(dir).args(args);
    if deferred {
        cmd.env_remove("CFSIM_NO_DEFERRED_NETWORK");
    } else {
        cmd.env("CFSIM_NO_DEFERRED_NETWORK", "1");
    }
    let out = cmd.output().expect("cfsim runs");
    (
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        out.status.code(),
    )
}

#[test]
fn deferred_network_discovery_changes_no_output() {
    let dir = std::env::temp_dir().join(format!("cfsim-deferred-net-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, body) in POLICIES {
        let file = format!("{name}.cf");
        std::fs::write(
            dir.join(&file),
            format!(
                "body common control {{ bundlesequence => {{ \"main\" }}; }}\nbundle agent main\n{{\n{body}\n}}\n"
            ),
        )
        .unwrap();
        let args = ["agent", "-K", "-f", file.as_str()];
        let deferred = run(&dir, &args, true);
        let full = run(&dir, &args, false);
        assert_eq!(deferred, full, "{name}");
        assert_eq!(deferred.1, Some(0), "{name}: {}", deferred.0);
        assert!(deferred.0.contains("R: "), "{name}: {}", deferred.0);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn deferred_network_changes_no_masterfiles_run() {
    let mf = std::path::Path::new("/usr/share/cfengine3/masterfiles");
    // CI installs cfengine3 (its masterfiles); without them there is nothing to compare
    if !mf.join("promises.cf").is_file() {
        eprintln!("no masterfiles at {}: not compared", mf.display());
        return;
    }
    for f in ["./promises.cf", "./update.cf"] {
        let args = ["agent", "-K", "-f", f];
        let deferred = run(mf, &args, true);
        let full = run(mf, &args, false);
        assert_eq!(deferred, full, "{f}");
    }
}
