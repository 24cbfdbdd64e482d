//! Build script: how the `cfsim` binary is linked on Linux/glibc (position-dependent; its functions in
//! the order of `benches/cfsim.order` where the linker is LLD).
//!
//! A PIE of cfsim's size carries ~17,700 relative relocations (430 KB of `.rela.dyn`) that the dynamic
//! loader applies at every start, dirtying ~340 KB of `.data.rel.ro`: ~1 ms and ~200 page faults per
//! process, a third of a small `cfsim agent` run (measured with callgrind and `perf stat`, see
//! benches/agent.sh). A non-PIE binary starts without them. Only the binaries are affected (tests and
//! the library keep the toolchain's defaults); the objects are still position-independent, which a
//! non-PIE link accepts.
//!
//! The symbol ordering (benches/symbol-order.sh writes the file and says why) needs LLD, the linker
//! rustc uses on x86_64 Linux/glibc from Rust 1.90 on; GNU ld does not know the option. It is left out
//! for other targets, older compilers, a linker named in `RUSTFLAGS` or the target's `LINKER` variable,
//! and when `CFSIM_NO_SYMBOL_ORDER` is set.
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    let order = Path::new(&var("CARGO_MANIFEST_DIR")).join("benches/cfsim.order");
    println!("cargo:rerun-if-changed={}", order.display());
    println!("cargo:rerun-if-env-changed=CFSIM_NO_SYMBOL_ORDER");
    println!("cargo:rerun-if-env-changed=CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER");
    let own_linker = var("CARGO_ENCODED_RUSTFLAGS").contains("link")
        || std::env::var_os("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER").is_some();
    if var("TARGET") == "x86_64-unknown-linux-gnu"
        && !own_linker
        && std::env::var_os("CFSIM_NO_SYMBOL_ORDER").is_none()
        && rustc_minor() >= Some(90)
        && order.is_file()
    {
        println!(
            "cargo:rustc-link-arg-bins=-Wl,--symbol-ordering-file={}",
            order.display()
        );
        println!("cargo:rustc-link-arg-bins=-Wl,--no-warn-symbol-ordering");
    }
}

/// The minor version of the compiler cargo builds with (`rustc 1.95.0 (…)` → 95).
fn rustc_minor() -> Option<u32> {
    let rustc = std::env::var_os("RUSTC")?;
    let out = std::process::Command::new(rustc).arg("-V").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split('.');
    (parts.next()? == "1").then_some(())?;
    parts.next()?.parse().ok()
}
