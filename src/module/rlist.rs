//! The list literal accepted by the module protocol's `@name=` lines in CFEngine 3.21: `{` then one or more
//! single- or double-quoted items separated by commas, then `}`; blanks (space, tab) allowed between tokens.
//! No escapes, no empty list, no trailing comma. Errors carry the agent's exact log text. The quirk that an
//! error on the very last byte is reported as "unexpected end of input" is reproduced (observed: `{ }`).

/// Why a list literal was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RlistError {
    /// Logged as `Parsing error : Malformed string`.
    Malformed,
    /// Logged as `Parsing error : Malformed string (unexpected end of input)`.
    UnexpectedEnd,
}

impl RlistError {
    /// The agent's error log message.
    pub fn message(self) -> &'static str {
        match self {
            RlistError::Malformed => "Parsing error : Malformed string",
            RlistError::UnexpectedEnd => {
                "Parsing error : Malformed string (unexpected end of input)"
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum St {
    Opened,
    Io,
    Item(u8),
    End,
    Sep,
    PreClosed,
    Error,
}

fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Parse a module-protocol list literal into its items.
pub fn parse(text: &str) -> Result<Vec<String>, RlistError> {
    let mut items = Vec::new();
    let mut cur: Vec<u8> = Vec::new();
    let mut st = St::Opened;
    for &b in text.as_bytes() {
        st = match st {
            // An error is only reported when another byte follows it.
            St::Error => return Err(RlistError::Malformed),
            St::Opened if blank(b) => St::Opened,
            St::Opened if b == b'{' => St::Io,
            St::Io | St::Sep if blank(b) => st,
            St::Io | St::Sep if b == b'\'' || b == b'"' => {
                cur.clear();
                St::Item(b)
            }
            St::Item(q) if b == q => {
                items.push(String::from_utf8_lossy(&cur).into_owned());
                St::End
            }
            St::Item(q) => {
                cur.push(b);
                St::Item(q)
            }
            St::End if b == b',' => St::Sep,
            St::End if b == b'}' => St::PreClosed,
            St::End | St::PreClosed if blank(b) => st,
            _ => St::Error,
        };
    }
    if st == St::PreClosed {
        Ok(items)
    } else {
        Err(RlistError::UnexpectedEnd)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn accepts_quoted_items() {
        assert_eq!(parse(r#" { "a", 'b' } "#).unwrap(), vec!["a", "b"]);
        assert_eq!(parse(r#"{"x,y"}"#).unwrap(), vec!["x,y"]);
    }

    #[test]
    fn rejects_like_the_agent() {
        // Each case observed with cf-agent 3.21.0 (policies/modules/lists).
        assert_eq!(parse("{ }"), Err(RlistError::UnexpectedEnd));
        assert_eq!(parse("a,b"), Err(RlistError::Malformed));
        assert_eq!(parse(r#"{ "a", }"#), Err(RlistError::UnexpectedEnd));
        assert_eq!(parse(""), Err(RlistError::UnexpectedEnd));
        assert_eq!(parse(r#"{ "say \"hi\"" }"#), Err(RlistError::Malformed));
    }
}
