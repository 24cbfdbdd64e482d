//! The `-v` (verbose) markers cf-agent prints around the evaluation: `B:` bundle begin/end with the
//! accounting summary, `V:`/`C:` section banners per pass, `P:` promise begin/end with `A:` outcome.
//! Only the markers are reproduced, not the agent's other verbose chatter.

use super::output::LogLevel;
use super::{BundleDef, Engine, Outcome};
use crate::syntax::ast::Promise;

const STARS: &str = "*****************************************************************";
const DOTS: &str = ".........................................................";

/// Longest head and tail the agent keeps of a multi-line promiser (`CF_MAXFRAGMENT`).
const MAX_FRAGMENT: usize = 19;

/// How the agent shows a promiser in `-v` banners and stack paths: a multi-line text becomes its first
/// line (at most 19 bytes), `...` and the last 19 bytes of its last line; the mangled namespace and scope
/// separators `*` and `#` are shown as `:` and `.` (recorded: reports/multiline_and_escapes).
pub fn abbreviated_promiser(promiser: &str) -> String {
    let b = promiser.as_bytes();
    let text: Vec<u8> = match (
        b.iter().position(|&c| c == b'\n'),
        b.iter().rposition(|&c| c == b'\n'),
    ) {
        (Some(first), Some(last)) => {
            let head = &b[..first.min(MAX_FRAGMENT)];
            let tail = &b[last + 1..];
            let tail = &tail[tail.len().saturating_sub(MAX_FRAGMENT)..];
            [head, b"...", tail].concat()
        }
        _ => b.to_vec(),
    };
    String::from_utf8_lossy(&text)
        .chars()
        .map(|c| match c {
            '*' => ':',
            '#' => '.',
            c => c,
        })
        .collect()
}

/// `s` cut at `max` bytes like C's `%.Ns`, with `mark` appended when it was longer.
fn cut_bytes(s: &str, max: usize, mark: &str) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut out = String::from_utf8_lossy(&s.as_bytes()[..max]).into_owned();
    out.push_str(mark);
    out
}

/// Per-activation promise counts for the accounting summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub kept: usize,
    pub repaired: usize,
    pub notkept: usize,
}

