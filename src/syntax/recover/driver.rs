//! Bison's yacc.c skeleton over the tables of `lalr.rs`: default reductions without a lookahead, error
//! recovery (`syntax error` only when `yyerrstatus` is 0; a lookahead discarded, or the parse aborted at end
//! of input, when it is 3; states popped until one shifts `error`), `yyclearin`, YYABORT; and the actions of
//! cf3parse.y that print (ParseError / yyerror, with cf-promises' cap of 12 errors).

use super::grammar::*;
use super::lalr::{Action, Tables};
use super::lexer::Lexer;
use crate::syntax::check::{self, Anchor, RvalShape};
use crate::syntax::tables::{self, DataType, PromiseTypeLookup, Visibility};

/// One message as cf-promises prints it.
pub struct Msg {
    pub line: u32,
    pub col: u32,
    /// Byte range of the source line printed below the message (none on line 1).
    pub current_line: Option<(usize, usize)>,
    pub text: String,
    pub fatal: bool,
    /// Lexer offset when printed (orders messages).
    pub offset: usize,
}

/// The parse ran into something the emulation does not model.
pub struct Unmodelled;

#[derive(Clone, Debug)]
enum V {
    Null,
    Scalar(String),
    Bare(String),
    List(Vec<V>),
    Call(String),
}

fn shape(v: &V) -> Option<RvalShape<'_>> {
    Some(match v {
        V::Null => return None,
        V::Scalar(s) => RvalShape::Scalar(s),
        V::Bare(s) => RvalShape::Bare(s),
        V::List(items) => RvalShape::List(items.iter().filter_map(shape).collect()),
        V::Call(n) => RvalShape::FnCall { name: n },
    })
}

#[derive(PartialEq, Clone, Copy)]
enum Block {
    Bundle,
    Body,
    Promise,
}

struct P<'a> {
    lex: Lexer<'a>,
    msgs: Vec<Msg>,
    errors: usize,
    stop: bool,
    skip: bool,
    block: Block,
    blocktype: String,
    blockid: String,
    currenttype: String,
    currentid: String,
    lval: String,
    rval: V,
    rlist: Vec<V>,
    fn_ids: Vec<String>,
    last_call: String,
    yychar: Option<(u16, u8)>,
    class_start_pos: u32,
}

const MAX_FN_NESTING: usize = 10;

