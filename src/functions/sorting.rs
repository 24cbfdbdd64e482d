//! The agent's orders of `sort()`, `min()` and `max()` (`lex`, `int`, `real`, `IP`, `MAC`): its
//! comparisons (libpromises/sort.c) with C's `sscanf` readings of numbers and hardware addresses, and
//! its list merge sort, whose order of items that compare equal (and of items the comparison cannot
//! rank consistently) is part of the output (recorded: iteration/sort_modes).

/// One of the agent's orders; anything unknown is `lex`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Lex,
    Int,
    Real,
    Ip,
    Mac,
}

impl Order {
    /// `sort()`'s mode names (`IP`/`ip`, `MAC`/`mac`); `min()`/`max()` compare the case of `IP` and
    /// `MAC` away too.
    pub fn parse(mode: &str) -> Order {
        match mode {
            "int" => Order::Int,
            "real" => Order::Real,
            m if m.eq_ignore_ascii_case("ip") => Order::Ip,
            m if m.eq_ignore_ascii_case("mac") => Order::Mac,
            _ => Order::Lex,
        }
    }

    /// The agent's `GenericStringItemLess`: whether `l` sorts before `r`.
    pub fn less(self, l: &str, r: &str) -> bool {
        match self {
            Order::Lex => l.as_bytes() < r.as_bytes(),
            Order::Int => number_less(l, r, true),
            Order::Real => number_less(l, r, false),
            Order::Ip => ranked_less(l, r, super::agent_ip::parse, super::agent_ip::less),
            Order::Mac => ranked_less(l, r, ether_address, |a, b| a < b),
        }
    }
}

/// Items the order can read sort after those it cannot, which sort as strings among themselves.
fn ranked_less<T>(
    l: &str,
    r: &str,
    read: impl Fn(&str) -> Option<T>,
    less: impl Fn(&T, &T) -> bool,
) -> bool {
    match (read(l), read(r)) {
        (Some(a), Some(b)) => less(&a, &b),
        (Some(_), None) => false,
        (None, Some(_)) => true,
        (None, None) => l.as_bytes() < r.as_bytes(),
    }
}

/// `StringItemNumberLess`: `%lf` readings, compared as C `long`s (`int`) or doubles (`real`). The
/// agent writes `(long)l - (long)r < 0`, which its compiler makes `(long)l < (long)r` (a signed overflow
/// cannot happen in C): `inf`, `nan` and `1e400` (all `LONG_MIN` once converted) come before every
/// other number, never after (recorded).
fn number_less(l: &str, r: &str, int_mode: bool) -> bool {
    ranked_less(l, r, scan_double, |a, b| {
        if int_mode {
            c_long(*a) < c_long(*b)
        } else {
            a - b < 0.0
        }
    })
}

/// A double converted to a C `long` as x86-64 does it: truncated; NaN, infinities and values out of
/// range give the "integer indefinite" value `i64::MIN`.
pub fn c_long(x: f64) -> i64 {
    if x.is_finite() && x > -9.223_372_036_854_776e18 && x < 9.223_372_036_854_776e18 {
        x.trunc() as i64
    } else {
        i64::MIN
    }
}

/// What `sscanf(s, "%lf", &x)` reads (cf-promises' own reader, `syntax::check::numbers`).
pub fn scan_double(s: &str) -> Option<f64> {
    crate::syntax::check::numbers::scan_double(s).map(|(v, _)| v)
}

fn hex_digit(c: u8) -> Option<u32> {
    char::from(c).to_digit(16)
}

/// `ParseEtherAddress`: six `%hhx` fields separated by `:` when the text is longer than 12
/// characters, else six packed `%2hhx` fields; an address only when all six are read.
fn ether_address(s: &str) -> Option<[u8; 6]> {
    let b = s.as_bytes();
    let mut out = [0u8; 6];
    let mut at = 0;
    let colons = b.len() > 12;
    for (n, slot) in out.iter_mut().enumerate() {
        if colons && n > 0 {
            if b.get(at) != Some(&b':') {
                return None;
            }
            at += 1;
        }
        let (v, used) = scan_hex(b.get(at..)?, if colons { usize::MAX } else { 2 })?;
        *slot = v as u8;
        at += used;
    }
    Some(out)
}

