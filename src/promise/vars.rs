//! `vars:` promises: the value types (`string int real slist ilist rlist data`), unresolved text kept
//! literally, unresolved function arguments skip the promise, illegal identifiers, meta tags
//! (`source=promise` then the `meta` list), redefinition (last evaluation wins, type may change).

use crate::eval::output::LogLevel;
use crate::eval::rval::RvalResult;
use crate::eval::{BundleDef, Engine, Outcome};
use crate::syntax::ast::{Promise, Rval};
use crate::value::{format_real, parse_int, parse_real, ListKind, ScalarKind, Value};

/// The value-type attributes of a vars promise.
pub const TYPES: &[&str] = &["string", "int", "real", "slist", "ilist", "rlist", "data"];

/// Whether a variable identifier is legal: no `-`, `:` or space outside `[...]`.
pub fn legal_identifier(lval: &str) -> bool {
    // bytes, not characters: the ones looked for are ASCII, which no byte of a multi-byte character is
    let mut depth = 0i32;
    for &c in lval.as_bytes() {
        match c {
            b'[' => depth += 1,
            b']' => depth -= 1,
            b'-' | b':' | b' ' if depth == 0 => return false,
            _ => {}
        }
    }
    true
}

fn to_typed(ty: &str, v: Value) -> Option<Value> {
    Some(match (ty, v) {
        ("string", Value::Scalar(_, s)) => Value::Scalar(ScalarKind::String, s),
        ("int", Value::Scalar(_, s)) => match parse_int(&s) {
            Some(i) => Value::int(i),
            None => Value::Scalar(ScalarKind::Int, s),
        },
        ("real", Value::Scalar(_, s)) => match parse_real(&s) {
            Some(f) => Value::Scalar(ScalarKind::Real, format_real(f)),
            None => Value::Scalar(ScalarKind::Real, s),
        },
        ("slist", Value::List(_, l)) => Value::List(ListKind::Slist, l),
        ("ilist", Value::List(_, l)) => Value::List(ListKind::Ilist, l),
        ("rlist", Value::List(_, l)) => Value::List(ListKind::Rlist, l),
        ("slist" | "ilist" | "rlist", Value::Data(d)) => {
            Value::List(ListKind::Slist, crate::value::json_scalar_values(&d))
        }
        ("data", Value::Data(d)) => Value::Data(d),
        ("data", Value::Scalar(_, s)) => {
            let mut d = crate::functions::json::parse(&s).ok()?;
            crate::functions::json::store_numbers(&mut d);
            Value::Data(d)
        }
        ("data", Value::List(_, l)) => Value::Data(serde_json::Value::Array(
            l.into_iter().map(serde_json::Value::String).collect(),
        )),
        ("string", Value::Data(d)) => Value::str(d.to_string()),
        _ => return None,
    })
}