impl P<'_> {
    fn error_at(&mut self, col: u32, text: String) {
        self.msgs.push(Msg {
            line: self.lex.line_no,
            col,
            current_line: self.lex.current_line,
            text,
            fatal: false,
            offset: self.lex.pos,
        });
        self.errors += 1;
        if self.errors > check::MAX_ERRORS {
            self.stop = true;
        }
    }
    fn error(&mut self, text: String) {
        let col = self.lex.line_pos;
        self.error_at(col, text);
    }
    fn yytext(&self) -> String {
        String::from_utf8_lossy(&self.lex.text).into_owned()
    }
    fn flush_lexer(&mut self) {
        for (m, col) in std::mem::take(&mut self.lex.pending) {
            self.error_at(col, m);
        }
    }

    fn lval_errors(&self, r: &check::CheckResult, want_lval: bool) -> Vec<(String, i64)> {
        r.errors
            .iter()
            .filter(|e| {
                e.severity == check::Severity::Error && (e.anchor == Anchor::LvalEnd) == want_lval
            })
            .map(|e| (e.message.clone(), e.column_offset))
            .collect()
    }

    fn emit(&mut self, errs: Vec<(String, i64)>) {
        for (m, off) in errs {
            let col = (self.lex.line_pos as i64 + off).max(0) as u32;
            self.error_at(col, m);
        }
    }

    fn body_check(&self, lval: &str, v: &RvalShape<'_>) -> check::CheckResult {
        if self.block == Block::Promise {
            check::BlockChecker::new().promise_block_constraint(&self.blockid, lval, v)
        } else {
            check::check_body_constraint(&self.blocktype, &self.blockid, lval, v)
        }
    }

    /// A rule's action. `Err` stops the parse (YYABORT).
    fn act(&mut self, a: Act, clear: &mut bool) -> Result<(), ()> {
        let t = self.yytext();
        match a {
            Act::None => {}
            Act::BlockError => {
                self.error(format!(
                    "Expected 'bundle' or 'body' keyword, wrong input '{t}'"
                ));
                return Err(());
            }
            Act::TypeId => self.blocktype = self.currentid.clone(),
            Act::Symbol => self.blockid = self.currentid.clone(),
            Act::BeginBundle => self.block = Block::Bundle,
            Act::BeginBody => self.block = Block::Body,
            Act::BeginPromise => self.block = Block::Promise,
            Act::BundleTypeCheck => {
                if let Some(e) = check::check_bundle_type(&self.blocktype) {
                    self.error(e.message);
                    self.skip = true;
                }
            }
            Act::BundleTypeError => {
                *clear = true;
                self.error(format!("Expected bundle type, wrong input '{t}'"));
                self.skip = true;
            }
            Act::BundleIdError => {
                *clear = true;
                self.error(format!("Expected bundle identifier, wrong input '{t}'"));
                self.skip = true;
            }
            Act::BodyTypeError => {
                *clear = true;
                self.error(format!("Expected body type, wrong input '{t}'"));
            }
            Act::BodyIdError => {
                *clear = true;
                self.error(format!("Expected body identifier, wrong input '{t}'"));
                self.skip = true;
            }
            Act::PromiseTypeCheck => {
                if self.blocktype != "agent" {
                    self.error(format!(
                        "Custom promises only supported for 'agent', not '{}'",
                        self.blocktype
                    ));
                }
            }
            Act::PromiseTypeError => {
                *clear = true;
                self.error(format!("Expected promise type, wrong input '{t}'"));
            }
            Act::PromiseIdError => {
                *clear = true;
                self.error(format!(
                    "Expected promise type identifier, wrong input '{t}'"
                ));
                self.skip = true;
            }
            Act::ArglistError => {
                *clear = true;
                self.error(format!(
                    "Error in bundle parameter list, expected ')', wrong input '{t}'"
                ));
            }
            Act::AitemError => {
                *clear = true;
                self.error(format!("Expected identifier, wrong input '{t}'"));
            }
            Act::BeginBundleBody => self.skip = false,
            Act::EndBlock => {
                if self.block == Block::Bundle {
                    self.skip = false;
                }
            }
            Act::BodyBeginError => {
                self.error(format!("Expected body open '{{', wrong input '{t}'"))
            }
            Act::BundleStatementsError => {
                self.skip = true;
                self.error(format!("Expected promise type, got '{t}'"));
                *clear = true;
            }
            Act::PromiseGuard => {
                self.currenttype = t.strip_suffix(':').unwrap_or(&t).to_string();
            }
            Act::Promiser => {}
            Act::PromiserError => {
                self.skip = true;
                if matches!(self.yychar, Some((T_BUNDLE | T_BODY, _))) {
                    self.error(format!("Expected '}}', got '{t}'"));
                } else {
                    self.error(format!("Expected promiser string, got '{t}'"));
                }
                *clear = true;
            }
            Act::PromiseDeclError => {
                let m = match self.yychar {
                    Some((_, b'-' | b'>')) => format!("Expected '->', got '{t}'"),
                    Some((T_IDSYNTAX, _)) => format!("Expected attribute, got '{t}'"),
                    Some((T_COMMA, _)) => format!(
                        "Expected attribute, got '{t}' (comma after promiser is not allowed since 3.5.0)"
                    ),
                    _ => format!("Expected ';', got '{t}'"),
                };
                self.error(m);
                *clear = true;
            }
            Act::ConstraintsDeclError => {
                if matches!(self.yychar, Some((T_IDSYNTAX, _))) {
                    self.error(format!("Check previous line, Expected ',', got '{t}'"));
                } else {
                    self.error(format!("Check previous line, Expected ';', got '{t}'"));
                }
                *clear = true;
            }
            Act::ConstraintId => {
                self.lval = self.currentid.clone();
                let r = check::check_promise_constraint(
                    &self.blocktype,
                    &self.currenttype,
                    &self.lval,
                    &RvalShape::Scalar(""),
                );
                let errs = self.lval_errors(&r, true);
                if !errs.is_empty() {
                    self.skip = true;
                }
                self.emit(errs);
            }
            Act::ConstraintIdError => self.error(format!("Expected attribute, got '{t}'\n")),
            Act::Constraint => {
                let builtin = matches!(
                    tables::lookup_promise_type(&self.blocktype, &self.currenttype),
                    PromiseTypeLookup::BuiltIn(_)
                );
                let known =
                    tables::promise_attr(&self.blocktype, &self.currenttype, &self.lval).is_some();
                if !self.skip && builtin && !known {
                    self.error(format!(
                        "Unknown constraint '{}' in promise type '{}'",
                        self.lval, self.currenttype
                    ));
                } else if !self.skip {
                    let v = std::mem::replace(&mut self.rval, V::Null);
                    match shape(&v) {
                        Some(s) => {
                            let r = check::check_promise_constraint(
                                &self.blocktype,
                                &self.currenttype,
                                &self.lval,
                                &s,
                            );
                            let errs = self.lval_errors(&r, false);
                            self.emit(errs);
                        }
                        None => {
                            if let PromiseTypeLookup::BuiltIn(_) =
                                tables::lookup_promise_type(&self.blocktype, &self.currenttype)
                            {
                                if let Some(a) = tables::promise_attr(
                                    &self.blocktype,
                                    &self.currenttype,
                                    &self.lval,
                                ) {
                                    if a.visibility == Visibility::PromiseType
                                        && !matches!(a.ty, DataType::Body | DataType::Bundle)
                                    {
                                        self.error("Attempted to give a value of type null".into());
                                    }
                                }
                            }
                        }
                    }
                }
                if !self.skip {
                    self.lval = "no lval".to_string();
                }
                self.rval = V::Null;
            }
            Act::BeginBlockBody => {
                if self.block == Block::Promise {
                    if self.blocktype != "agent" {
                        self.error(format!("Invalid body type '{}'", self.blocktype));
                        self.skip = true;
                    }
                } else {
                    self.skip = false;
                }
            }
            Act::SelectionLineError => {
                self.error(format!("Expected ';' check previous statement, got '{t}'"))
            }
            Act::SelectionId => {
                if !self.skip {
                    self.lval = self.currentid.clone();
                    let r = self.body_check(&self.currentid.clone(), &RvalShape::Scalar(""));
                    let errs = self.lval_errors(&r, true);
                    if !errs.is_empty() {
                        self.skip = true;
                    }
                    self.emit(errs);
                }
            }
            Act::Selection => {
                if !self.skip {
                    let v = std::mem::replace(&mut self.rval, V::Null);
                    match shape(&v) {
                        Some(s) => {
                            let r = self.body_check(&self.lval.clone(), &s);
                            let errs = self.lval_errors(&r, false);
                            self.emit(errs);
                        }
                        None => {
                            let typed = if self.block == Block::Promise {
                                true
                            } else {
                                tables::body_attr(&self.blocktype, &self.lval).is_some_and(|a| {
                                    !matches!(a.ty, DataType::Body | DataType::Bundle)
                                })
                            };
                            if typed {
                                self.error("Attempted to give a value of type null".into());
                            }
                        }
                    }
                }
                self.rval = V::Null;
            }
            Act::SelectionIdError => {
                if matches!(self.yychar, Some((T_BUNDLE | T_BODY, _))) {
                    self.error(format!("Expected '}}', got '{t}'"));
                } else {
                    self.error(format!("Expected attribute, got '{t}'"));
                }
                *clear = true;
            }
            Act::AssignError => {
                *clear = true;
                self.error(format!("Expected '=>', got '{t}'"));
            }
            Act::Class => {
                let raw = t.strip_suffix("::").unwrap_or(&t);
                if !raw.starts_with(['"', '\'']) {
                    let expr: String = raw.chars().filter(|c| *c != ' ' && *c != '\t').collect();
                    let err = match check::class_expression(&expr) {
                        Err(off) => Some(off),
                        Ok(0) => Some(0),
                        Ok(_) => None,
                    };
                    if let Some(off) = err {
                        let col = self.class_start_pos + off as u32 + 2;
                        self.error_at(col, "Syntax error in context string".into());
                    }
                }
            }
            Act::RvalId => self.rval = V::Bare(self.currentid.clone()),
            Act::RvalString => self.rval = V::Scalar(unquote(&t)),
            Act::RvalNakedVar => self.rval = V::Bare(t),
            Act::RvalList => self.rval = V::List(std::mem::take(&mut self.rlist)),
            Act::RvalCall => self.rval = V::Call(self.last_call.clone()),
            Act::RvalError => {
                *clear = true;
                self.error(format!("Invalid r-value type '{t}'"));
            }
            Act::LitemsError => {
                let m = match self.yychar {
                    Some((T_SEMI, _)) => format!("Expected '}}', wrong input '{t}'"),
                    Some((T_ASSIGN, _)) => format!(
                        "Check list statement previous line, Expected '}}', wrong input '{t}'"
                    ),
                    _ => format!("Expected ',', wrong input '{t}'"),
                };
                self.error(m);
                *clear = true;
            }
            Act::Litem => self.rlist.push(if t.starts_with(['"', '\'', '`']) {
                V::Scalar(unquote(&t))
            } else {
                V::Bare(t)
            }),
            Act::LitemCall => self.rlist.push(V::Call(self.last_call.clone())),
            Act::LitemError => {
                *clear = true;
                self.error(format!("Invalid input for a list item, got '{t}'"));
            }
            Act::FnId => self.fn_ids.push(self.currentid.clone()),
            Act::FnNakedVar => self.fn_ids.push(t),
            Act::ArgsOpen => {
                if self.fn_ids.len() >= MAX_FN_NESTING {
                    let near: String = t
                        .strip_prefix('"')
                        .filter(|s| !s.is_empty())
                        .unwrap_or(&t)
                        .chars()
                        .take(20)
                        .collect();
                    self.msgs.push(Msg {
                        line: self.lex.line_no,
                        col: self.lex.line_pos,
                        current_line: None,
                        text: format!(
                            "Nesting of functions is deeper than recommended, near token '{near}'"
                        ),
                        fatal: true,
                        offset: self.lex.pos,
                    });
                    self.stop = true;
                }
            }
            Act::ArgsClose => self.last_call = self.fn_ids.pop().unwrap_or_default(),
            Act::GaitemsError => {
                self.error(format!("Expected ',', wrong input '{t}'"));
                *clear = true;
            }
            Act::Gaitem => {}
            Act::GaitemError => {
                let m = match self.yychar {
                    Some((T_SEMI, _)) => format!("Expected ')', wrong input '{t}'"),
                    Some((T_ASSIGN, _)) => format!(
                        "Check function statement  previous line, Expected ')', wrong input '{t}'"
                    ),
                    _ => format!("Invalid function argument, wrong input '{t}'"),
                };
                self.error(m);
                *clear = true;
            }
        }
        Ok(())
    }
}