/// One `%x` conversion within `width` characters: blanks skipped (not counted), an optional sign, an
/// optional `0x`, hexadecimal digits; the value (negated as `strtoul` does, kept modulo 2^64) and the
/// bytes read, or `None` when no digit was read.
fn scan_hex(b: &[u8], width: usize) -> Option<(u64, usize)> {
    let start = b
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r'))?;
    let mut i = start;
    let mut left = width;
    let neg = match b.get(i) {
        Some(c @ (b'-' | b'+')) if left > 0 => {
            i += 1;
            left -= 1;
            *c == b'-'
        }
        _ => false,
    };
    if left >= 2
        && b.get(i) == Some(&b'0')
        && matches!(b.get(i + 1), Some(b'x' | b'X'))
        && left >= 3
        && b.get(i + 2).copied().and_then(hex_digit).is_some()
    {
        i += 2;
        left -= 2;
    }
    let mut v: u64 = 0;
    let mut any = false;
    while left > 0 {
        let Some(d) = b.get(i).copied().and_then(hex_digit) else {
            break;
        };
        v = v.wrapping_mul(16).wrapping_add(u64::from(d));
        any = true;
        i += 1;
        left -= 1;
    }
    any.then_some((if neg { v.wrapping_neg() } else { v }, i))
}

/// Sorts as the agent's list merge sort (Simon Tatham's, in libpromises/sort.c) does: runs of
/// doubling length merged in place, the left item taken only when it is less than the right one.
pub fn agent_sort(items: &mut Vec<String>, order: Order) {
    let n = items.len();
    if n < 2 {
        return;
    }
    let mut list: Vec<usize> = (0..n).collect();
    let mut insize = 1;
    loop {
        let mut merged = Vec::with_capacity(n);
        let mut nmerges = 0;
        let mut p = 0;
        while p < n {
            nmerges += 1;
            let q = (p + insize).min(n);
            let q_end = (q + insize).min(n);
            let (mut i, mut j) = (p, q);
            while i < q || j < q_end {
                let take_left = if i == q {
                    false
                } else if j == q_end {
                    true
                } else {
                    let (Some(&a), Some(&b)) = (list.get(i), list.get(j)) else {
                        break;
                    };
                    order.less(&items[a], &items[b])
                };
                if take_left {
                    merged.extend(list.get(i).copied());
                    i += 1;
                } else {
                    merged.extend(list.get(j).copied());
                    j += 1;
                }
            }
            p = q_end;
        }
        list = merged;
        if nmerges <= 1 {
            break;
        }
        insize *= 2;
    }
    let mut taken: Vec<Option<String>> = std::mem::take(items).into_iter().map(Some).collect();
    *items = list
        .into_iter()
        .filter_map(|k| taken.get_mut(k).and_then(Option::take))
        .collect();
}

/// `min()`/`max()`: the agent's scan over the list (a later item equal to the minimum replaces it;
/// the first of equal maxima stays).
pub fn extreme(items: &[String], order: Order, want_max: bool) -> Option<&String> {
    let mut it = items.iter();
    let first = it.next()?;
    let (mut min, mut max) = (first, first);
    for x in it {
        if !order.less(min, x) {
            min = x;
        }
        if order.less(max, x) {
            max = x;
        }
    }
    Some(if want_max { max } else { min })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_are_read_as_sscanf_reads_them() {
        assert_eq!(scan_double(" 4"), Some(4.0));
        assert_eq!(scan_double("2k"), Some(2.0));
        assert_eq!(scan_double("0x10"), Some(16.0));
        assert_eq!(scan_double("1e2"), Some(100.0));
        assert_eq!(scan_double("1e"), Some(1.0));
        assert_eq!(scan_double("-.5"), Some(-0.5));
        // sscanf, unlike strtod, fails on a "0x" without digits (cf-promises' reader, measured there)
        assert_eq!(scan_double("0x"), None);
        assert!(scan_double("inf").is_some_and(f64::is_infinite));
        assert_eq!(scan_double("abc"), None);
        assert_eq!(scan_double("."), None);
        assert_eq!(scan_double(""), None);
    }

    #[test]
    fn hardware_addresses_are_read_as_parse_ether_address_reads_them() {
        assert_eq!(ether_address("00:01:02:03:04:06"), Some([0, 1, 2, 3, 4, 6]));
        assert_eq!(ether_address("1:2:3:4:5:6:7"), Some([1, 2, 3, 4, 5, 6]));
        // `%2hhx` takes a sign: "-2" is 0xfe
        assert_eq!(
            ether_address("1-2-3-4-5-6"),
            Some([1, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa])
        );
        assert_eq!(
            ether_address("001122334455"),
            Some([0, 0x11, 0x22, 0x33, 0x44, 0x55])
        );
        assert_eq!(ether_address("0:0:0:0:0:1"), None);
        assert_eq!(ether_address("ff:ff"), None);
        assert_eq!(ether_address("10"), None);
    }
}