/// Evaluates one vars promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    // the promise's expansion warns before anything is decided about it
    if let Some(Rval::List(items, _)) = p
        .constraints
        .iter()
        .find(|c| TYPES.contains(&c.lval.as_str()))
        .map(|c| &c.rval)
    {
        super::warn_scalar_refs(e, items);
    }
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    if crate::expr::expand::has_reference(promiser) {
        e.end_event(Some("unresolved"), None);
        return;
    }
    let Some(c) = p
        .constraints
        .iter()
        .find(|c| TYPES.contains(&c.lval.as_str()))
    else {
        e.end_event(Some("no_value"), None);
        return;
    };
    let (scope, lval) = match crate::expr::split_once_byte(promiser, b'.') {
        Some((s, l)) if !s.contains('[') => (s, l),
        _ => (def.name.as_str(), promiser),
    };
    // a scope naming another existing bundle is an injection; any other scope is a plain variable
    // scope of its own (recorded: eval/thirdparty/vars_into_missing_bundle)
    let remote = scope != def.name && e.find_bundle(&def.ns, scope).is_some();
    if remote && !e.bundle_names_known && legal_identifier(lval) {
        // while the files load the agent does not know the bundle names yet: it keeps the promise for
        // the target bundle's BundleResolve, which ignores it (recorded: eval/thirdparty/
        // vars_into_missing_bundle, remote_injection_order)
        e.remote_vars.push((scope.to_string(), lval.to_string()));
        e.end_event(Some("illegal_identifier"), None);
        return;
    }
    if e.stage == "pass" && e.verbose_on() {
        if def.is_edit_line() {
            // an edit bundle's vars are promises of the edit (recorded: files/*/verbose.out)
            e.verbose_promise_begin(def, "vars", p, promiser);
        } else {
            e.log(
                crate::eval::output::LogLevel::Verbose,
                &format!("V:     Computing value of '{promiser}'"),
            );
        }
    }
    if remote || !legal_identifier(lval) {
        let line = e.line_of(p);
        let file = e.file_path(def.file);
        // in a pass the promise is verified twice (once more after the actuator), each time with the
        // errors (recorded: eval/thirdparty/vars_into_missing_bundle)
        let times = if e.stage == "pass" { 2 } else { 1 };
        for _ in 0..times {
            if remote {
                e.log(
                    LogLevel::Error,
                    "Remote bundle variable injection detected!",
                );
            }
            e.log(
                LogLevel::Error,
                &format!("Variable identifier '{promiser}' is not legal"),
            );
            e.log(
                LogLevel::Error,
                &format!(
                    "Promise belongs to bundle '{}' in file '{file}' near line {line}",
                    def.name
                ),
            );
        }
        e.end_event(Some("illegal_identifier"), Some(Outcome::Failed));
        return;
    }
    let (skip, outcome) = verify(e, def, p, promiser, &c.lval, &c.rval);
    if e.stage == "pass" {
        // after the actuator the agent's promise expansion verifies a vars promise once more
        // (classes body, redefinition notes: recorded twice in a row, classbody/outcomes_reports_vars)
        let before = e.cur.classes_set.len();
        let _ = verify(e, def, p, promiser, &c.lval, &c.rval);
        dedup_tail(&mut e.cur.classes_set, before);
    }
    e.end_event(skip, outcome);
}

/// Drops the entries from `from` on that are already in the list before them.
pub fn dedup_tail(list: &mut Vec<String>, from: usize) {
    let mut i = from;
    while i < list.len() {
        if list[..i].contains(&list[i]) {
            list.remove(i);
        } else {
            i += 1;
        }
    }
}

