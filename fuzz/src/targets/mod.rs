//! The fuzz targets: each calls the library directly on one input, with explicit limits, and has a
//! structure-aware generator and a dictionary of tokens for the mutator.

use crate::rng::Rng;

mod agent;
mod data;
mod env;
mod expr;
mod functions;
pub mod gen;
mod henc;
mod module;
mod parse;
mod parse_diff;
mod profile;

/// One target.
pub struct Target {
    pub name: &'static str,
    pub about: &'static str,
    /// Tokens the mutator inserts.
    pub dict: &'static [&'static str],
    /// Percent of inputs made new by `generate` (the others are mutated corpus entries or generated
    /// inputs): structured targets whose mutants rarely get past the first check generate more.
    pub generate_percent: usize,
    /// Most mutations stacked on one input.
    pub max_ops: usize,
    /// Makes a new input.
    pub generate: fn(&mut Rng) -> Vec<u8>,
    /// Runs the library on an input; a panic is a finding.
    pub run: fn(&[u8]),
}

/// Every target, in the order `list` prints them.
pub const ALL: &[&Target] = &[
    &parse::TARGET,
    &parse_diff::TARGET,
    &expr::TARGET,
    &functions::TARGET,
    &data::TARGET,
    &module::TARGET,
    &profile::TARGET,
    &henc::TARGET,
    &agent::TARGET,
];

/// The target called `name`.
pub fn find(name: &str) -> Option<&'static Target> {
    ALL.iter().copied().find(|t| t.name == name)
}
