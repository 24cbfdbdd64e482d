//! Flags of cf-agent and cf-promises 3.21 that cfsim accepts so that the command lines CFEngine users
//! type work unchanged, but that cannot change a simulation (they bootstrap, colour, time-stamp, tune
//! the real work directory or debug the C implementation): each one used is named once on stderr with
//! why it has no effect, and the run goes on.

/// A flag given on the command line that has no effect here, and why.
pub struct Ignored {
    pub flag: &'static str,
    pub why: &'static str,
}

/// Prints one line per flag used (stderr), in the order given.
pub fn report(used: &[Ignored]) {
    for i in used {
        eprintln!("cfsim: {} accepted for compatibility: {}", i.flag, i.why);
    }
}

/// The version line `-V` prints: the CFEngine version cfsim simulates, as the real tools print it,
/// then cfsim's own.
pub fn version() -> String {
    format!(
        "CFEngine Core {}\ncfsim {} (simulation)\n",
        crate::host::hard_classes::CF_VERSION,
        env!("CARGO_PKG_VERSION")
    )
}

/// `cf-promises -s json`: the syntax tables of the CFEngine version cfsim simulates, byte for byte what
/// cf-promises 3.21.0 prints (the file the checker's tables are generated from).
pub const SYNTAX_JSON: &str = include_str!("../syntax/cf-syntax-3.21.0.json");
