//! The agent's own IP address reader (`IPAddressNew` in its ip_address.c), which `sort()`, `min()` and
//! `max()` use in `IP` mode, with its quirks kept: IPv4 octets with leading zeros and a `:port`, one
//! trailing character of any kind after the last octet (not counted), lower-case IPv6 only, `[…]:port`
//! forms, no embedded IPv4 (recorded: iteration/sort_modes).

/// An address as the agent reads it (ports are read and checked, not kept: they do not order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentIp {
    V4([u8; 4]),
    V6([u16; 8]),
}

/// `IPAddressNew`: the IPv4 reading, else the IPv6 one.
pub fn parse(s: &str) -> Option<AgentIp> {
    ipv4(s.as_bytes())
        .map(AgentIp::V4)
        .or_else(|| ipv6(s.as_bytes()).map(AgentIp::V6))
}

/// `IPAddressCompareLess`: IPv4 before IPv6, each by its numbers.
pub fn less(a: &AgentIp, b: &AgentIp) -> bool {
    match (a, b) {
        (AgentIp::V4(x), AgentIp::V4(y)) => x < y,
        (AgentIp::V6(x), AgentIp::V6(y)) => x < y,
        (AgentIp::V4(_), AgentIp::V6(_)) => true,
        (AgentIp::V6(_), AgentIp::V4(_)) => false,
    }
}

/// `IPV4_parser`: `d.d.d.d[:port]`. A character that fits no state ends the parse in its error state,
/// which the agent only notices when another character follows: a last character of any kind after
/// the digits of an octet is accepted (and that octet is not stored).
fn ipv4(s: &[u8]) -> Option<[u8; 4]> {
    let mut octets = [0u8; 4];
    let (mut octet, mut port) = (0u32, 0u32);
    let (mut periods, mut colons, mut chars) = (0, 0, 0);
    let mut has_digit = false;
    let mut state = 0usize;
    for &c in s {
        let (digit, period, colon) = (c.is_ascii_digit(), c == b'.', c == b':');
        periods += usize::from(period);
        colons += usize::from(colon);
        let mut change = false;
        match state {
            0..=2 => {
                if digit {
                    octet = octet * 10 + u32::from(c - b'0');
                    has_digit = true;
                } else if period {
                    if let Some(o) = octets.get_mut(state) {
                        *o = octet as u8;
                    }
                    state += 1;
                    change = true;
                } else {
                    state = 7;
                    change = true;
                }
            }
            3 => {
                if digit {
                    octet = octet * 10 + u32::from(c - b'0');
                    has_digit = true;
                } else if colon {
                    octets[3] = octet as u8;
                    state = 5;
                    change = true;
                } else {
                    state = 7;
                    change = true;
                }
            }
            5 => {
                if digit {
                    port = port * 10 + u32::from(c - b'0');
                } else {
                    state = 7;
                    change = true;
                }
            }
            _ => return None,
        }
        chars += 1;
        if octet > 255 || port > 65535 || periods > 1 || colons > 1 {
            return None;
        }
        if change {
            if !has_digit {
                return None;
            }
            (chars, octet, port, periods, colons, has_digit) = (0, 0, 0, 0, 0, false);
        }
    }
    match state {
        0..=2 => None,
        3 if chars == 0 => None,
        3 => {
            octets[3] = octet as u8;
            Some(octets)
        }
        5 if chars == 0 => None,
        _ => Some(octets),
    }
}