/// The agent's VerifyVarPromise for one binding: evaluates the value and stores it, applies the classes
/// body; `policy => "constant"` keeps an existing different value (with the agent's verbose note).
/// Returns the trace skip reason and outcome.
fn verify(
    e: &mut Engine<'_>,
    def: &BundleDef,
    p: &Promise,
    promiser: &str,
    ty: &str,
    rv: &crate::syntax::ast::Rval,
) -> (Option<&'static str>, Option<Outcome>) {
    let (scope, lval) = match crate::expr::split_once_byte(promiser, b'.') {
        Some((s, l)) if !s.contains('[') => (s, l),
        _ => (def.name.as_str(), promiser),
    };
    let key = VarKeyRef(&def.ns, scope, lval);
    let policy = match Engine::constraint(p, "policy") {
        Some(rv) => e.scalar_of(rv).unwrap_or_default(),
        None => String::new(),
    };
    let ifdefined = policy == "ifdefined";
    // an int or real written as a lone `@(name)`: unless it names a list, the agent parses the text as
    // a number, fails and defines nothing (recorded: policies/parse/checks/int_variables_unchecked,
    // eval/thirdparty/number_from_list_reference)
    let naked_number = match rv {
        crate::syntax::ast::Rval::Scalar(sc) if matches!(ty, "int" | "real") => {
            crate::expr::expand::naked_list_name(&sc.value).map(|_| sc.value.clone())
        }
        _ => None,
    };
    let evaluated = e.eval_rval(rv);
    if let Some(text) = naked_number {
        let kind = if ty == "int" { "integer" } else { "real" };
        if let Some(list) = string_names_list(e, &evaluated) {
            // naming a list: the agent parses the list's address as text (garbage, different every
            // run: "Failed to parse integer number: \xd0\x9a…"); cfsim names the text it was given,
            // then stops as for a string once the agent expands the promise itself (recorded:
            // eval/scope/string_from_list_fatal)
            if matches!(e.stage, "prelim" | "pass") {
                list_for_scalar(e, def, p, promiser, ty, &list);
            } else {
                e.log(
                    LogLevel::Error,
                    &format!("Failed to parse {kind} number: {text}"),
                );
            }
            return (Some("type_mismatch"), Some(Outcome::Failed));
        }
        e.log(
            LogLevel::Error,
            &format!("Failed to parse {kind} number: {text}"),
        );
        return (Some("type_mismatch"), Some(Outcome::Failed));
    }
    if ty == "string" {
        if let Some(list) = string_names_list(e, &evaluated) {
            list_for_scalar(e, def, p, promiser, ty, &list);
            return (Some("type_mismatch"), Some(Outcome::Failed));
        }
    }
    let value = match evaluated {
        // `policy => "ifdefined"`: undefined references are dropped (list elements) or the variable is
        // not defined (scalars)
        RvalResult::Value {
            value: Value::List(k, items),
            ..
        } if ifdefined => Value::List(
            k,
            items
                .into_iter()
                .filter(|i| {
                    !crate::expr::expand::has_reference(i)
                        && crate::expr::expand::naked_list_name(i).is_none()
                })
                .collect(),
        ),
        RvalResult::Value {
            unresolved: true, ..
        } if ifdefined => return (Some("unresolved"), None),
        RvalResult::Value { value, .. } => value,
        RvalResult::Skip | RvalResult::Dropped => return (Some("unresolved"), None),
        RvalResult::Failed => {
            // VerifyVarPromise calls a failed function again while the variable is undefined
            if matches!(rv, crate::syntax::ast::Rval::Call(_)) && !e.ctx.vars.contains_key(&key) {
                e.replay_failed_calls(rv, 1);
            }
            return (Some("failed_function"), Some(Outcome::Failed));
        }
    };
    let value = match (rv, value) {
        (Rval::Call(_), Value::List(k, items)) if matches!(ty, "slist" | "ilist" | "rlist") => {
            Value::List(k, expand_result_items(e, items))
        }
        (_, v) => v,
    };
    let Some(value) = to_typed(ty, value) else {
        return (Some("type_mismatch"), Some(Outcome::Failed));
    };
    // the type check of the expanded promise: a number out of the attribute's range (read from a file:
    // written in the policy, cf-promises rejects it) stops the agent (recorded: eval/iteration/
    // int_out_of_range)
    if matches!(e.stage, "prelim" | "pass") && out_of_range_fatal(e, def, ty, &value) {
        return (Some("type_mismatch"), Some(Outcome::Failed));
    }
    // the run-wide budget: a value past what is left is not set (said once a run)
    let units = value.work_units();
    if units > e.work_left {
        e.work_left = 0;
        e.limit_hit = true;
        if !e.work_said {
            e.work_said = true;
            e.log(
                crate::eval::output::LogLevel::Error,
                &format!("cfsim: the run's values add up to more than the limit (--max-total-values); variable '{promiser}' not set, nor any after it"),
            );
        }
        return (Some("too_large"), Some(Outcome::Failed));
    }
    e.work_left -= units;
    if let Some(why) = e.opts.limits.too_large(&value) {
        e.limit_hit = true;
        e.log(
            crate::eval::output::LogLevel::Error,
            &format!("cfsim: the value of variable '{promiser}' {why}; not set"),
        );
        return (Some("too_large"), Some(Outcome::Failed));
    }
    if policy == "constant" {
        if let Some(old) = e.ctx.vars.get(&key).map(|v| v.value.clone()) {
            if old != value {
                constant_note(e, promiser, &old, &value);
            }
            return (Some("constant"), Some(Outcome::Kept));
        }
    }
    let mut tags = vec!["source=promise".to_string()];
    if let Some(m) = crate::eval::Engine::constraint(p, "meta") {
        tags.extend(e.list_of(m));
    }
    // (a trace that only counts outcomes never reads `vars_set`)
    if e.opts.trace
        && !e.opts.trace_counts_only
        && e.ctx.vars.get(&key).map(|v| &v.value) != Some(&value)
    {
        e.cur.vars_set.push(qualified_name(&key));
    }
    // the comment shown is the one of the promise that set the value last (none if it has none)
    match Engine::constraint(p, "comment").and_then(|rv| e.scalar_of(rv)) {
        Some(c) => {
            e.ctx.comments.insert(qualified_name(&key), c);
        }
        None if !e.ctx.comments.is_empty() => {
            e.ctx.comments.shift_remove(&qualified_name(&key));
        }
        None => {}
    }
    e.ctx.set_var_at(key, value, tags);
    e.apply_classes_body(def, p, Outcome::Kept);
    (None, Some(Outcome::Kept))
}

