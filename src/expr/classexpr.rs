//! Class expressions: parse with pest's PrattParser (`!` > `.`/`&` > `|`/`||`, parentheses) and evaluate
//! against an `EvalEnv`, with the agent's quirks: whitespace between two names is an error, other
//! whitespace is removed, the longest parsable prefix is used and trailing text ignored (unless it starts
//! with a dangling operator), `true`/`false` are literals.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::OnceLock;

use pest::iterators::Pairs;
use pest::pratt_parser::{Assoc, Op, PrattParser};
use pest::Parser;

use super::env::EvalEnv;

#[derive(pest_derive::Parser)]
#[grammar = "grammar/class_expr.pest"]
struct ClassExprParser;

/// A parsed class expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassExpr {
    Name(String),
    Not(Box<ClassExpr>),
    And(Box<ClassExpr>, Box<ClassExpr>),
    Or(Box<ClassExpr>, Box<ClassExpr>),
}

/// Why a class expression is an ERROR (the guarded promise is skipped, `unless` runs in pass 3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassExprError {
    /// `a b`: two names separated only by whitespace.
    Whitespace(String),
    /// Anything the parser rejects (`a.`, `!!a`, `(a`, empty).
    Syntax(String),
    /// The expanded text still contains `$`/`@` (an unresolved variable): an ERROR the agent does not
    /// log (`if` skips, `unless` runs in pass 3).
    Unresolved(String),
}

impl std::fmt::Display for ClassExprError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClassExprError::Whitespace(e) => write!(
                f,
                "class expressions can't be separated by whitespace without an intervening operator in expression '{e}'"
            ),
            ClassExprError::Syntax(e) => write!(f, "Unable to parse class expression '{e}'"),
            ClassExprError::Unresolved(e) => {
                write!(f, "class expression '{e}' contains unresolved variables")
            }
        }
    }
}

fn pratt() -> &'static PrattParser<Rule> {
    static P: OnceLock<PrattParser<Rule>> = OnceLock::new();
    P.get_or_init(|| {
        PrattParser::new()
            .op(Op::infix(Rule::or, Assoc::Left))
            .op(Op::infix(Rule::and, Assoc::Left))
            .op(Op::prefix(Rule::not))
    })
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Rejects `a b` and removes all remaining whitespace.
fn strip_whitespace(expr: &str) -> Result<String, ClassExprError> {
    let b = expr.as_bytes();
    let mut out = String::with_capacity(expr.len());
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            let start = i;
            while i < b.len() && b[i].is_ascii_whitespace() {
                i += 1;
            }
            let before = start.checked_sub(1).map(|j| b[j]);
            let after = b.get(i).copied();
            if let (Some(x), Some(y)) = (before, after) {
                if is_name_byte(x) && is_name_byte(y) {
                    return Err(ClassExprError::Whitespace(expr.to_string()));
                }
            }
            continue;
        }
        i += 1;
    }
    for c in expr.chars() {
        if !c.is_ascii_whitespace() {
            out.push(c);
        }
    }
    Ok(out)
}

/// Deepest parenthesis nesting accepted (deeper is a syntax error, not a stack overflow).
pub const MAX_NESTING: usize = 256;

/// Parses an expanded class expression.
pub fn parse(expr: &str) -> Result<ClassExpr, ClassExprError> {
    let text = strip_whitespace(expr)?;
    let syntax = || ClassExprError::Syntax(expr.to_string());
    let mut depth = 0usize;
    for b in text.bytes() {
        match b {
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if depth > MAX_NESTING {
            return Err(syntax());
        }
    }
    let mut pairs = ClassExprParser::parse(Rule::top, &text).map_err(|_| syntax())?;
    let top = pairs.next().ok_or_else(syntax)?;
    let consumed = top.as_span().end();
    if matches!(text.as_bytes().get(consumed), Some(b'.' | b'&' | b'|')) {
        return Err(syntax());
    }
    let inner = top.into_inner().next().ok_or_else(syntax)?;
    build(inner.into_inner()).ok_or_else(syntax)
}

fn build(pairs: Pairs<'_, Rule>) -> Option<ClassExpr> {
    pratt()
        .map_primary(|p| match p.as_rule() {
            Rule::name => Some(ClassExpr::Name(p.as_str().to_string())),
            Rule::expr => build(p.into_inner()),
            _ => None,
        })
        .map_prefix(|_op, rhs| Some(ClassExpr::Not(Box::new(rhs?))))
        .map_infix(|lhs, op, rhs| {
            let (l, r) = (Box::new(lhs?), Box::new(rhs?));
            Some(match op.as_rule() {
                Rule::or => ClassExpr::Or(l, r),
                _ => ClassExpr::And(l, r),
            })
        })
        .parse(pairs)
}

impl ClassExpr {
    /// The expression over a fixed set of true names (`process_result`, `file_result`: the selection
    /// criteria that matched).
    pub fn eval_names(&self, names: &[&str]) -> bool {
        match self {
            ClassExpr::Name(n) => names.contains(&n.as_str()),
            ClassExpr::Not(a) => !a.eval_names(names),
            ClassExpr::And(a, b) => a.eval_names(names) && b.eval_names(names),
            ClassExpr::Or(a, b) => a.eval_names(names) || b.eval_names(names),
        }
    }

    /// Evaluates against the classes of `env`.
    pub fn eval(&self, env: &dyn EvalEnv) -> bool {
        match self {
            ClassExpr::Name(n) => name_defined(n, env),
            ClassExpr::Not(e) => !e.eval(env),
            ClassExpr::And(a, b) => a.eval(env) && b.eval(env),
            ClassExpr::Or(a, b) => a.eval(env) || b.eval(env),
        }
    }
}

fn name_defined(n: &str, env: &dyn EvalEnv) -> bool {
    match n {
        "true" | "any" => true,
        "false" => false,
        _ => match super::split_once_byte(n, b':') {
            Some((ns, name)) => env.class_defined(Some(ns), name),
            None => env.class_defined(None, n),
        },
    }
}

/// Most distinct expressions kept parsed per thread; the cache is emptied when it is full.
pub const CACHE_LIMIT: usize = 16384;

type Parsed = Result<Rc<ClassExpr>, ClassExprError>;

thread_local! {
    static CACHE: RefCell<HashMap<String, Parsed, crate::fasthash::FastState>> =
        RefCell::new(HashMap::default());
}

/// A bare class name (`linux`, `ns:name`, `any`): what `parse` would return as a single `Name`.
fn is_plain_name(expr: &str) -> bool {
    !expr.is_empty()
        && expr
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':')
}

/// [`parse`], memoised per thread by the expression text (the same guards are evaluated many times).
pub fn parse_cached(expr: &str) -> Parsed {
    if let Some(hit) = CACHE.with(|c| c.borrow().get(expr).cloned()) {
        return hit;
    }
    let parsed = parse(expr).map(Rc::new);
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= CACHE_LIMIT {
            c.clear();
        }
        c.insert(expr.to_string(), parsed.clone());
    });
    parsed
}

/// Parses and evaluates an already expanded expression. A `$`/`@` left in it is an error.
pub fn eval_str(expr: &str, env: &dyn EvalEnv) -> Result<bool, ClassExprError> {
    if is_plain_name(expr) {
        return Ok(name_defined(expr, env));
    }
    if expr.contains('$') || expr.contains('@') {
        return Err(ClassExprError::Unresolved(expr.to_string()));
    }
    Ok(parse_cached(expr)?.eval(env))
}
