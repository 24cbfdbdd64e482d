//! `processes:` promises (placeholder while being written).
use crate::eval::{BundleDef, Engine};
use crate::syntax::ast::Promise;
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    crate::promise::unsimulated::evaluate(e, def, "processes", p, promiser);
}
