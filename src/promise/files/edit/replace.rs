//! `replace_patterns` (spec §3.6, `VerifyPatterns` / `ReplacePatterns`): an unanchored regex replaced
//! per line by `replace_value` (expanded for every match, with `$(match.N)`), up to 20 substitutions per
//! line; `occurrences => "first"`; the two non-convergence checks; the dry-run per-line quirk; a missing
//! `replace_value`.
//!
//! Recorded on cf-agent 3.21.0 where the spec was vague or wrong: `occurrences => "first"` replaces the
//! first match in the **region** (the first line that matches) and stops; in a region the start delimiter
//! line is edited too and `include_*` change nothing; a dry run prints `Should replace pattern …` for
//! every line it reaches and, when nothing matched, also records `No match …` (kept and failed classes).

use super::list::{Id, Lines};
use super::matching::block_text_match;
use super::region;
use super::{EditEnv, EditResult, LogLevel, Model, OpOut, Out, Region};
use crate::pcre;

/// One `replace_patterns` promise, attributes expanded (but not `replace_value`, which is expanded per
/// match).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplacePatterns {
    pub promiser: String,
    pub region: Option<Region>,
    /// `replace_with` body: the unexpanded `replace_value`.
    pub replace_value: Option<String>,
    /// `replace_with` body: `"all"` (default) or `"first"`.
    pub occurrences: Option<String>,
}

const MAX_REPLACE: usize = 20;

