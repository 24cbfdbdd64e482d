//! math functions.

use super::FnDef;

pub const FUNCTIONS: &[FnDef] = &[];
