//! The fast path of the parser: a hand-written byte-level lexer (`lex.rs`) and recursive-descent parser
//! (`parse.rs`, `rval.rs`) for the grammar of `grammar/cfengine.pest`, run first on every file.
//!
//! Design decision: the pest grammar stays the normative grammar and the error path. This parser is an
//! optimisation proven equal to it: for a file pest accepts it yields the same `Policy` (spans included)
//! and the same diagnostics as pest plus `lower.rs`, because both call the same semantic rewrites
//! (`sema.rs`); whenever it meets anything it does not accept it returns `None` and the pest path runs
//! unchanged, so every syntax error, its recovery and messages stay pest's. `tests/fast_parse.rs` and the
//! fuzz target `parse-diff` compare the two on every policy file at hand and on mutants of them.
//!
//! It follows the grammar's PEG semantics rule by rule, committing where a failed alternative can only
//! lead pest to a failure of the whole file (so returning `None` there is exact). Tokens are slices of
//! the input; only AST strings are allocated. Recursion (function-call arguments) is bounded by
//! `MAX_NESTING`.

mod lex;
mod parse;
mod rval;

use super::ast::{Body, Bundle, PromiseBlock};
use crate::diag::Diagnostic;

/// The blocks of a file the fast path accepted, and the diagnostics lowering them gave.
pub struct FastParsed {
    pub bundles: Vec<Bundle>,
    pub bodies: Vec<Body>,
    pub promise_blocks: Vec<PromiseBlock>,
    pub diags: Vec<Diagnostic>,
}

/// Parse a whole file (after the macro pass); `None` when the file is not accepted (the caller then
/// runs the pest parser, which reports the error).
pub fn parse(text: &str) -> Option<FastParsed> {
    parse::file(text)
}