/// `IPV6_parser`: eight lower-case groups, `::` once, optional brackets with a port after them.
fn ipv6(s: &[u8]) -> Option<[u16; 8]> {
    let mut groups = [0u16; 8];
    let mut unsorted: Vec<u32> = Vec::new();
    let (mut sixteen, mut port, mut chars) = (0u32, 0u32, 0usize);
    let (mut bracket, mut compressed, mut upper) = (false, false, false);
    let mut state = 0usize;
    for &c in s {
        let hex = c.is_ascii_hexdigit();
        if hex && c.is_ascii_alphabetic() {
            upper = c.is_ascii_uppercase();
        }
        // RFC 5952 forbids upper-case digits: the agent rejects them
        let digit = |sixteen: &mut u32, state: &mut usize, change: &mut bool| {
            if upper {
                *state = 11;
                *change = true;
            } else {
                *sixteen = *sixteen * 16 + char::from(c).to_digit(16).unwrap_or(0);
            }
        };
        let mut change = false;
        let error = |state: &mut usize, change: &mut bool| {
            *state = 11;
            *change = true;
        };
        match state {
            0 => {
                if c == b'[' {
                    if chars == 0 {
                        bracket = true;
                    } else {
                        error(&mut state, &mut change);
                    }
                } else if hex {
                    digit(&mut sixteen, &mut state, &mut change);
                } else if c == b':' {
                    groups[0] = sixteen as u16;
                    state = 1;
                    change = true;
                } else {
                    error(&mut state, &mut change);
                }
            }
            1 => {
                if hex {
                    digit(&mut sixteen, &mut state, &mut change);
                } else if c == b':' {
                    if chars == 0 {
                        compressed = true;
                    } else {
                        groups[1] = sixteen as u16;
                    }
                    state += 1;
                    change = true;
                } else {
                    error(&mut state, &mut change);
                }
            }
            2..=6 => {
                if hex {
                    digit(&mut sixteen, &mut state, &mut change);
                } else if c == b':' {
                    if chars == 0 {
                        // a second `::`; the first one leaves the state as it is
                        if compressed {
                            error(&mut state, &mut change);
                        } else {
                            compressed = true;
                        }
                    } else {
                        if compressed {
                            unsorted.push(sixteen);
                        } else if let Some(g) = groups.get_mut(state) {
                            *g = sixteen as u16;
                        }
                        state += 1;
                        change = true;
                    }
                } else if c == b']' {
                    if bracket && compressed {
                        bracket = false;
                        unsorted.push(sixteen);
                        state = 8;
                        change = true;
                    } else {
                        error(&mut state, &mut change);
                    }
                } else {
                    error(&mut state, &mut change);
                }
            }
            7 => {
                if hex {
                    digit(&mut sixteen, &mut state, &mut change);
                } else if c == b']' && bracket {
                    bracket = false;
                    groups[7] = sixteen as u16;
                    state = 8;
                    change = true;
                } else {
                    error(&mut state, &mut change);
                }
            }
            8 => {
                if c == b':' {
                    state = 9;
                    change = true;
                } else {
                    error(&mut state, &mut change);
                }
            }
            9 => {
                if c.is_ascii_digit() {
                    port = port * 10 + u32::from(c - b'0');
                } else {
                    error(&mut state, &mut change);
                }
            }
            10 => {}
            _ => return None,
        }
        chars += 1;
        if sixteen > 0xFFFF || port > 65535 {
            return None;
        }
        if change {
            (sixteen, port, chars, upper) = (0, 0, 0, false);
        }
    }
    match state {
        0 | 1 | 11 => None,
        2..=6 => {
            if bracket {
                return None;
            }
            unsorted.push(sixteen);
            if !compressed {
                return None;
            }
            // the groups read after `::` end the address, the last one last
            for (i, v) in unsorted.iter().rev().enumerate() {
                if let Some(g) = 7usize.checked_sub(i).and_then(|k| groups.get_mut(k)) {
                    *g = *v as u16;
                }
            }
            Some(groups)
        }
        7 => {
            if chars == 0 || bracket {
                return None;
            }
            groups[7] = sixteen as u16;
            Some(groups)
        }
        8 => {
            if compressed {
                // the agent places them from the end in the order read (its bracket path)
                for (i, v) in unsorted.iter().enumerate() {
                    if let Some(g) = 7usize.checked_sub(i).and_then(|k| groups.get_mut(k)) {
                        *g = *v as u16;
                    }
                }
            }
            Some(groups)
        }
        9 if chars == 0 => None,
        _ => Some(groups),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv4_as_the_agent_reads_it() {
        assert_eq!(parse("10.0.0.1"), Some(AgentIp::V4([10, 0, 0, 1])));
        assert_eq!(parse("010.0.0.1"), Some(AgentIp::V4([10, 0, 0, 1])));
        assert_eq!(parse("10.0.0.1:80"), Some(AgentIp::V4([10, 0, 0, 1])));
        // one trailing character is not noticed, and the last octet is then not stored
        assert_eq!(parse("1.2.3.4 "), Some(AgentIp::V4([1, 2, 3, 0])));
        for bad in [
            "1.2.3",
            "300.1.1.1",
            " 1.2.3.4",
            "1.2.3.4/24",
            "1.2.3.4:",
            "1..2.3",
            "",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn ipv6_as_the_agent_reads_it() {
        assert_eq!(parse("::"), Some(AgentIp::V6([0; 8])));
        assert_eq!(parse("::1"), Some(AgentIp::V6([0, 0, 0, 0, 0, 0, 0, 1])));
        assert_eq!(
            parse("fe80::1"),
            Some(AgentIp::V6([0xfe80, 0, 0, 0, 0, 0, 0, 1]))
        );
        assert_eq!(parse("1::"), Some(AgentIp::V6([1, 0, 0, 0, 0, 0, 0, 0])));
        // with a port, the groups read after `::` are never placed (the agent's parser places them
        // only when the address ends at the bracket): `[::1]:80` is `::`
        assert_eq!(parse("[::1]:80"), Some(AgentIp::V6([0; 8])));
        assert_eq!(parse("[::1]"), Some(AgentIp::V6([0, 0, 0, 0, 0, 0, 0, 1])));
        // … and places them from the end in the order read
        assert_eq!(
            parse("[1::2:3]"),
            Some(AgentIp::V6([1, 0, 0, 0, 0, 0, 3, 2]))
        );
        assert_eq!(
            parse("1:2:3:4:5:6:7:8"),
            Some(AgentIp::V6([1, 2, 3, 4, 5, 6, 7, 8]))
        );
        for bad in [
            "FE80::1",
            "::ffff:1.2.3.4",
            "1:2:3:4:5:6:7",
            "1::2::3",
            "[::1",
        ] {
            assert_eq!(parse(bad), None, "{bad}");
        }
    }
}
