//! Class-name canonification as cf-agent's `CanonifyName` does it (byte-wise: every byte that is not
//! an ASCII letter, digit or `_` becomes `_`). Kept here so the host derivations need nothing else.

/// Replace every byte that is not `[A-Za-z0-9_]` with `_` (multi-byte UTF-8 gives one `_` per byte).
pub fn canonify(s: &str) -> String {
    let mut out = s.as_bytes().to_vec();
    for b in &mut out {
        if !(b.is_ascii_alphanumeric() || *b == b'_') {
            *b = b'_';
        }
    }
    // every byte is ASCII now
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::canonify;

    #[test]
    fn canonify_bytes() {
        assert_eq!(canonify("192.0.2.2"), "192_0_2_2");
        assert_eq!(canonify("fe80::fc:ff:fe00:1"), "fe80__fc_ff_fe00_1");
        assert_eq!(canonify("#1 SMP"), "_1_SMP");
        assert_eq!(canonify("ø"), "__");
    }
}