impl Engine<'_> {
    fn v(&mut self, msg: &str) {
        self.log(LogLevel::Verbose, msg);
    }

    /// Whether verbose output is on (avoids building messages otherwise).
    pub fn verbose_on(&self) -> bool {
        self.out.shows(LogLevel::Verbose)
    }

    /// `Using bundlesequence => {…}`.
    pub fn verbose_sequence(&mut self, names: &[String]) {
        if !self.verbose_on() {
            return;
        }
        self.v(" Begin policy/promise evaluation ");
        let items: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        self.v(&format!("Using bundlesequence =>  {{{}}}", items.join(",")));
    }

    /// `B: BEGIN bundle NAME`.
    pub fn verbose_bundle_begin(&mut self, def: &BundleDef) {
        if !self.verbose_on() {
            return;
        }
        self.v(&format!("B: {STARS}"));
        let text = match self.ctx.frames.last() {
            Some(f) if !f.call_text.is_empty() => f.call_text.clone(),
            _ => def.name.clone(),
        };
        self.v(&format!("B: BEGIN bundle {text}"));
        self.v(&format!("B: {STARS}"));
    }

    /// `B: END bundle NAME` (for a methods call the agent prints it after the method's outcome).
    pub fn verbose_bundle_end_banner(&mut self, name: &str) {
        if !self.verbose_on() {
            return;
        }
        self.v(&format!("B: {STARS}"));
        self.v(&format!("B: END bundle {name}"));
        self.v(&format!("B: {STARS}"));
    }

    /// The accounting summary printed when the bundle's frame is popped.
    pub fn verbose_bundle_end(&mut self, def: &BundleDef, c: Counts) {
        if !self.verbose_on() {
            return;
        }
        let n = &def.name;
        let total = c.kept + c.repaired + c.notkept;
        let pct = if total == 0 {
            100.0
        } else {
            100.0 * (c.kept + c.repaired) as f64 / total as f64
        };
        self.v("A: ...................................................");
        self.v(&format!(
            "A: Bundle Accounting Summary for '{n}' in namespace {}",
            def.ns
        ));
        if total == 0 {
            self.v(&format!("A: Zero promises executed for bundle '{n}'"));
            self.v("A: ...................................................");
            return;
        }
        self.v(&format!("A: Promises kept in '{n}' = {}", c.kept));
        self.v(&format!("A: Promises not kept in '{n}' = {}", c.notkept));
        self.v(&format!("A: Promises repaired in '{n}' = {}", c.repaired));
        self.v(&format!(
            "A: Aggregate compliance (promises kept/repaired) for bundle '{n}' = {pct:.1}%"
        ));
        self.v("A: ...................................................");
    }

    /// `V:`/`C:` banner at the start of a section in a pass.
    pub fn verbose_section(&mut self, t: &str) {
        if !self.verbose_on() || self.stage != "pass" {
            return;
        }
        let pass = self.pass;
        match t {
            "vars" => {
                self.v(&format!("V: {DOTS}"));
                self.v(&format!("V: BEGIN variables (pass {pass})"));
            }
            "classes" => {
                self.v(&format!("C: {DOTS}"));
                self.v(&format!("C: BEGIN classes / conditions (pass {pass})"));
            }
            _ => {}
        }
    }

    /// `P: BEGIN promise …` before an actuation.
    pub fn verbose_promise_begin(&mut self, def: &BundleDef, t: &str, p: &Promise, promiser: &str) {
        if !self.verbose_on() {
            return;
        }
        let handle = match Self::constraint(p, "handle") {
            Some(rv) => self.scalar_of(rv).unwrap_or_default(),
            None => {
                let file = self
                    .files
                    .get(def.file)
                    .map(|f| f.path.rsplit('/').next().unwrap_or("").to_string())
                    .unwrap_or_default();
                format!(
                    "promise_{}_{}",
                    crate::expr::canonify(&file),
                    self.promiser_end_line_of(p)
                )
            }
        };
        let guard = p.guard.expr.clone();
        let idx = self.iteration;
        let stack = self
            .ctx
            .frames
            .last()
            .map(|f| f.stack.clone())
            .unwrap_or_default();
        let call_text = self.bundle_args.clone();
        self.v(&format!("P: {DOTS}"));
        self.v(&format!(
            "P: BEGIN promise '{handle}' of type \"{t}\" (pass {})",
            self.agent_pass
        ));
        // abbreviated, then cut at 40 bytes (recorded: reports/multiline_and_escapes)
        let shown = cut_bytes(&abbreviated_promiser(promiser), 40, "");
        self.v(&format!("P:    Promiser/affected object: '{shown}'"));
        if call_text.is_empty() {
            self.v(&format!("P:    Part of bundle: {}", def.name));
        } else {
            // the current bundle's name with the last call's arguments: in an edit_line bundle,
            // its caller's (recorded: files/std-file-make-bundles/verbose.out)
            let args = call_text.find("( {").map_or("", |i| &call_text[i..]);
            self.v(&format!(
                "P:    From parameterized bundle: {}{args}",
                def.name
            ));
        }
        self.v(&format!("P:    Base context class: {guard}"));
        let var_guard = p
            .var_guard
            .as_ref()
            .map(|s| crate::syntax::ast::Rval::Scalar(s.clone()));
        let if_rv = Self::constraint(p, "if")
            .or_else(|| Self::constraint(p, "ifvarclass"))
            .or(var_guard.as_ref());
        // one condition line: `if` (or `ifvarclass`), else `unless`
        let cond = match if_rv {
            Some(rv) => Some(("if", rv)),
            None => Self::constraint(p, "unless").map(|rv| ("unless", rv)),
        };
        if let Some((label, rv)) = cond {
            let shown = self.condition_text(rv);
            self.v(&format!("P:    \"{label}\" class condition: {shown}"));
        }
        self.v(&format!(
            "P:    Stack path: {stack}/{}/{}/{t}/'{}'[{idx}]",
            def.ns,
            def.name,
            abbreviated_promiser(promiser)
        ));
        if let Some(rv) = Self::constraint(p, "comment") {
            let c = self.scalar_of(rv).unwrap_or_default();
            self.v(&format!("P:    Comment:  {c}"));
        }
    }

    /// The stack path of a promise of type `t` with `promiser` in the running bundle (`/ns/bundle/t/'p'`
    /// after the frame's own path): where a bundle it calls (a method, an edit bundle, a home bundle)
    /// continues its `-v` stack path. Empty outside a bundle.
    pub fn promise_stack(&self, t: &str, promiser: &str) -> String {
        match self.ctx.frames.last() {
            Some(f) => format!(
                "{}/{}/{}/{t}/'{}'",
                f.stack,
                f.ns,
                f.bundle,
                abbreviated_promiser(promiser)
            ),
            None => String::new(),
        }
    }

    /// `P: BEGIN promise …` of one line of a `template_method => "cfengine"` template: the agent
    /// turns the template into a temporary edit_line bundle (`temp_cf_bundle_<canonified template
    /// path>`) of unlabelled `insert_lines` promises, each under its section's class (recorded:
    /// files/cftemplate-basic/verbose.out).
    pub fn verbose_template_begin(&mut self, stack: &str, template: &str, class: &str, line: &str) {
        if !self.verbose_on() {
            return;
        }
        let bundle = format!("temp_cf_bundle_{}", crate::expr::canonify(template));
        self.v(&format!("P: {DOTS}"));
        self.v(&format!(
            "P: BEGIN promise 'unlabelled_promise' of type \"insert_lines\" (pass {})",
            self.agent_pass
        ));
        let shown = cut_bytes(&abbreviated_promiser(line), 40, "");
        self.v(&format!("P:    Promiser/affected object: '{shown}'"));
        let call_text = self.bundle_args.clone();
        if call_text.is_empty() {
            self.v(&format!("P:    Part of bundle: {bundle}"));
        } else {
            let args = call_text.find("( {").map_or("", |i| &call_text[i..]);
            self.v(&format!("P:    From parameterized bundle: {bundle}{args}"));
        }
        self.v(&format!("P:    Base context class: {class}"));
        self.v(&format!(
            "P:    Stack path: {stack}/default/{bundle}/insert_lines/'{}'[1]",
            abbreviated_promiser(line)
        ));
    }

    /// How `-v` shows an `if`/`unless` value: the expanded string, or a function's result (its call text
    /// when it could not be called).
    fn condition_text(&mut self, rv: &crate::syntax::ast::Rval) -> String {
        use crate::syntax::ast::Rval;
        match rv {
            Rval::Scalar(s) => self.expand(&s.value).text,
            Rval::Call(c) => match self.call_function(c) {
                super::rval::RvalResult::Value {
                    value: crate::value::Value::Scalar(_, s),
                    ..
                } => s,
                _ => {
                    let args: Vec<String> = c
                        .args
                        .iter()
                        .map(|a| match a {
                            Rval::Scalar(s) => format!("\"{}\"", s.value),
                            _ => String::new(),
                        })
                        .collect();
                    format!("{}({})", c.name, args.join(","))
                }
            },
            _ => String::new(),
        }
    }

    /// `A: Promise was …` and `P: END …` after an actuation.
    pub fn verbose_promise_end(&mut self, t: &str, promiser: &str, o: Outcome) {
        if !self.verbose_on() {
            return;
        }
        let word = match o {
            Outcome::Kept => "was KEPT",
            Outcome::Repaired => "REPAIRED",
            Outcome::Failed => "NOT KEPT!",
        };
        self.v(&format!("A: Promise {word}"));
        // and this one at 30, marked with `...` (recorded)
        let shown = cut_bytes(promiser, 30, "...");
        self.v(&format!("P: END {t} promise ({shown})"));
    }
}
