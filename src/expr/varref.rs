//! Parsing of one variable reference name (`ns:bundle.var[i1][i2]`) and its resolution to the
//! (namespace, scope, lval) triple the variable table is keyed by.

use super::env::VarLookup;

/// Scopes that are visible from every namespace.
pub const SPECIAL_SCOPES: &[&str] = &["sys", "const", "this", "match", "mon", "edit", "body"];

/// A parsed reference: the text between `$(` and `)`, after inner references were expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarRef {
    pub ns: Option<String>,
    pub scope: Option<String>,
    /// The variable name without indices.
    pub name: String,
    /// Index texts, in order (`a[k1][2]` → `k1`, `2`).
    pub indices: Vec<String>,
}

impl VarRef {
    /// Parses `[ns:][scope.]name{[index]}`. Separators inside brackets do not count.
    pub fn parse(text: &str) -> VarRef {
        let bracket = text.find('[').unwrap_or(text.len());
        let (head, tail) = text.split_at(bracket);
        let (ns, rest) = match head.find(':') {
            Some(i) => (Some(head[..i].to_string()), &head[i + 1..]),
            None => (None, head),
        };
        let (scope, name) = match rest.find('.') {
            Some(i) => (Some(rest[..i].to_string()), rest[i + 1..].to_string()),
            None => (None, rest.to_string()),
        };
        VarRef {
            ns,
            scope,
            name,
            indices: split_indices(tail),
        }
    }

    /// The lval with indices, as classic arrays store it (`arr[k1][k2]`).
    pub fn lval(&self) -> String {
        let mut s = self.name.clone();
        for i in &self.indices {
            s.push('[');
            s.push_str(i);
            s.push(']');
        }
        s
    }

    /// Namespace and scope this reference points at from the current frame of `env`.
    pub fn resolve_scope(&self, env: &dyn VarLookup) -> (String, String) {
        let scope = self
            .scope
            .clone()
            .unwrap_or_else(|| env.current_bundle().to_string());
        let ns = match &self.ns {
            Some(ns) => ns.clone(),
            None if SPECIAL_SCOPES.contains(&scope.as_str()) => "default".to_string(),
            None => env.current_ns().to_string(),
        };
        (ns, scope)
    }
}

/// Splits `[a][b c][d]` into `a`, `b c`, `d`; brackets nest (`[x[1]]` → `x[1]`).
pub fn split_indices(tail: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in tail.chars() {
        match c {
            '[' => {
                if depth > 0 {
                    cur.push(c);
                }
                depth += 1;
            }
            ']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(std::mem::take(&mut cur));
                } else {
                    cur.push(c);
                }
            }
            _ if depth > 0 => cur.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_all_parts() {
        let r = VarRef::parse("web:b.arr[k 1][2]");
        assert_eq!(r.ns.as_deref(), Some("web"));
        assert_eq!(r.scope.as_deref(), Some("b"));
        assert_eq!(r.name, "arr");
        assert_eq!(r.indices, vec!["k 1".to_string(), "2".to_string()]);
        let r = VarRef::parse("x[a.b:c]");
        assert_eq!((r.ns, r.scope, r.name.as_str()), (None, None, "x"));
        assert_eq!(r.indices, vec!["a.b:c".to_string()]);
    }
}
