//! `delete_lines` (spec §3.5, `VerifyLineDeletions` / `DeletePromisedLinesMatching`): full-line regex
//! promisers, multi-line promisers deleting a run of consecutive matching lines, `not_matching`,
//! `delete_select`, regions (delimiters excluded unless `include_*`), and the agent's messages.

use super::list::Lines;
use super::matching::{match_region, select_line};
use super::region::{self, Bounds};
use super::{end_match_eof, EditEnv, EditResult, LogLevel, Model, OpOut, Out, Region, SelectLists};

/// One `delete_lines` promise, attributes expanded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteLines {
    /// A full-line regex; with `\n`, one regex per consecutive line.
    pub promiser: String,
    pub region: Option<Region>,
    pub not_matching: bool,
    pub delete_select: SelectLists,
}

/// Actuates one `delete_lines` promise on the model.
pub fn delete_lines(model: &mut Model, req: &DeleteLines, env: &EditEnv) -> OpOut {
    let mut out = Out::new(env);
    let mut lines = Lines::from_lines(&model.lines);
    let filename = env.filename;
    let p = req.promiser.as_str();

    // SanityCheckDeletions: complains, but goes on
    if p.contains('\n') && req.not_matching {
        out.log(
            LogLevel::Error,
            "Makes no sense to promise multi-line delete with not_matching. Cannot be satisfied for all lines as a block.",
        );
    }

    let mut bounds = Bounds {
        begin: None,
        end: None,
    };
    if let Some(r) = &req.region {
        match region::select(&lines, r, &mut out) {
            None => {
                let why = if r.include_start || r.include_end {
                    "(this is a good thing, as policy suggests deleting the markers)"
                } else {
                    "(but the delimiters were expected in the file)"
                };
                out.record(
                    LogLevel::Error,
                    EditResult::Interrupted,
                    format!("The promised line deletion '{p}' could not select an edit region in '{filename}' {why}"),
                );
                return out.finish();
            }
            Some(b) => {
                if b.end.is_none() && r.select_end.is_some() && !end_match_eof(r, env) {
                    let e = r.select_end.as_deref().unwrap_or_default();
                    out.record(
                        LogLevel::Error,
                        EditResult::Interrupted,
                        format!("The promised end pattern '{e}' was not found when selecting region to delete in '{filename}'"),
                    );
                    return out.finish();
                }
                bounds = b;
            }
        }
    }

    if env.already_ran {
        out.result = EditResult::Skipped;
        return out.finish();
    }
    out.ran = true;

    let include_start = req.region.as_ref().is_some_and(|r| r.include_start);
    let include_end = req.region.as_ref().is_some_and(|r| r.include_end);
    let initiator = match bounds.begin {
        None => lines.head(),
        Some(b) if include_start => Some(b),
        Some(b) => lines.next(b),
    };
    let terminator = match bounds.end {
        None => None,
        Some(e) if include_end => lines.next(e),
        Some(e) => Some(e),
    };

    let mut noedits = true;
    let mut ip = initiator;
    while let Some(id) = ip {
        if Some(id) == terminator {
            break;
        }
        let m = match_region(&lines, p, Some(id), terminator, true, &mut out);
        let matches = if req.not_matching {
            usize::from(m == 0)
        } else {
            m
        };
        if matches > 0 {
            out.log(
                LogLevel::Verbose,
                format!("Multi-line region ({matches} lines) matched text in the file"),
            );
        }
        if !select_line(lines.text(id), &req.delete_select, &mut out) {
            ip = lines.next(id);
            continue;
        }
        if matches == 0 {
            ip = lines.next(id);
            continue;
        }
        out.log(
            LogLevel::Verbose,
            format!("Delete chunk of {matches} lines"),
        );
        let text = lines.text(id).to_string();
        if !out.making_changes(&format!("delete line '{text}' from {filename}")) {
            noedits = false;
            ip = lines.next(id);
            continue;
        }
        let mut cur = Some(id);
        for i in 1..=matches {
            let Some(c) = cur else { break };
            out.change(format!(
                "Deleted the promised line {i} '{}' from {filename}",
                lines.text(c)
            ));
            noedits = false;
            let next = lines.next(c);
            lines.remove(c);
            out.changed = true;
            cur = next;
        }
        ip = cur;
    }

    if noedits {
        out.no_change(format!("No need to delete lines from {filename}, ok"));
    }
    out.end_line("delete_lines", p);
    if out.changed {
        model.lines = lines.to_lines();
    }
    out.finish()
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{dry, env, lines, model, shown, text, warn};
    use super::*;

    fn del(p: &str) -> DeleteLines {
        DeleteLines {
            promiser: p.to_string(),
            ..Default::default()
        }
    }

    fn region(start: &str, end: &str, inc_start: bool, inc_end: bool) -> Option<Region> {
        Some(Region {
            select_start: Some(start.to_string()),
            select_end: Some(end.to_string()),
            include_start: inc_start,
            include_end: inc_end,
            select_end_match_eof: None,
        })
    }

    fn v(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    const P: &str = "/srv/t/f.txt";

    // recorded: cf-agent 3.21.0, policy delete_lines: "abc"; file abc/abcd/abc/x
    //     info: Deleted the promised line 1 'abc' from /srv/cfsim-edit/t/x1.txt
    //     info: Deleted the promised line 1 'abc' from /srv/cfsim-edit/t/x1.txt
    //     info: delete_lines promise 'abc' repaired
    #[test]
    fn full_line_match() {
        let mut m = model("abc\nabcd\nabc\nx");
        let o = delete_lines(&mut m, &del("abc"), &env());
        assert_eq!(text(&m), "abcd\nx");
        assert_eq!(
            shown(&o),
            v(&[
                &format!("    info: Deleted the promised line 1 'abc' from {P}"),
                &format!("    info: Deleted the promised line 1 'abc' from {P}"),
                "    info: delete_lines promise 'abc' repaired",
            ])
        );
        assert_eq!(o.result, EditResult::Repaired);
        assert!(o.changed && o.ran);
    }

    // recorded: cf-agent 3.21.0, delete_lines: "multi1\nmulti2"; file multi1/multi2/multi1/z/multi1/multi2
    //     info: Deleted the promised line 1 'multi1' from …  / 2 'multi2' / 1 'multi1' / 2 'multi2'
    #[test]
    fn multi_line_promiser_deletes_runs() {
        let mut m = model("multi1\nmulti2\nmulti1\nz\nmulti1\nmulti2");
        let o = delete_lines(&mut m, &del("multi1\nmulti2"), &env());
        assert_eq!(text(&m), "multi1\nz");
        assert_eq!(
            shown(&o),
            v(&[
                &format!("    info: Deleted the promised line 1 'multi1' from {P}"),
                &format!("    info: Deleted the promised line 2 'multi2' from {P}"),
                &format!("    info: Deleted the promised line 1 'multi1' from {P}"),
                &format!("    info: Deleted the promised line 2 'multi2' from {P}"),
                "    info: delete_lines promise 'multi1\nmulti2' repaired",
            ])
        );
    }

    // recorded: cf-agent 3.21.0 -v, delete_lines: "a" on a/b
    //  verbose: Multi-line region (1 lines) matched text in the file
    //  verbose: Delete chunk of 1 lines
    #[test]
    fn verbose_lines_in_order() {
        let mut m = model("a\nb");
        let o = delete_lines(&mut m, &del("a"), &env());
        assert_eq!(
            lines(&o),
            v(&[
                " verbose: Multi-line region (1 lines) matched text in the file",
                " verbose: Delete chunk of 1 lines",
                &format!("    info: Deleted the promised line 1 'a' from {P}"),
                "    info: delete_lines promise 'a' repaired",
            ])
        );
    }

    // recorded: cf-agent 3.21.0, delete_lines: "keep.*" not_matching => "true"; file keep/a/keep2/b
    #[test]
    fn not_matching() {
        let mut m = model("keep\na\nkeep2\nb");
        let req = DeleteLines {
            not_matching: true,
            ..del("keep.*")
        };
        let o = delete_lines(&mut m, &req, &env());
        assert_eq!(text(&m), "keep\nkeep2");
        assert_eq!(
            shown(&o),
            v(&[
                &format!("    info: Deleted the promised line 1 'a' from {P}"),
                &format!("    info: Deleted the promised line 1 'b' from {P}"),
                "    info: delete_lines promise 'keep.*' repaired",
            ])
        );
    }

    // recorded: cf-agent 3.21.0, delete_lines: "m1\nm2" not_matching => "true"; file m1/m2/x → m1, the
    // sanity error printed once per pass (3×) and the lines deleted in pass 1
    #[test]
    fn multi_line_not_matching_complains_but_deletes() {
        let mut m = model("m1\nm2\nx");
        let req = DeleteLines {
            not_matching: true,
            ..del("m1\nm2")
        };
        let o = delete_lines(&mut m, &req, &env());
        assert_eq!(text(&m), "m1");
        assert_eq!(
            shown(&o),
            v(&[
                "   error: Makes no sense to promise multi-line delete with not_matching. Cannot be satisfied for all lines as a block.",
                &format!("    info: Deleted the promised line 1 'm2' from {P}"),
                &format!("    info: Deleted the promised line 1 'x' from {P}"),
                "    info: delete_lines promise 'm1\nm2' repaired",
            ])
        );
        // later passes: the complaint again, then the lock
        let again = EditEnv {
            already_ran: true,
            ..env()
        };
        let o = delete_lines(&mut m, &req, &again);
        assert_eq!(lines(&o).len(), 1);
        assert_eq!(o.result, EditResult::Skipped);
        assert!(!o.ran);
    }

    // recorded: cf-agent 3.21.0, delete_lines: "zz" → kept, nothing at -I; -v:
    //  verbose: No need to delete lines from /srv/cfsim-edit/t/v2.txt, ok
    //  verbose: No changes done for the delete_lines promise 'zz'
    #[test]
    fn nothing_to_delete_is_kept() {
        let mut m = model("a\nb");
        let o = delete_lines(&mut m, &del("zz"), &env());
        assert_eq!(text(&m), "a\nb");
        assert_eq!(
            lines(&o),
            v(&[
                &format!(" verbose: No need to delete lines from {P}, ok"),
                " verbose: No changes done for the delete_lines promise 'zz'",
            ])
        );
        assert_eq!(o.result, EditResult::Kept);
        assert!(!o.changed);
    }

    // recorded: cf-agent 3.21.0, delete_lines: ".*" delete_select => {contains "b" | not_contains "b" |
    // startwith "ab" | not_startwith "ab" | match "ab." | not_match "ab."} on ab/cd/abc
    #[test]
    fn delete_select_lists() {
        let cases: [(SelectLists, &str); 6] = [
            (
                SelectLists {
                    contains: v(&["b"]),
                    ..Default::default()
                },
                "cd",
            ),
            (
                SelectLists {
                    not_contains: v(&["b"]),
                    ..Default::default()
                },
                "ab\nabc",
            ),
            (
                SelectLists {
                    startwith: v(&["ab"]),
                    ..Default::default()
                },
                "cd",
            ),
            (
                SelectLists {
                    not_startwith: v(&["ab"]),
                    ..Default::default()
                },
                "ab\nabc",
            ),
            (
                SelectLists {
                    matching: v(&["ab."]),
                    ..Default::default()
                },
                "ab\ncd",
            ),
            (
                SelectLists {
                    not_matching: v(&["ab."]),
                    ..Default::default()
                },
                "abc",
            ),
        ];
        for (sel, want) in cases {
            let mut m = model("ab\ncd\nabc");
            let req = DeleteLines {
                delete_select: sel,
                ..del(".*")
            };
            let o = delete_lines(&mut m, &req, &env());
            assert_eq!(text(&m), want);
            assert_eq!(o.result, EditResult::Repaired);
        }
        // recorded: two negative lists are no error for delete_select; not_match is consulted first
        let mut m = model("ab\ncd\nabc");
        let sel = SelectLists {
            not_matching: v(&["a"]),
            not_contains: v(&["b"]),
            ..Default::default()
        };
        delete_lines(
            &mut m,
            &DeleteLines {
                delete_select: sel,
                ..del(".*")
            },
            &env(),
        );
        assert_eq!(text(&m), "");
    }

    // recorded: cf-agent 3.21.0, delete_lines: "k=.*" select_region => r; file k=1/[s]/k=1/k=2/[t]/k=1
    #[test]
    fn region_excludes_delimiters() {
        let mut m = model("k=1\n[s]\nk=1\nk=2\n[t]\nk=1");
        let req = DeleteLines {
            region: region(r"\[s\]", r"\[.*\]", false, false),
            ..del("k=.*")
        };
        let o = delete_lines(&mut m, &req, &env());
        assert_eq!(text(&m), "k=1\n[s]\n[t]\nk=1");
        assert_eq!(
            shown(&o),
            v(&[
                &format!("    info: Deleted the promised line 1 'k=1' from {P}"),
                &format!("    info: Deleted the promised line 1 'k=2' from {P}"),
                "    info: delete_lines promise 'k=.*' repaired",
            ])
        );
    }

    // recorded: cf-agent 3.21.0, delete_lines: ".*" select_region => (include both); file
    // k=1/[s]/k=1/[t]/k=1 → k=1/k=1; passes 2 and 3 then print
    //    error: The promised line deletion '.*' could not select an edit region in '…' (this is a good
    //    thing, as policy suggests deleting the markers)
    // and the promise gets failed and repaired classes
    #[test]
    fn region_with_delimiters_then_later_passes_fail() {
        let mut m = model("k=1\n[s]\nk=1\n[t]\nk=1");
        let req = DeleteLines {
            region: region(r"\[s\]", r"\[.*\]", true, true),
            ..del(".*")
        };
        let o = delete_lines(&mut m, &req, &env());
        assert_eq!(text(&m), "k=1\nk=1");
        assert_eq!(
            shown(&o),
            v(&[
                &format!("    info: Deleted the promised line 1 '[s]' from {P}"),
                &format!("    info: Deleted the promised line 1 'k=1' from {P}"),
                &format!("    info: Deleted the promised line 1 '[t]' from {P}"),
                "    info: delete_lines promise '.*' repaired",
            ])
        );
        let again = EditEnv {
            already_ran: true,
            ..env()
        };
        let o = delete_lines(&mut m, &req, &again);
        assert_eq!(
            shown(&o),
            v(&[&format!("   error: The promised line deletion '.*' could not select an edit region in '{P}' (this is a good thing, as policy suggests deleting the markers)")])
        );
        assert_eq!(o.msgs[1].record, Some(EditResult::Interrupted));
        assert_eq!(o.result, EditResult::Interrupted);
    }

    // recorded: cf-agent 3.21.0, include_start_delimiter only: k=1/[s]/k=1/[t]/q → k=1/[t]/q
    #[test]
    fn region_include_start_only() {
        let mut m = model("k=1\n[s]\nk=1\n[t]\nq");
        let req = DeleteLines {
            region: region(r"\[s\]", r"\[.*\]", true, false),
            ..del(".*")
        };
        delete_lines(&mut m, &req, &env());
        assert_eq!(text(&m), "k=1\n[t]\nq");
    }

    // recorded: cf-agent 3.21.0, region + not_matching: k=1/[s]/k=1/z/[t]/q → only z deleted
    #[test]
    fn region_not_matching() {
        let mut m = model("k=1\n[s]\nk=1\nz\n[t]\nq");
        let req = DeleteLines {
            region: region(r"\[s\]", r"\[.*\]", false, false),
            not_matching: true,
            ..del("k=.*")
        };
        delete_lines(&mut m, &req, &env());
        assert_eq!(text(&m), "k=1\n[s]\nk=1\n[t]\nq");
    }

    // recorded: cf-agent 3.21.0, region start missing (3×, before the lock, failed class):
    //    error: The promised line deletion '.*' could not select an edit region in '…' (but the delimiters were expected in the file)
    #[test]
    fn region_not_found() {
        let mut m = model("a");
        let req = DeleteLines {
            region: region(r"\[s\]", r"\[.*\]", false, false),
            ..del(".*")
        };
        let o = delete_lines(&mut m, &req, &env());
        assert_eq!(
            shown(&o),
            v(&[&format!("   error: The promised line deletion '.*' could not select an edit region in '{P}' (but the delimiters were expected in the file)")])
        );
        assert_eq!(o.result, EditResult::Interrupted);
        assert!(!o.ran);
        let inc = DeleteLines {
            region: region(r"\[s\]", r"\[.*\]", true, true),
            ..del(".*")
        };
        let o = delete_lines(&mut m, &inc, &env());
        assert!(shown(&o)[0]
            .ends_with("(this is a good thing, as policy suggests deleting the markers)"));
    }

    // recorded: cf-agent 3.21.0, end delimiter missing, no select_end_match_eof (3×, failed):
    //    error: The promised end pattern '\[.*\]' was not found when selecting region to delete in '…'
    // with select_end_match_eof the region runs to the end of the file
    #[test]
    fn region_end_missing() {
        let mut m = model("a\n[s]\nb");
        let req = DeleteLines {
            region: region(r"\[s\]", r"\[.*\]", false, false),
            ..del(".*")
        };
        let o = delete_lines(&mut m, &req, &env());
        assert_eq!(
            shown(&o),
            v(&[&format!(
                r"   error: The promised end pattern '\[.*\]' was not found when selecting region to delete in '{P}'"
            )])
        );
        assert_eq!(text(&m), "a\n[s]\nb");
        let mut eof = req.clone();
        if let Some(r) = eof.region.as_mut() {
            r.select_end_match_eof = Some(true);
        }
        let o = delete_lines(&mut m, &eof, &env());
        assert_eq!(text(&m), "a\n[s]");
        assert_eq!(o.result, EditResult::Repaired);
        // the next pass finds the start on the last line: no region
        let again = EditEnv {
            already_ran: true,
            ..env()
        };
        let o = delete_lines(&mut m, &eof, &again);
        assert_eq!(
            shown(&o),
            v(&[&format!("   error: The promised line deletion '.*' could not select an edit region in '{P}' (but the delimiters were expected in the file)")])
        );
    }

    // recorded: cf-agent 3.21.0 -n, delete_lines: "ab"; file ab/cd/ab
    //  warning: Should delete line 'ab' from /srv/cfsim-edit/t/y8.txt   (twice)
    //  warning: Warnings encountered when actuating delete_lines promise 'ab'
    #[test]
    fn dry_run() {
        let mut m = model("ab\ncd\nab");
        let o = delete_lines(&mut m, &del("ab"), &dry());
        assert_eq!(text(&m), "ab\ncd\nab");
        assert_eq!(
            shown(&o),
            v(&[
                &format!(" warning: Should delete line 'ab' from {P}"),
                &format!(" warning: Should delete line 'ab' from {P}"),
                " warning: Warnings encountered when actuating delete_lines promise 'ab'",
            ])
        );
        assert_eq!(o.result, EditResult::Warn);
        assert!(!o.changed);
    }

    // recorded: cf-agent 3.21.0 -n, delete_lines: "m1\nm2" on m1/m2/x: one Should line for the chunk
    #[test]
    fn dry_run_multi_line() {
        let mut m = model("m1\nm2\nx");
        let o = delete_lines(&mut m, &del("m1\nm2"), &dry());
        assert_eq!(
            shown(&o),
            v(&[
                &format!(" warning: Should delete line 'm1' from {P}"),
                " warning: Warnings encountered when actuating delete_lines promise 'm1\nm2'",
            ])
        );
    }

    // recorded: cf-agent 3.21.0, action_policy => "warn":
    //  warning: Should delete line 'ab' from /srv/cfsim-edit/t/y9.txt, but only warning promised
    #[test]
    fn warn_only() {
        let mut m = model("ab\ncd\nab");
        let o = delete_lines(&mut m, &del("ab"), &warn());
        assert_eq!(
            shown(&o)[0],
            format!(" warning: Should delete line 'ab' from {P}, but only warning promised")
        );
        assert_eq!(o.result, EditResult::Warn);
        assert_eq!(text(&m), "ab\ncd\nab");
    }

    // recorded: cf-agent 3.21.0, delete_lines: "a\n" (trailing newline) on a//b → b
    //     info: Deleted the promised line 2 '' from …
    #[test]
    fn trailing_newline_promiser_deletes_an_empty_line() {
        let mut m = model("a\n\nb");
        let o = delete_lines(&mut m, &del("a\n"), &env());
        assert_eq!(text(&m), "b");
        assert_eq!(
            shown(&o)[1],
            format!("    info: Deleted the promised line 2 '' from {P}")
        );
    }

    // recorded: cf-agent 3.21.0, delete_lines: "a(b" on a(b/x: the literal line is deleted, and the
    // regex error is logged for the line it had to compile for
    //    error: Regular expression error: pcre_compile() 'missing )' in expression 'a(b' (offset: 3)
    #[test]
    fn bad_regex_matches_literally_and_logs() {
        let mut m = model("a(b\nx");
        let o = delete_lines(&mut m, &del("a(b"), &env());
        assert_eq!(text(&m), "x");
        // (the agent prints the error first only because it buffers INFO lines)
        assert_eq!(
            shown(&o),
            v(&[
                &format!("    info: Deleted the promised line 1 'a(b' from {P}"),
                "   error: Regular expression error: pcre_compile() 'missing )' in expression 'a(b' (offset: 3)",
                "    info: delete_lines promise 'a(b' repaired",
            ])
        );
    }
}
