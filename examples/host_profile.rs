//! Print a JSON host profile for a host spec (`local` or a profile path), optionally pinning the
//! clock: `cargo run --example host_profile -- local [--time EPOCH] [--uptime MINUTES] [--portable]`.
//! `--portable` drops the environment and `files_root` and copies the distro marker files cf-agent
//! reads into `files`, so the profile no longer depends on this machine.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::ExitCode;

use cfsim::host::os_classes::DISTRO_FILES;
use cfsim::host::profile_out::to_profile;
use cfsim::host::{load_host, FileSystem};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let spec = args.first().map(String::as_str).unwrap_or("local");
    let mut host = match load_host(spec) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--time" => {
                host.time.epoch = it
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--time EPOCH")
            }
            "--uptime" => host.uptime_minutes = it.next().and_then(|v| v.parse().ok()),
            "--portable" => {
                let mut fs = FileSystem::default();
                for p in DISTRO_FILES {
                    if let Some(f) = host.file(p) {
                        fs.map.insert(p.to_string(), f);
                    }
                }
                host.files = fs;
                host.env.clear();
            }
            other => {
                eprintln!("error: unknown argument `{other}`");
                return ExitCode::FAILURE;
            }
        }
    }
    println!(
        "{}",
        serde_json::to_string_pretty(&to_profile(&host)).expect("JSON")
    );
    ExitCode::SUCCESS
}