fn unquote(t: &str) -> String {
    let mut c = t.chars();
    c.next();
    c.next_back();
    c.as_str().to_string()
}

/// Parse `src` as cf-promises does and return what it prints.
pub fn run(tables: &Tables, src: &[u8]) -> Result<Vec<Msg>, Unmodelled> {
    let mut p = P {
        lex: Lexer::new(src),
        msgs: Vec::new(),
        errors: 0,
        stop: false,
        skip: false,
        block: Block::Bundle,
        blocktype: String::new(),
        blockid: String::new(),
        currenttype: String::new(),
        currentid: String::new(),
        lval: String::new(),
        rval: V::Null,
        rlist: Vec::new(),
        fn_ids: Vec::new(),
        last_call: String::new(),
        yychar: None,
        class_start_pos: 0,
    };
    let mut stack: Vec<usize> = vec![0];
    let mut errstatus = 0u8;
    // Each token is read once and the stack only grows by shifts, so the loop is linear; the guard only
    // protects against a table bug.
    let mut budget: usize = src.len().saturating_mul(64).saturating_add(10_000);
    loop {
        budget = budget.checked_sub(1).ok_or(Unmodelled)?;
        if p.stop {
            break;
        }
        let state = *stack.last().ok_or(Unmodelled)?;
        let mut action = None;
        if !tables.no_lookahead.get(state).copied().unwrap_or(false) {
            if p.yychar.is_none() {
                let before = p.lex.line_pos;
                let tok = p.lex.next();
                p.flush_lexer();
                if p.stop {
                    break;
                }
                if tok.kind == T_IDSYNTAX {
                    p.currentid = String::from_utf8_lossy(&tok.text).into_owned();
                }
                if tok.kind == T_CLASS {
                    p.class_start_pos = p.lex.line_pos - tok.text.len() as u32;
                }
                let _ = before;
                p.yychar = Some((tok.kind, tok.ch));
            }
            let kind = p.yychar.map(|y| y.0).unwrap_or(T_EOF);
            action = tables.action(state, kind);
        }
        let action = match action {
            Some(a) => Some(a),
            None => tables
                .default
                .get(state)
                .copied()
                .flatten()
                .map(Action::Reduce),
        };
        match action {
            Some(Action::Accept) => break,
            Some(Action::Shift(to)) => {
                errstatus = errstatus.saturating_sub(1);
                p.yychar = None;
                stack.push(to);
            }
            Some(Action::Reduce(r)) => {
                let prod = tables.prods.get(r).ok_or(Unmodelled)?;
                let mut clear = false;
                let aborted = p.act(prod.act, &mut clear).is_err();
                if clear {
                    p.yychar = None;
                }
                if aborted {
                    break;
                }
                let keep = stack.len().checked_sub(prod.len).ok_or(Unmodelled)?;
                stack.truncate(keep);
                let top = *stack.last().ok_or(Unmodelled)?;
                stack.push(tables.goto(top, prod.lhs).ok_or(Unmodelled)?);
            }
            None => {
                // yyerrlab
                if errstatus == 0 {
                    p.error("syntax error".to_string());
                    if p.stop {
                        break;
                    }
                }
                if errstatus == 3 {
                    match p.yychar {
                        None => {}
                        Some((T_EOF, _)) => break,
                        Some(_) => p.yychar = None,
                    }
                }
                errstatus = 3;
                let mut shifted = false;
                while let Some(&s) = stack.last() {
                    if let Some(Action::Shift(to)) = tables.action(s, T_ERROR) {
                        stack.push(to);
                        shifted = true;
                        break;
                    }
                    stack.pop();
                }
                if !shifted {
                    break;
                }
            }
        }
    }
    Ok(p.msgs)
}
