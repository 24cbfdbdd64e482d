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
        let bracket = super::find_byte(text, 0, b'[').unwrap_or(text.len());
        let (head, tail) = text.split_at(bracket);
        let (ns, rest) = match super::find_byte(head, 0, b':') {
            Some(i) => (Some(head[..i].to_string()), &head[i + 1..]),
            None => (None, head),
        };
        let (scope, name) = match super::find_byte(rest, 0, b'.') {
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
        indexed_lval(&self.name, &self.indices)
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

/// `name[i1][i2]…`, the lval classic arrays store an entry under.
pub fn indexed_lval<K: AsRef<str>>(name: &str, indices: &[K]) -> String {
    let len = name.len() + indices.iter().map(|i| i.as_ref().len() + 2).sum::<usize>();
    let mut s = String::with_capacity(len);
    s.push_str(name);
    for i in indices {
        s.push('[');
        s.push_str(i.as_ref());
        s.push(']');
    }
    s
}

/// Splits `[a][b c][d]` into `a`, `b c`, `d`; brackets nest (`[x[1]]` → `x[1]`).
pub fn split_indices(tail: &str) -> Vec<String> {
    index_texts(tail).into_iter().map(str::to_string).collect()
}

/// [`split_indices`], borrowing the index texts from `tail`.
pub fn index_texts(tail: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    // where the text of the index being read starts (after its outermost `[`)
    let mut start = 0;
    for (i, b) in tail.bytes().enumerate() {
        match b {
            b'[' => {
                if depth == 0 {
                    start = i + 1;
                }
                depth += 1;
            }
            b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push(tail.get(start..i).unwrap_or_default());
                }
            }
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

    #[test]
    fn indices_nest_and_an_unclosed_one_is_dropped() {
        assert_eq!(split_indices("[x[1]][é]"), ["x[1]", "é"]);
        assert_eq!(split_indices("junk[a]junk[b"), ["a"]);
        assert_eq!(split_indices("[]"), [""]);
        assert_eq!(split_indices("]a[b]"), ["b"]);
        assert!(split_indices("").is_empty());
        let r = VarRef::parse("a[k][j]");
        assert_eq!(r.lval(), "a[k][j]");
    }
}
