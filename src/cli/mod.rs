//! Subcommand implementations behind the thin `main.rs`: each takes parsed flags and returns an exit code.

pub mod agent;
pub mod compat;
pub mod diff;
pub mod explain;
pub mod fleet;
pub mod graph;
pub mod promises;
pub mod test;