use crate::eval::context::VarKeyRef;

/// A list-typed variable's value from a function: the agent expands the result once more, so an
/// element that is exactly `@(x)` becomes x's elements (a list), x's value with the warning of
/// [`super::warn_scalar_refs`] (a string), or stays (anything else), at every evaluation (recorded:
/// eval/scope/string_from_list_function, `splitstring("@(s)", …)`).
fn expand_result_items(e: &mut Engine<'_>, items: Vec<String>) -> Vec<String> {
    if !items.iter().any(|i| i.starts_with('@')) {
        return items;
    }
    let mut out = Vec::with_capacity(items.len());
    for it in items {
        match e.list_element_items(&it) {
            Some((expanded, from_string)) => {
                if from_string {
                    super::warn_not_list(e, &it);
                }
                out.extend(expanded);
            }
            None => out.push(it),
        }
    }
    out
}

/// The list a scalar value names when it is exactly `@(x)` (written so, or a function's result) and x
/// is a list: the agent expands such a value to the list (not a data container, a string or an
/// undefined x, which stay text).
fn string_names_list(e: &Engine<'_>, evaluated: &RvalResult) -> Option<Value> {
    let RvalResult::Value {
        value: Value::Scalar(_, text),
        ..
    } = evaluated
    else {
        return None;
    };
    match e.list_element_var(text)? {
        v @ Value::List(..) => Some(v),
        _ => None,
    }
}

/// A string variable given a list (`"s" string => "@(list)"`). While the policy is resolved (cf-promises,
/// and the agent's rounds) VerifyVarPromise rejects the value each time; once the agent expands the
/// promise itself (its preliminary convergence, or a bundle's pass) the type check of the expanded
/// promise is a FatalError: the agent stops there, exit 1, before any bundle runs (recorded:
/// eval/scope/string_from_list_fatal). A function's result naming a list is only rejected, at every
/// evaluation (recorded: eval/scope/string_from_list_function).
fn list_for_scalar(
    e: &mut Engine<'_>,
    def: &BundleDef,
    p: &Promise,
    promiser: &str,
    ty: &str,
    list: &Value,
) {
    // only a value written `"@(list)"` is expanded by the promise's own expansion: a function's result
    // is rejected at every evaluation and never stops the agent (recorded: ifelse(…, "@(l)", …))
    let written = matches!(Engine::constraint(p, ty), Some(Rval::Scalar(_)));
    if written && matches!(e.stage, "prelim" | "pass") {
        expanded_check_fatal(
            e,
            def,
            ty,
            "Attempted to give a list to a non-list type",
            list,
        );
        return;
    }
    let shown = crate::eval::render::render_value(list);
    let file = e.file_path(def.file);
    let line = e.line_of(p);
    e.log(
        LogLevel::Error,
        &format!(
            "Variable '{}:{}.{promiser}' expected a variable of type '{ty}', but was given incompatible value '{shown}'",
            def.ns, def.name
        ),
    );
    e.log(
        LogLevel::Error,
        &format!(
            "Promise belongs to bundle '{}' in file '{file}' near line {line}",
            def.name
        ),
    );
}

