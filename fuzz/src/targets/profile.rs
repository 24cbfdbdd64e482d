//! `profile`: host profiles (`host::profile::parse_profile`) and what a run derives from one — the
//! hard classes of cf-agent and cf-promises and the `sys` variables. A relative `files_root` is
//! resolved against an empty directory of the worker, so no file of this machine is named.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cfsim::host::hard_classes::{hard_classes, Component};
use cfsim::host::profile::parse_profile;
use cfsim::host::sysvars::{render_vars, sys_vars};

use super::{gen, Target};
use crate::rng::Rng;

pub const TARGET: Target = Target {
    name: "profile",
    about: "host profiles, their hard classes and sys variables",
    dict: DICT,
    generate_percent: 30,
    max_ops: 3,
    generate,
    run,
};

const DICT: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    "\"",
    ":",
    ",",
    "null",
    "\"hostname\": ",
    "\"domain\": ",
    "\"interfaces\": ",
    "\"ipv4\": [\"10.0.0.1/8\"]",
    "\"ipv6\": [\"fe80::1/64\"]",
    "\"os\": ",
    "\"time\": ",
    "\"timezone\": ",
    "\"files\": ",
    "\"files_root\": ",
    "\"commands\": ",
    "\"users\": ",
    "\"groups\": ",
    "\"classes\": ",
    "\"env\": ",
    "\"cpus\": ",
    "\"uptime_minutes\": ",
    "\"key_digest\": ",
    "\"default_gateway\": ",
    "\"2026-01-01T00:00:00Z\"",
    "\"Europe/Oslo\"",
    "\"..\"",
    "\"/\"",
    "\"MD5=\"",
    "\"mac\": ",
    "\"flags\": [\"up\"]",
    "\"uid\": ",
    "\"gid\": ",
    "\"current_user\": ",
    "\"cf_components\": ",
    "\"host_aliases\": ",
    "\"release_id\": ",
    "\"os_release\": ",
    "\"kernel\": \"Linux\"",
];

fn generate(rng: &mut Rng) -> Vec<u8> {
    let mut fields: Vec<String> = Vec::new();
    for _ in 0..rng.small(8) {
        let (k, v) = match rng.below(12) {
            0 => ("hostname", format!("\"{}\"", rng.pick(&["web1", "a.b.c", "", "x..y", "é", "-"]))),
            1 => ("domain", format!("\"{}\"", rng.pick(&["example.com", "", ".", "a.b.c.d.e.f"]))),
            2 => ("cpus", rng.pick(&["1", "0", "-1", "4294967296", "1.5", "\"2\""]).to_string()),
            3 => ("time", format!("\"{}\"", rng.pick(&["2026-01-01T00:00:00Z", "1970-01-01T00:00:00+14:00", "9999-12-31T23:59:59Z", "x"]))),
            4 => ("timezone", format!("\"{}\"", rng.pick(&["UTC", "Europe/Oslo", "+01:00", "../../etc", ""]))),
            5 => ("interfaces", format!(
                "[{{\"name\": \"{}\", \"mac\": \"{}\", \"flags\": [\"up\"], \"ipv4\": [\"{}\"], \"ipv6\": [\"{}\"]}}]",
                rng.pick(&["eth0", "lo", "", "a b"]),
                rng.pick(&["00:11:22:33:44:55", "x", ""]),
                rng.pick(&["10.0.0.1/8", "300.1.1.1/8", "1.2.3.4/33", "1.2.3.4"]),
                rng.pick(&["fe80::1/64", "::1/128", "x::/200"]),
            )),
            6 => ("files", format!("{{\"{}\": \"{}\"}}", rng.pick(&["/etc/hosts", "rel", "", "/"]), rng.pick(&["x", "127.0.0.1 a\n", ""]))),
            7 => ("env", format!("{{\"{}\": {}}}", rng.pick(&["HOME", "", "A=B"]), gen::json(rng, 2))),
            8 => ("classes", format!("[\"{}\"]", rng.pick(&["a", "", "!x", "a.b", "é"]))),
            9 => ("users", format!(
                "[{{\"name\": \"{}\", \"uid\": {}, \"gid\": 0, \"home\": \"/root\", \"shell\": \"/bin/sh\"}}]",
                rng.pick(&["root", "", "a:b"]),
                rng.pick(&["0", "-1", "4294967296", "\"x\""])
            )),
            10 => ("os", format!(
                "{{\"kernel\": \"{}\", \"arch\": \"{}\", \"release_id\": \"{}\", \"version\": \"{}\"}}",
                rng.pick(&["Linux", "Darwin", "", "windows"]),
                rng.pick(&["x86_64", "aarch64", "", "i686"]),
                rng.pick(&["debian", "rhel", "alpine", "ubuntu", ""]),
                rng.pick(&["12", "9.3", "", "x.y.z", "99999999999999999999"])
            )),
            _ => (rng.pick(&["uptime_minutes", "key_digest", "default_gateway", "current_user", "description"]), gen::json(rng, 1)),
        };
        fields.push(format!("\"{k}\": {v}"));
    }
    format!("{{{}}}", fields.join(", ")).into_bytes()
}

/// An empty directory of this worker that relative `files_root` values resolve against.
fn base() -> &'static Path {
    static BASE: OnceLock<PathBuf> = OnceLock::new();
    BASE.get_or_init(|| {
        let d = std::env::temp_dir().join("cfsim-fuzz-profile-base");
        let _ = std::fs::create_dir_all(&d);
        d
    })
}

fn run(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let Ok(host) = parse_profile(&text, "fuzz.json", base()) else {
        return;
    };
    let _ = hard_classes(&host, Component::Agent).render();
    let _ = hard_classes(&host, Component::Promises).len();
    let _ = render_vars(&sys_vars(&host, None));
}
