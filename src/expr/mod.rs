//! The expression layer: variable references and their expansion, implicit iteration planning, class
//! expressions, and the environment traits (`EvalEnv` for variables/classes, `HostEnv` for the machine)
//! through which built-in functions see the world. Nothing here depends on the AST.

pub mod classexpr;
pub mod env;
pub mod expand;
pub mod host;
pub mod iterate;
pub mod localhost;
pub mod memenv;
pub mod varref;

pub use env::{ClassInfo, EvalEnv, VarInfo, VarLookup};
pub use expand::{expand_scalar, Expanded};
pub use varref::VarRef;

/// The `const` scope of the agent: `$(const.n)` newline, `t` tab, `r` CR, `dollar`, `at`, `dirsep`,
/// `endl` (newline).
pub const CONST_VARS: &[(&str, &str)] = &[
    ("at", "@"),
    ("dirsep", "/"),
    ("dollar", "$"),
    ("endl", "\n"),
    ("n", "\n"),
    ("r", "\r"),
    ("t", "\t"),
];

/// The offset of the first byte `b` (ASCII) in `s` from `from` on. For the short strings expansion
/// scans many times per promise (`$` in every rval, `:`/`.` in every reference) a plain loop beats
/// `str::find`'s searcher set-up (5% of a masterfiles run went to it).
#[inline]
pub fn find_byte(s: &str, from: usize, b: u8) -> Option<usize> {
    s.as_bytes()
        .get(from..)?
        .iter()
        .position(|&c| c == b)
        .map(|i| i + from)
}

/// `s.split_once(b)` for an ASCII byte `b`, with [`find_byte`]'s loop.
#[inline]
pub fn split_once_byte(s: &str, b: u8) -> Option<(&str, &str)> {
    let i = find_byte(s, 0, b)?;
    Some((&s[..i], &s[i + 1..]))
}

/// Canonifies a string the way CFEngine forms class names: every byte outside `[A-Za-z0-9_]` becomes `_`
/// (a multibyte UTF-8 character gives one `_` per byte). One implementation, in the host layer.
pub use crate::host::canon::canonify;

#[cfg(test)]
mod tests {
    #[test]
    fn canonify_replaces_each_byte() {
        // recorded in the spec §1.6: canonify("a.b-c:d é/x y") = a_b_c_d____x_y
        assert_eq!(super::canonify("a.b-c:d é/x y"), "a_b_c_d____x_y");
    }
}
