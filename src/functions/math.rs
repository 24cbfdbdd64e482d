//! Math functions: eval (the agent's infix evaluator: `+ - * / % ^`, comparisons, functions, `e`/`pi`,
//! SI suffixes, longest-parsable-prefix semantics), irange, rrange.

use super::{def, CallCtx, FnArg, FnDef, FnResult};
use crate::value::{format_real, Value};

pub const FUNCTIONS: &[FnDef] = &[
    def("eval", true, eval),
    def("irange", true, irange),
    def("rrange", true, rrange),
];

/// Deepest parenthesis nesting `eval` accepts.
pub const MAX_EVAL_DEPTH: usize = 256;

struct P<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(u8::is_ascii_whitespace) {
            self.i += 1;
        }
    }
    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(t.as_bytes()) {
            self.i += t.len();
            true
        } else {
            false
        }
    }
    fn cmp(&mut self) -> Option<f64> {
        let a = self.sum()?;
        let save = self.i;
        for op in ["==", "!=", "<=", ">=", "<", ">"] {
            if self.eat(op) {
                if let Some(b) = self.sum() {
                    let r = match op {
                        "==" => a == b,
                        "!=" => a != b,
                        "<=" => a <= b,
                        ">=" => a >= b,
                        "<" => a < b,
                        _ => a > b,
                    };
                    return Some(if r { 1.0 } else { 0.0 });
                }
                self.i = save;
                return Some(a);
            }
        }
        Some(a)
    }
    fn sum(&mut self) -> Option<f64> {
        let mut a = self.product()?;
        loop {
            let save = self.i;
            let op = if self.eat("+") {
                '+'
            } else if self.eat("-") {
                '-'
            } else {
                return Some(a);
            };
            match self.product() {
                Some(b) => a = if op == '+' { a + b } else { a - b },
                None => {
                    self.i = save;
                    return Some(a);
                }
            }
        }
    }
    fn product(&mut self) -> Option<f64> {
        let mut a = self.power()?;
        loop {
            let save = self.i;
            let op = if self.eat("*") {
                '*'
            } else if self.eat("/") {
                '/'
            } else if self.eat("%") {
                '%'
            } else {
                return Some(a);
            };
            match self.power() {
                Some(b) => {
                    a = match op {
                        '*' => a * b,
                        '/' => a / b,
                        _ => a % b,
                    }
                }
                None => {
                    self.i = save;
                    return Some(a);
                }
            }
        }
    }
    fn power(&mut self) -> Option<f64> {
        let mut a = self.value()?;
        loop {
            let save = self.i;
            // `^` or `**` (the agent's math.peg: `2**10` is 1024)
            if !self.eat("^") && !self.eat("**") {
                return Some(a);
            }
            match self.value() {
                Some(b) => a = a.powf(b),
                None => {
                    self.i = save;
                    return Some(a);
                }
            }
        }
    }
    fn value(&mut self) -> Option<f64> {
        self.ws();
        let save = self.i;
        if self.eat("-") {
            if self.depth >= MAX_EVAL_DEPTH {
                self.i = save;
                return None;
            }
            self.depth += 1;
            let v = self.value();
            self.depth -= 1;
            return match v {
                Some(v) => Some(-v),
                None => {
                    self.i = save;
                    None
                }
            };
        }
        if self.eat("(") {
            if self.depth >= MAX_EVAL_DEPTH {
                return None;
            }
            self.depth += 1;
            let v = self.cmp();
            self.depth -= 1;
            if v.is_some() && self.eat(")") {
                return v;
            }
            self.i = save;
            return None;
        }
        if let Some(v) = self.number() {
            return Some(v);
        }
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            self.i += 1;
        }
        let name = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        let f: Option<fn(f64) -> f64> = match name {
            "ceil" => Some(f64::ceil),
            "floor" => Some(f64::floor),
            "log10" => Some(f64::log10),
            "log2" => Some(f64::log2),
            "log" => Some(f64::ln),
            "sqrt" => Some(f64::sqrt),
            "sin" => Some(f64::sin),
            "cos" => Some(f64::cos),
            "tan" => Some(f64::tan),
            "asin" => Some(f64::asin),
            "acos" => Some(f64::acos),
            "atan" => Some(f64::atan),
            "abs" => Some(f64::abs),
            "step" => Some(|x: f64| if x < 0.0 { 0.0 } else { 1.0 }),
            _ => None,
        };
        if let Some(f) = f {
            if self.eat("(") {
                let v = self.cmp();
                if let Some(v) = v.filter(|_| self.eat(")")) {
                    return Some(f(v));
                }
            }
            self.i = save;
            return None;
        }
        match name {
            "e" => Some(std::f64::consts::E),
            "pi" => Some(std::f64::consts::PI),
            _ => {
                self.i = save;
                None
            }
        }
    }
    fn number(&mut self) -> Option<f64> {
        let start = self.i;
        while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            while self.s.get(self.i).is_some_and(u8::is_ascii_digit) {
                self.i += 1;
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.i]).unwrap_or("");
        if text.is_empty() || text == "." {
            self.i = start;
            return None;
        }
        let mut v: f64 = text.parse().ok()?;
        let mult = match self.s.get(self.i) {
            Some(b'k' | b'K') => Some(1e3),
            Some(b'm' | b'M') => Some(1e6),
            Some(b'g' | b'G') => Some(1e9),
            Some(b't' | b'T') => Some(1e12),
            Some(b'p' | b'P') => Some(1e15),
            _ => None,
        };
        let after_is_word = self
            .s
            .get(self.i + 1)
            .is_some_and(|c| c.is_ascii_alphanumeric());
        if let Some(m) = mult.filter(|_| !after_is_word) {
            v *= m;
            self.i += 1;
        }
        Some(v)
    }
}

/// Evaluates an infix math expression as `eval()` does: the longest parsable prefix; `None` when not
/// even a prefix parses (the function then returns an empty string); empty input is 0.
pub fn eval_math(expr: &str) -> Option<f64> {
    if expr.trim().is_empty() {
        return Some(0.0);
    }
    let mut p = P {
        s: expr.as_bytes(),
        i: 0,
        depth: 0,
    };
    p.cmp()
}

fn eval(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let mode = a.get(1).map_or("math", FnArg::text);
    let r = eval_math(a.first().map_or("", FnArg::text));
    Ok(Value::str(match (r, mode) {
        (None, _) => String::new(),
        (Some(v), "class") => if v != 0.0 { "any" } else { "!any" }.to_string(),
        (Some(v), _) => format_real(v),
    }))
}

fn irange(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(format!("{},{}", a[0].text(), a[1].text())))
}

fn rrange(_: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::str(format!("{},{}", a[0].text(), a[1].text())))
}
