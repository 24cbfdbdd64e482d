//! cfsim: simulate CFEngine 3.21 agent runs.
//!
//! Pipeline: `source` (files, spans, line index) → `syntax` (pest grammar → typed AST with spans) →
//! `diag` (cf-promises style diagnostics). Later stages (pre-evaluation, the three-pass evaluator, the
//! module protocol and hENC) build on the AST.

pub mod diag;
pub mod host;
pub mod source;
