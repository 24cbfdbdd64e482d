//! The rvals of `# check:` headers: a small reader for quoted strings, lists, function calls and bare words,
//! turned into `syntax::check::RvalShape`.

use cfsim::syntax::check::RvalShape;

/// An rval owned by the test (strings unescaped the way CFEngine does: only `\"`, `\'` and `\\`).
#[derive(Debug, Clone)]
pub enum Rval {
    Scalar(String),
    Bare(String),
    List(Vec<Rval>),
    FnCall(String),
}

impl Rval {
    pub fn shape(&self) -> RvalShape<'_> {
        match self {
            Rval::Scalar(s) => RvalShape::Scalar(s),
            Rval::Bare(s) => RvalShape::Bare(s),
            Rval::List(items) => RvalShape::List(items.iter().map(Rval::shape).collect()),
            Rval::FnCall(name) => RvalShape::FnCall { name },
        }
    }
}

pub fn parse_rval(s: &str) -> (Rval, &str) {
    let s = s.trim_start();
    let b = s.as_bytes();
    match b.first() {
        Some(&q @ (b'"' | b'\'')) => {
            let mut value = String::new();
            let mut chars = s[1..].char_indices();
            while let Some((i, c)) = chars.next() {
                if c == '\\' {
                    match chars.next() {
                        Some((_, n)) if n == char::from(q) || n == '\\' => value.push(n),
                        Some((_, n)) => {
                            value.push('\\');
                            value.push(n);
                        }
                        None => value.push('\\'),
                    }
                } else if c == char::from(q) {
                    return (Rval::Scalar(value), &s[i + 2..]);
                } else {
                    value.push(c);
                }
            }
            panic!("unterminated string in {s}");
        }
        Some(b'{') => {
            let mut items = Vec::new();
            let mut rest = &s[1..];
            loop {
                rest = rest.trim_start();
                if let Some(r) = rest.strip_prefix('}') {
                    return (Rval::List(items), r);
                }
                let (item, r) = parse_rval(rest);
                items.push(item);
                rest = r.trim_start();
                rest = rest.strip_prefix(',').unwrap_or(rest);
            }
        }
        _ => {
            let mut end = 0;
            let mut depth = 0;
            while end < b.len() {
                match b[end] {
                    b'(' if end > 0 && matches!(b[end - 1], b'$' | b'@') => depth += 1,
                    b')' if depth > 0 => depth -= 1,
                    b' ' | b',' | b'}' | b';' | b'(' if depth == 0 => break,
                    _ => {}
                }
                end += 1;
            }
            let token = &s[..end];
            let rest = &s[end..];
            if let Some(args) = rest.strip_prefix('(') {
                let mut depth = 1;
                let mut in_str = false;
                let mut close = args.len();
                for (i, c) in args.char_indices() {
                    match c {
                        '"' => in_str = !in_str,
                        '(' if !in_str => depth += 1,
                        ')' if !in_str => {
                            depth -= 1;
                            if depth == 0 {
                                close = i;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                (Rval::FnCall(token.to_string()), &args[close + 1..])
            } else {
                (Rval::Bare(token.to_string()), rest)
            }
        }
    }
}