/// Actuates one `replace_patterns` promise on the model. `expand` expands `replace_value` with the
/// match's `match.0..N`.
pub fn replace_patterns(
    model: &mut Model,
    req: &ReplacePatterns,
    env: &EditEnv,
    expand: &mut dyn FnMut(&str, &[Option<String>]) -> String,
) -> OpOut {
    let mut out = Out::new(env);
    let filename = env.filename;
    let p = req.promiser.as_str();
    out.log(LogLevel::Verbose, format!("Looking at pattern '{p}'"));

    let Some(value) = &req.replace_value else {
        out.record(
            LogLevel::Error,
            EditResult::Interrupted,
            format!("The promised pattern replace '{p}' has no replacement string"),
        );
        return out.finish();
    };

    let mut lines = Lines::from_lines(&model.lines);
    let (mut begin, mut end) = (lines.head(), None);
    if let Some(r) = &req.region {
        let Some(b) = region::select(&lines, r, &mut out) else {
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!("The promised pattern replace '{p}' could not select an edit region in '{filename}'"),
            );
            return out.finish();
        };
        begin = b.begin;
        end = b.end;
    }

    if env.already_ran {
        out.result = EditResult::Skipped;
        return out.finish();
    }
    out.ran = true;

    let once_only = req.occurrences.as_deref() == Some("first");
    if once_only {
        out.log(
            LogLevel::Warning,
            "Setting replace-occurrences policy to 'first' is not convergent",
        );
    }
    let not_anchored = !(p.starts_with('^') && p.ends_with('$'));
    let mut notfound = true;
    let ids: Vec<Id> = lines.iter(begin, end).collect();
    let desc = format!("replace pattern '{p}' in '{filename}'");
    // compiled once for the promise (a pattern that does not compile goes through
    // `block_text_match` each time, which logs its error as often as the agent does)
    let re = pcre::compile(p).ok();
    let matches = |s: &str, out: &mut Out| match &re {
        Some(r) => r.captures(s),
        None => block_text_match(p, s, out),
    };
    for id in ids {
        let first = matches(lines.text(id), &mut out);
        if first.is_none() {
            // nothing to replace on this line: what is left is the convergence check's second
            // look (it logs a bad pattern's error again) and the dry run's per-line warning
            if re.is_none() && not_anchored {
                let _ = matches(lines.text(id), &mut out);
            }
            let _ = out.making_changes(&desc);
            continue;
        }
        let original = lines.text(id).to_string();
        let mut buf = original.clone();
        let mut replaced = false;
        let mut cutoff = 1;
        let mut match_len = 0;
        let mut next = first;
        while let Some(caps) = next.take() {
            if match_len == buf.len() {
                out.log(
                    LogLevel::Verbose,
                    "Improper convergent expression matches defacto convergence, so accepting",
                );
                break;
            }
            let over = cutoff > MAX_REPLACE;
            cutoff += 1;
            if over {
                out.log(LogLevel::Verbose, "Too many replacements on this line");
                break;
            }
            match_len = caps.end - caps.start;
            let replacement = expand(value, &caps.groups);
            out.log(
                LogLevel::Verbose,
                format!("Verifying replacement of '{p}' with '{replacement}', cutoff {cutoff}"),
            );
            buf = format!("{}{}{}", &buf[..caps.start], replacement, &buf[caps.end..]);
            notfound = false;
            replaced = true;
            if once_only {
                out.log(
                    LogLevel::Verbose,
                    "Replace first occurrence only (warning, this is not a convergent policy)",
                );
                break;
            }
            next = matches(&buf, &mut out);
        }

        if not_anchored && matches(&buf, &mut out).is_some() {
            out.record(
                LogLevel::Error,
                EditResult::Interrupted,
                format!(
                    "Promised replacement '{buf}' on line '{original}' for pattern '{p}' is not convergent while editing '{filename}' (regular expression matches the replacement string)"
                ),
            );
            out.promise_ref(LogLevel::Error);
            break;
        }

        if !out.making_changes(&desc) {
            continue;
        }
        if replaced {
            if buf != original {
                out.changed = true;
            }
            lines.set_text(id, buf.clone());
            out.change(format!("Replaced pattern '{p}' in '{filename}'"));
            out.log(LogLevel::Verbose, format!("cutoff {cutoff}, '{buf}'"));
            out.log(LogLevel::Verbose, format!("cutoff {cutoff}, '{buf}'"));
            if once_only {
                out.log(
                    LogLevel::Verbose,
                    "Replace first occurrence only (warning, this is not a convergent policy)",
                );
                break;
            }
            if matches(&buf, &mut out).is_some() {
                out.record(
                    LogLevel::Error,
                    EditResult::Interrupted,
                    format!(
                        "Promised replacement '{buf}' for pattern '{p}' is not properly convergent while editing '{filename}' (pattern still matches the end-state replacement string '{buf}', consider use of a negative look ahead)"
                    ),
                );
                out.promise_ref(LogLevel::Info);
            }
        }
    }

    if notfound {
        out.no_change(format!("No match for pattern '{p}' in '{filename}'"));
    }
    out.end_line("replace_patterns", p);
    if out.changed {
        model.lines = lines.to_lines();
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{dry, env, lines, model, shown, text, warn};
    use super::*;

    const P: &str = "/srv/t/f.txt";

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    fn rep(p: &str, value: &str) -> ReplacePatterns {
        ReplacePatterns {
            promiser: p.into(),
            replace_value: Some(value.into()),
            ..Default::default()
        }
    }

    fn first(p: &str, value: &str) -> ReplacePatterns {
        ReplacePatterns {
            occurrences: Some("first".into()),
            ..rep(p, value)
        }
    }

    /// `$(match.N)` expansion as the engine does it.
    fn expand(s: &str, groups: &[Option<String>]) -> String {
        let mut r = s.to_string();
        for (i, g) in groups.iter().enumerate() {
            if let Some(g) = g {
                r = r.replace(&format!("$(match.{i})"), g);
            }
        }
        r
    }

    fn run_env(m: &mut Model, req: &ReplacePatterns, e: &EditEnv) -> OpOut {
        replace_patterns(m, req, e, &mut expand)
    }

    fn run(m: &mut Model, req: &ReplacePatterns) -> OpOut {
        run_env(m, req, &env())
    }

    const A4: &str = "color red\n  port=80\ndog dog\nplain";
    const PORT: &str = r"^(\s*)port\s*=\s*(?!8080$)\d+$";

    // recorded: cf-agent 3.21.0, Appendix A.4 (`p/e5.cf`), normal run:
    //    error: Promised replacement 'colour red' on line 'color red' for pattern 'colou?r' is not convergent while editing '…' (regular expression matches the replacement string)
    //    error: Promise belongs to bundle 'e' in file './p1.cf' near line 10
    //    error: Errors encountered when actuating replace_patterns promise 'colou?r'
    //  warning: Setting replace-occurrences policy to 'first' is not convergent
    //    error: Promised replacement 'cat dog' on line 'dog dog' for pattern 'dog' is not convergent …
    //     info: Replaced pattern '^(\s*)port\s*=\s*(?!8080$)\d+$' in '…'
    //     info: replace_patterns promise '^(\s*)port\s*=\s*(?!8080$)\d+$' repaired
    #[test]
    fn appendix_a4_normal_run() {
        let mut m = model(A4);
        let o = run(&mut m, &rep("colou?r", "colour"));
        assert_eq!(
            shown(&o),
            v(&[
                &format!("   error: Promised replacement 'colour red' on line 'color red' for pattern 'colou?r' is not convergent while editing '{P}' (regular expression matches the replacement string)"),
                "   error: Promise belongs to bundle 'e' in file './t.cf' near line 10",
                "   error: Errors encountered when actuating replace_patterns promise 'colou?r'",
            ])
        );
        assert_eq!(o.result, EditResult::Interrupted);
        let o = run(&mut m, &rep(PORT, "$(match.1)port = 8080"));
        assert_eq!(
            shown(&o),
            v(&[
                &format!("    info: Replaced pattern '{PORT}' in '{P}'"),
                &format!("    info: replace_patterns promise '{PORT}' repaired"),
            ])
        );
        let o = run(&mut m, &first("dog", "cat"));
        assert_eq!(
            shown(&o),
            v(&[
                " warning: Setting replace-occurrences policy to 'first' is not convergent",
                &format!("   error: Promised replacement 'cat dog' on line 'dog dog' for pattern 'dog' is not convergent while editing '{P}' (regular expression matches the replacement string)"),
                "   error: Promise belongs to bundle 'e' in file './t.cf' near line 10",
                "   error: Errors encountered when actuating replace_patterns promise 'dog'",
            ])
        );
        assert_eq!(text(&m), "color red\n  port = 8080\ndog dog\nplain");
        // second run: the port promise is kept, the two errors again
        assert_eq!(
            run(&mut m, &rep(PORT, "$(match.1)port = 8080")).result,
            EditResult::Kept
        );
        assert_eq!(
            run(&mut m, &rep("colou?r", "colour")).result,
            EditResult::Interrupted
        );
    }

    // recorded: cf-agent 3.21.0 -n, Appendix A.4: `Should replace pattern` once per line (4), then for
    // dog the two lines before the non-convergent one
    #[test]
    fn appendix_a4_dry_run() {
        let mut m = model(A4);
        let o = run_env(&mut m, &rep("colou?r", "colour"), &dry());
        assert_eq!(o.result, EditResult::Interrupted);
        let o = run_env(&mut m, &rep(PORT, "$(match.1)port = 8080"), &dry());
        let should = format!(" warning: Should replace pattern '{PORT}' in '{P}'");
        assert_eq!(
            shown(&o),
            v(&[
                &should,
                &should,
                &should,
                &should,
                &format!(" warning: Warnings encountered when actuating replace_patterns promise '{PORT}'"),
            ])
        );
        assert_eq!(o.result, EditResult::Warn);
        let o = run_env(&mut m, &first("dog", "cat"), &dry());
        let should = format!(" warning: Should replace pattern 'dog' in '{P}'");
        assert_eq!(
            shown(&o)[..3],
            v(&[
                " warning: Setting replace-occurrences policy to 'first' is not convergent",
                &should,
                &should
            ])[..]
        );
        assert!(
            shown(&o)[3].starts_with("   error: Promised replacement 'cat dog' on line 'dog dog'")
        );
        assert_eq!(text(&m), A4);
    }

    // recorded: cf-agent 3.21.0, "[0-9]" → "#" on a1b2c3/xyz → a#b#c#/xyz, one Replaced line
    #[test]
    fn every_match_on_a_line() {
        let mut m = model("a1b2c3\nxyz");
        let o = run(&mut m, &rep("[0-9]", "#"));
        assert_eq!(text(&m), "a#b#c#\nxyz");
        assert_eq!(shown(&o).len(), 2);
    }

    // recorded: cf-agent 3.21.0, "^(\w+)=(\w+)$" → "$(match.2)=$(match.1) [$(match.0)]" on k=v → v=k [k=v]
    // (anchored, and the result no longer matches: no error)
    #[test]
    fn match_groups() {
        let mut m = model("k=v\nother");
        let o = run(
            &mut m,
            &rep(r"^(\w+)=(\w+)$", "$(match.2)=$(match.1) [$(match.0)]"),
        );
        assert_eq!(text(&m), "v=k [k=v]\nother");
        assert_eq!(o.result, EditResult::Repaired);
    }

    // recorded: cf-agent 3.21.0, anchored and still matching ("^a.*$" → "aXc" on abc): applied, then
    //    error: Promised replacement 'aXc' for pattern '^a.*$' is not properly convergent while editing '…' (pattern still matches the end-state replacement string 'aXc', consider use of a negative look ahead)
    //    error: Errors encountered when actuating replace_patterns promise '^a.*$'
    //     info: Replaced pattern '^a.*$' in '…'
    //     info: Promise belongs to bundle 'e' in file './p5.cf' near line 10
    // (INFO printed last by the buffering); classes failed and repaired
    #[test]
    fn anchored_still_matching() {
        let mut m = model("abc");
        let o = run(&mut m, &rep("^a.*$", "aXc"));
        assert_eq!(text(&m), "aXc");
        assert_eq!(
            shown(&o),
            v(&[
                &format!("    info: Replaced pattern '^a.*$' in '{P}'"),
                &format!("   error: Promised replacement 'aXc' for pattern '^a.*$' is not properly convergent while editing '{P}' (pattern still matches the end-state replacement string 'aXc', consider use of a negative look ahead)"),
                "    info: Promise belongs to bundle 'e' in file './t.cf' near line 10",
                "   error: Errors encountered when actuating replace_patterns promise '^a.*$'",
            ])
        );
        let records: Vec<_> = o.msgs.iter().filter_map(|m| m.record).collect();
        assert!(
            records.contains(&EditResult::Repaired) && records.contains(&EditResult::Interrupted)
        );
    }

    // recorded: cf-agent 3.21.0 -v, "^a$" → "a" on a/b:
    //  verbose: Looking at pattern '^a$'
    //  verbose: Verifying replacement of '^a$' with 'a', cutoff 2
    //  verbose: Improper convergent expression matches defacto convergence, so accepting
    //  verbose: cutoff 2, 'a'   (twice)
    //    error: Promised replacement 'a' for pattern '^a$' is not properly convergent …
    // the file is unchanged
    #[test]
    fn anchored_identity_replacement_verbose() {
        let mut m = model("a\nb");
        let o = run(&mut m, &rep("^a$", "a"));
        let l = lines(&o);
        assert_eq!(
            l[..6],
            v(&[
                " verbose: Looking at pattern '^a$'",
                " verbose: Verifying replacement of '^a$' with 'a', cutoff 2",
                " verbose: Improper convergent expression matches defacto convergence, so accepting",
                &format!("    info: Replaced pattern '^a$' in '{P}'"),
                " verbose: cutoff 2, 'a'",
                " verbose: cutoff 2, 'a'",
            ])[..]
        );
        assert!(l[6].starts_with(
            "   error: Promised replacement 'a' for pattern '^a$' is not properly convergent"
        ));
        assert!(!o.changed);
        assert_eq!(o.result, EditResult::Interrupted);
    }

    // recorded: cf-agent 3.21.0, a comment follows the promise reference
    //    error: Comment is 'my comment'
    #[test]
    fn comment_after_promise_reference() {
        let mut m = model("color");
        let e = EditEnv {
            comment: Some("my comment"),
            ..env()
        };
        let o = run_env(&mut m, &rep("colou?r", "colour"), &e);
        assert_eq!(shown(&o)[2], "   error: Comment is 'my comment'");
    }

    // recorded: cf-agent 3.21.0, replace_with without replace_value (each pass, failed classes):
    //    error: The promised pattern replace 'b' has no replacement string
    #[test]
    fn missing_replace_value() {
        let mut m = model("abc");
        let req = ReplacePatterns {
            promiser: "b".into(),
            ..Default::default()
        };
        let o = run(&mut m, &req);
        assert_eq!(
            shown(&o),
            v(&["   error: The promised pattern replace 'b' has no replacement string"])
        );
        assert_eq!((o.result, o.ran), (EditResult::Interrupted, false));
    }

    // recorded: cf-agent 3.21.0, action_policy => "warn" on abc/xyz/abd: a Should line for every line
    //  warning: Should replace pattern 'b' in '/srv/cfsim-edit/t/p7.txt', but only warning promised
    #[test]
    fn warn_only_every_line() {
        let mut m = model("abc\nxyz\nabd");
        let o = run_env(&mut m, &rep("b", "B"), &warn());
        let should =
            format!(" warning: Should replace pattern 'b' in '{P}', but only warning promised");
        assert_eq!(
            shown(&o),
            v(&[
                &should,
                &should,
                &should,
                " warning: Warnings encountered when actuating replace_patterns promise 'b'"
            ])
        );
        assert_eq!(text(&m), "abc\nxyz\nabd");
    }

    // recorded: cf-agent 3.21.0, no match: kept; -v
    //  verbose: No match for pattern 'zz' in '/srv/cfsim-edit/t/v2.txt'
    //  verbose: No changes done for the replace_patterns promise 'zz'
    #[test]
    fn no_match_is_kept() {
        let mut m = model("a\nb");
        let o = run(&mut m, &rep("zz", "y"));
        assert_eq!(
            lines(&o),
            v(&[
                " verbose: Looking at pattern 'zz'",
                &format!(" verbose: No match for pattern 'zz' in '{P}'"),
                " verbose: No changes done for the replace_patterns promise 'zz'",
            ])
        );
        assert_eq!(o.result, EditResult::Kept);
    }

    // recorded: cf-agent 3.21.0 -n, no match on abc/xyz: Should ×2, WARN, classes failed **and** kept
    #[test]
    fn dry_run_without_match() {
        let mut m = model("abc\nxyz");
        let o = run_env(&mut m, &rep("zz", "B"), &dry());
        let should = format!(" warning: Should replace pattern 'zz' in '{P}'");
        assert_eq!(
            shown(&o),
            v(&[
                &should,
                &should,
                " warning: Warnings encountered when actuating replace_patterns promise 'zz'"
            ])
        );
        let records: Vec<_> = o.msgs.iter().filter_map(|m| m.record).collect();
        assert_eq!(
            records,
            vec![
                EditResult::Warn,
                EditResult::Warn,
                EditResult::Kept,
                EditResult::Warn
            ]
        );
        assert_eq!(o.result, EditResult::Warn);
    }

    // recorded: cf-agent 3.21.0 -n, q/color: one Should line, then the error on line 2
    #[test]
    fn dry_run_then_not_convergent() {
        let mut m = model("q\ncolor");
        let o = run_env(&mut m, &rep("colou?r", "colour"), &dry());
        let s = shown(&o);
        assert_eq!(
            s[0],
            format!(" warning: Should replace pattern 'colou?r' in '{P}'")
        );
        assert!(s[1].starts_with("   error: Promised replacement 'colour' on line 'color'"));
        assert_eq!(
            s[3],
            "   error: Errors encountered when actuating replace_patterns promise 'colou?r'"
        );
    }

    // recorded: cf-agent 3.21.0, occurrences => "first" on dog/dog dog/dog → cat/dog dog/dog: the first
    // matching line only (spec §3.6 says once per line)
    #[test]
    fn first_occurrence_in_region() {
        let mut m = model("dog\ndog dog\ndog");
        let o = run(&mut m, &first("dog", "cat"));
        assert_eq!(text(&m), "cat\ndog dog\ndog");
        assert_eq!(
            shown(&o),
            v(&[
                " warning: Setting replace-occurrences policy to 'first' is not convergent",
                &format!("    info: Replaced pattern 'dog' in '{P}'"),
                "    info: replace_patterns promise 'dog' repaired",
            ])
        );
    }

    // recorded: cf-agent 3.21.0, at most 20 substitutions per line, then the guard:
    //    error: Promised replacement 'bbbbbbbbbbbbbbbbbbbbaaaaa' on line 'aaaaaaaaaaaaaaaaaaaaaaaaa' for pattern 'a' is not convergent …
    //    error: Promised replacement 'aaaaaaaaaaaaaaaaaaaaab' on line 'ab' … ('a' → 'aa')
    //    error: Promised replacement 'YYYYYYYYYYYYYYYYYYYYab' on line 'ab' for pattern 'x*' …
    #[test]
    fn twenty_substitutions_per_line() {
        for (line, p, value, want) in [
            (
                "aaaaaaaaaaaaaaaaaaaaaaaaa",
                "a",
                "b",
                "bbbbbbbbbbbbbbbbbbbbaaaaa",
            ),
            ("ab", "a", "aa", "aaaaaaaaaaaaaaaaaaaaab"),
            ("ab", "x*", "Y", "YYYYYYYYYYYYYYYYYYYYab"),
        ] {
            let mut m = model(line);
            let o = run(&mut m, &rep(p, value));
            assert_eq!(
                shown(&o)[0],
                format!("   error: Promised replacement '{want}' on line '{line}' for pattern '{p}' is not convergent while editing '{P}' (regular expression matches the replacement string)")
            );
            assert_eq!(text(&m), line);
        }
    }

    fn region(inc: bool) -> Option<Region> {
        Some(Region {
            select_start: Some(r"\[s\]".into()),
            select_end: Some(r"\[.*\]".into()),
            include_start: inc,
            include_end: inc,
            select_end_match_eof: None,
        })
    }

    // recorded: cf-agent 3.21.0, region: b/[s]/b/[t]/b → b/[s]/B/[t]/b
    #[test]
    fn region_replace() {
        let mut m = model("b\n[s]\nb\n[t]\nb");
        run(
            &mut m,
            &ReplacePatterns {
                region: region(false),
                ..rep("b", "B")
            },
        );
        assert_eq!(text(&m), "b\n[s]\nB\n[t]\nb");
    }

    // recorded: cf-agent 3.21.0, the start delimiter is edited too, include_* or not: s/[s]/s/[t]/s →
    // s/[S]/S/[t]/s; passes 2 and 3 then cannot find the region:
    //    error: The promised pattern replace 's' could not select an edit region in '…'
    #[test]
    fn region_includes_start_delimiter() {
        for inc in [false, true] {
            let mut m = model("s\n[s]\ns\n[t]\ns");
            let req = ReplacePatterns {
                region: region(inc),
                ..rep("s", "S")
            };
            let o = run(&mut m, &req);
            assert_eq!(text(&m), "s\n[S]\nS\n[t]\ns");
            assert_eq!(shown(&o).len(), 3);
            let o = run_env(
                &mut m,
                &req,
                &EditEnv {
                    already_ran: true,
                    ..env()
                },
            );
            assert_eq!(
                shown(&o),
                v(&[&format!("   error: The promised pattern replace 's' could not select an edit region in '{P}'")])
            );
        }
    }

    // recorded: cf-agent 3.21.0, no end delimiter and no select_end_match_eof: to the end of the file
    #[test]
    fn region_without_end_runs_to_eof() {
        let mut m = model("b\n[s]\nb\nb");
        let o = run(
            &mut m,
            &ReplacePatterns {
                region: region(false),
                ..rep("b", "B")
            },
        );
        assert_eq!(text(&m), "b\n[s]\nB\nB");
        assert_eq!(shown(&o).len(), 3);
    }

    // recorded: cf-agent 3.21.0, a bad pattern: the error twice per line, kept
    #[test]
    fn bad_pattern() {
        let mut m = model("a(b\nx");
        let o = run(&mut m, &rep("a(b", "z"));
        let err = "   error: Regular expression error: pcre_compile() 'missing )' in expression 'a(b' (offset: 3)";
        assert_eq!(shown(&o), v(&[err, err, err, err]));
        assert_eq!(o.result, EditResult::Kept);
    }
}
