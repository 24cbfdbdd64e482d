//! Build script: link the `cfsim` binary as a position-dependent executable on Linux/glibc.
//!
//! A PIE of cfsim's size carries ~17,700 relative relocations (430 KB of `.rela.dyn`) that the dynamic
//! loader applies at every start, dirtying ~340 KB of `.data.rel.ro`: ~1 ms and ~200 page faults per
//! process, a third of a small `cfsim agent` run (measured with callgrind and `perf stat`, see
//! benches/agent.sh). A non-PIE binary starts without them. Only the binaries are affected (tests and
//! the library keep the toolchain's defaults); the objects are still position-independent, which a
//! non-PIE link accepts.
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    if os == "linux" && env == "gnu" {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