/// An `int`/`ilist`/`real`/`rlist` value with an item outside the attribute's range: as the agent's
/// check of the expanded promise, "In attribute 'ilist', Integer is out of range. Given attribute value
/// ' {…}'" and a FatalError (the agent stops, exit 1). Returns whether it stopped.
fn out_of_range_fatal(e: &mut Engine<'_>, def: &BundleDef, ty: &str, value: &Value) -> bool {
    let real = match ty {
        "int" | "ilist" => false,
        "real" | "rlist" => true,
        _ => return false,
    };
    let Some(range) =
        crate::syntax::tables::promise_attr("agent", "vars", ty).and_then(|a| a.range)
    else {
        return false;
    };
    let items: &[String] = match value {
        Value::Scalar(_, s) => std::slice::from_ref(s),
        Value::List(_, items) => items,
        Value::Data(_) => return false,
    };
    let Some(problem) = items
        .iter()
        .find_map(|i| crate::syntax::check::numbers::expanded_number_out_of_range(i, real, range))
    else {
        return false;
    };
    expanded_check_fatal(e, def, ty, problem, value);
    true
}

/// The agent's type check of its expanded promise failing: the error naming the attribute, the
/// problem and the value as given, then a FatalError (the agent stops, exit 1).
fn expanded_check_fatal(
    e: &mut Engine<'_>,
    def: &BundleDef,
    ty: &str,
    problem: &str,
    value: &Value,
) {
    let shown = crate::eval::render::render_value(value);
    let file = e.file_path(def.file);
    e.log(
        LogLevel::Error,
        &format!("{file}:0:0: In attribute '{ty}', {problem}. Given attribute value '{shown}'"),
    );
    e.log(LogLevel::Error, "Fatal CFEngine error: Cannot continue");
    e.fatal = true;
}

/// `ns:scope.lval` of a variable key.
fn qualified_name(key: &VarKeyRef<'_>) -> String {
    let mut s = String::with_capacity(key.0.len() + key.1.len() + key.2.len() + 2);
    s.push_str(key.0);
    s.push(':');
    s.push_str(key.1);
    s.push('.');
    s.push_str(key.2);
    s
}

/// The agent's note when `policy => "constant"` keeps an existing value: scalars with both values, lists
/// by name; nothing when the types differ or for data.
fn constant_note(e: &mut Engine<'_>, promiser: &str, old: &Value, new: &Value) {
    if !e.verbose_on() {
        return;
    }
    let msg = match (old, new) {
        (Value::Scalar(_, o), Value::Scalar(_, n)) => {
            if crate::expr::expand::has_reference(o) || crate::expr::expand::has_reference(n) {
                return;
            }
            format!("V: Skipping redefinition of constant scalar '{promiser}': from '{o}' to '{n}'")
        }
        (Value::List(..), Value::List(..)) => {
            format!("V: Skipping redefinition of constant list '{promiser}'")
        }
        _ => return,
    };
    e.log(LogLevel::Verbose, &msg);
}

#[cfg(test)]
mod tests {
    use super::legal_identifier;

    #[test]
    fn identifiers_follow_the_agent() {
        // recorded: 'my-var' is not legal; anything goes inside brackets
        assert!(!legal_identifier("my-var"));
        assert!(!legal_identifier("a b"));
        assert!(legal_identifier("arr[a-b c:d]"));
        assert!(legal_identifier("plain_1"));
    }
}
