//! `files:` promises on the run's virtual file system ([`crate::host::vfs`]): promiser forms (literal,
//! regex components, `dir/.`), the agent's pipeline per path (`VerifyFilePromise`: create/touch,
//! delete, rename, perms, copy_from, link_from, content, edits, the final leaf check), the outcome
//! lattice with classes set at every step, and the end-of-promise lines. One file per concern below.

pub mod attrs;
mod chroot;
pub mod edit;
mod editdrive;
pub mod editops;
mod leaf;
mod remote;
mod result;
mod search;
mod transfer;
pub use editdrive::EditState;

use crate::eval::output::LogLevel;
use crate::eval::{BundleDef, Engine};
use crate::host::vfs::{self, Kind};
use crate::syntax::ast::Promise;
use attrs::Attrs;
pub use result::{Pr, Res};

/// Evaluates one files promise binding.
pub fn evaluate(e: &mut Engine<'_>, def: &BundleDef, p: &Promise, promiser: &str) {
    if let Some(skip) = e.conditions(p) {
        e.end_event(Some(skip), None);
        return;
    }
    // -v: the agent begins the promise every pass, before its checks and its lock (recorded:
    // files/*/verbose.out)
    e.verbose_promise_begin(def, "files", p, promiser);
    let a = e.files_attrs(def, p);
    let mut pr = Pr::new(def, p, promiser);
    // --simulate: files promises act (on the virtual host, as the agent's chroot)
    pr.action_warn = e.action_warn(def, p);
    pr.warn_only = pr.action_warn || (e.opts.dry_run && e.opts.simulate.is_none());
    pr.literal = a.copy.is_some() || a.pathtype == "literal";
    // sanity checks run before the lock, so their errors repeat every pass
    if !sanity(e, &a, &mut pr) {
        pr.finish_silent(e);
        e.end_event(None, Some(crate::eval::Outcome::Kept));
        return;
    }
    // the attributes are parsed again every pass, before the lock
    leaf::attr_notes(e, &a, &pr, promiser);
    let digest = e.digest(def, "files", p, promiser);
    if !e.done.insert(digest) {
        e.end_event(Some("already_done"), None);
        return;
    }
    // every change from here on is this promise's (`--changes=json`)
    e.host.vfs.actor = Some(crate::host::vfs::Actor {
        bundle: def.name.clone(),
        handle: Engine::constraint(p, "handle").and_then(|rv| e.scalar_of(rv)),
        file: e.file_path(def.file),
        line: e.line_of(p),
    });
    if !a.any_action() {
        e.log(
            LogLevel::Warning,
            &format!("No action was requested for file '{promiser}'. Maybe a typo in the policy?"),
        );
        // the agent went through the whole pipeline, doing nothing: a kept path
        chroot::prepare(e, promiser);
        if promiser.starts_with('/') {
            e.host.vfs.keep(chop_dot(promiser));
        }
        pr.finish(e, promiser, true);
        return;
    }
    // copy_from promises are literal paths; others expand regex components
    let paths = if a.copy.is_some() || a.pathtype == "literal" {
        vec![promiser.to_string()]
    } else {
        expand_promiser(e, promiser, a.create)
    };
    let regex = paths.len() != 1 || paths[0] != promiser;
    let mut chopped = true;
    let mut path_end = true;
    for path in &paths {
        e.ctx.put_this("promiser", path);
        if regex {
            // each path of a regex promiser is its own promise run, with its own end line
            let mut one = Pr::new(def, p, promiser);
            one.warn_only = pr.warn_only;
            one.action_warn = pr.action_warn;
            let exit = verify_path(e, &a, &mut one, path);
            keep_at_exit(e, &one, path, exit);
            if exit != Exit::Skipped {
                one.end_path(e, promiser);
            }
            pr.res = pr.res.max(one.res);
            continue;
        }
        let exit = verify_path(e, &a, &mut pr, path);
        keep_at_exit(e, &pr, path, exit);
        chopped &= exit != Exit::Unchopped;
        path_end &= exit != Exit::Skipped;
    }
    if regex {
        pr.finish_quiet(e);
        return;
    }
    // the agent chops `/.` from its path buffer once the path exists (step 4)
    let shown = if paths.len() == 1 && paths[0] == promiser && chopped {
        chop_dot(promiser).to_string()
    } else {
        promiser.to_string()
    };
    pr.finish(e, &shown, path_end);
}

/// Where the agent's `VerifyFilePromise` left a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Exit {
    /// Before step 4: the path keeps its `/.`.
    Unchopped,
    /// After step 4 (`P/.` is `P` from then on).
    Chopped,
    /// `delete` of a missing path: shown chopped, but the agent's path buffer still has its `/.`.
    Absent,
    /// Not selected by `file_select`: the agent skips the end of the promise.
    Skipped,
}

/// The end of the agent's `VerifyFilePromise` for `--simulate`: a path whose promise ended kept
/// (nothing changed, nothing failed) goes to the list of evaluated files (manifest-full), as its path
/// buffer then reads; one whose promise ended repaired and that exists goes to the list of changed
/// files (a failed promise's changes are not listed, a path renamed or deleted away is not either).
fn keep_at_exit(e: &mut Engine<'_>, pr: &Pr<'_>, path: &str, exit: Exit) {
    if !path.starts_with('/') {
        return;
    }
    let p = match exit {
        Exit::Chopped => chop_dot(path),
        Exit::Unchopped | Exit::Absent => path,
        Exit::Skipped => return,
    };
    match pr.res {
        Res::Skipped | Res::Noop => e.host.vfs.keep(p),
        Res::Change => {
            if lstat(e, p).is_some() {
                let (v, b) = e.host.vfs_mut();
                v.mark_changed(b, p);
            }
        }
        Res::Warn | Res::Fail => {}
    }
}

/// `P/.` → `P` (the agent truncates its path buffer in place).
pub fn chop_dot(p: &str) -> &str {
    p.strip_suffix("/.").unwrap_or(p)
}

/// The agent's sanity checks; false: the promise is rejected (kept, nothing done).
fn sanity(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr) -> bool {
    let bad = |e: &mut Engine<'_>, pr: &Pr, msg: String| {
        e.log(LogLevel::Error, &msg);
        e.log(LogLevel::Error, &pr.belongs(e));
    };
    if a.delete.is_some() && (a.create || a.copy.is_some() || a.edits() || a.rename.is_some()) {
        bad(
            e,
            pr,
            format!(
                "Promise constraint conflicts - '{}' cannot be deleted and exist at the same time",
                pr.promiser
            ),
        );
        return false;
    }
    if a.delete.is_some() && a.depth.is_some() && a.select.is_none() {
        bad(
            e,
            pr,
            format!(
                "Dangerous or ambiguous promise - '{}' specifies recursive deletion but has no file selection criteria",
                pr.promiser
            ),
        );
        return false;
    }
    if a.select.as_ref().is_some_and(|s| s.file_result.is_none()) {
        bad(
            e,
            pr,
            "File select constraint body promised no result (check body definition)".to_string(),
        );
        return false;
    }
    if a.depth.is_some() && a.edits() {
        bad(
            e,
            pr,
            format!(
                "Recursive depth_searches are not compatible with general insertion or edits - promise to edit '{}'",
                pr.promiser
            ),
        );
        return false;
    }
    true
}

/// Whether a path component is a regular expression (`IsRegex`): an unescaped `*` or `+` that does
/// not follow `^`, `(`, `|` or the start, a balanced `[...]`, or `|` inside parentheses.
pub fn is_regex(c: &str) -> bool {
    let b = c.as_bytes();
    let (mut bracket, mut paren) = (0i32, 0i32);
    let mut special = false;
    let mut escaped = false;
    for (i, &ch) in b.iter().enumerate() {
        if escaped {
            escaped = false;
            continue;
        }
        match ch {
            b'\\' => escaped = true,
            b'[' => bracket += 1,
            b']' => {
                if bracket > 0 {
                    special = true;
                }
                bracket -= 1;
            }
            b'(' => paren += 1,
            b')' => paren -= 1,
            b'|' if paren > 0 => special = true,
            b'*' | b'+' => {
                let prev = if i == 0 { None } else { Some(b[i - 1]) };
                if !matches!(prev, None | Some(b'^' | b'(' | b'|')) {
                    special = true;
                }
            }
            _ => {}
        }
    }
    special && bracket == 0 && paren == 0 && !escaped
}

/// The paths a promiser stands for: itself when literal, else every existing path whose components
/// match its regex components in full (the literal promiser when nothing matches).
fn expand_promiser(e: &mut Engine<'_>, promiser: &str, create: bool) -> Vec<String> {
    let comps: Vec<&str> = promiser.split('/').filter(|c| !c.is_empty()).collect();
    if !promiser.starts_with('/') || !comps.iter().any(|c| is_regex(c)) {
        return vec![promiser.to_string()];
    }
    let mut cur = vec![String::new()];
    for c in &comps {
        let mut next = Vec::new();
        for dir in &cur {
            if is_regex(c) {
                // a promiser's regex component: the agent's PCRE, anchored both ends
                let Ok(re) = crate::pcre::compile(&format!("^(?:{c})$")) else {
                    return vec![promiser.to_string()];
                };
                let d = if dir.is_empty() { "/" } else { dir.as_str() };
                let names = {
                    let base = e.host.base();
                    e.host.vfs.list(base, d)
                };
                let Some(names) = names else {
                    // parent missing: best effort, the literal promiser
                    return vec![promiser.to_string()];
                };
                for n in names.into_iter().filter(|n| re.is_match(n.as_bytes())) {
                    next.push(format!("{dir}/{n}"));
                }
            } else {
                next.push(format!("{dir}/{c}"));
            }
        }
        cur = next;
    }
    if cur.is_empty() && create {
        return vec![promiser.to_string()];
    }
    cur
}

/// `lstat` on the virtual host.
pub fn lstat(e: &Engine<'_>, path: &str) -> Option<vfs::Meta> {
    e.host.vfs.stat(e.host.base(), path, false)
}

/// `stat` (links followed) on the virtual host.
pub fn stat(e: &Engine<'_>, path: &str) -> Option<vfs::Meta> {
    e.host.vfs.stat(e.host.base(), path, true)
}

/// The agent's pipeline for one path (spec §2.2); where it stopped.
fn verify_path(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str) -> Exit {
    if path.starts_with('/') {
        e.host.vfs.note(chop_dot(path));
    }
    if a.template_data_given && !matches!(a.template_data, Some(crate::value::Value::Data(_))) {
        e.log(
            LogLevel::Error,
            &format!("No template data for the promise '{}'", pr.promiser),
        );
        pr.fail(e);
        return Exit::Unchopped;
    }
    chroot::prepare(e, path);
    // `P/.` exists when P is a directory
    let mut exists = if path.ends_with("/.") {
        stat(e, path).is_some_and(|m| m.kind == Kind::Dir)
    } else {
        lstat(e, path).is_some()
    };
    if a.create || a.touch {
        if !exists {
            if !leaf::create(e, a, pr, path) {
                return Exit::Unchopped;
            }
            exists = lstat(e, path).is_some() || pr.warn_only;
        } else {
            pr.kept(e);
        }
    }
    if a.delete.is_some() && !exists {
        pr.kept(e);
        return Exit::Absent;
    }
    let path = chop_dot(path).to_string();
    // step 6: stat (links followed) again; a dangling link in the way is refused
    if (a.create || a.touch) && stat(e, &path).is_none() && lstat(e, &path).is_some() {
        if pr.warn_only {
            pr.should(
                e,
                &format!("create file '{path}', mode '{:04o}'", leaf::create_mode(a)),
            );
            return Exit::Chopped;
        }
        e.log(
            LogLevel::Error,
            &format!("Error creating file '{path}', mode '{:04o}'. (open: 'File exists'). Most likely a dangling symlink is in the way. Refusing to create the target file of dangling symlink (security risk).", leaf::create_mode(a)),
        );
        pr.fail(e);
        return Exit::Chopped;
    }
    // file_select on the path itself (without depth_search)
    if exists && a.select.is_some() && a.depth.is_none() {
        if let Some(m) = lstat(e, &path) {
            if !search::selected(a, &path, &m) {
                return Exit::Skipped;
            }
        }
    }
    let phase1 = exists
        && (a.rename.is_some()
            || a.perms.is_some()
            || a.changes
            || a.transformer.is_some()
            || a.delete.is_some());
    if phase1 {
        match &a.depth {
            Some(_) => search::depth_search(e, a, pr, &path),
            None => leaf::verify_leaf(e, a, pr, &path),
        }
    }
    if a.copy.is_some() {
        transfer::copy(e, a, pr, &path);
    }
    if a.link.is_some() {
        transfer::link(e, a, pr, &path);
    }
    if let Some(c) = &a.content {
        if a.edits() {
            e.log(
                LogLevel::Error,
                "A file promise with content attribute cannot have edit operations",
            );
            pr.fail(e);
            return Exit::Chopped;
        }
        leaf::content(e, a, pr, &path, c);
        return Exit::Chopped;
    }
    if a.edit_xml {
        // said once per promise and run; the rest of the promise is simulated
        e.log(
            LogLevel::Warning,
            &format!(
                "cfsim: edit_xml of files promise '{}' in bundle '{}' is not simulated yet; skipped",
                pr.promiser, pr.def.name
            ),
        );
        if a.edit_line.is_none() && a.edit_template.is_none() && a.edit_template_string.is_none() {
            return Exit::Chopped;
        }
    }
    let templ = a.edit_template.is_some() || a.edit_template_string.is_some();
    let template_default = matches!(
        a.template_method.as_str(),
        "mustache" | "inline_mustache" | "cfengine"
    );
    if a.edits()
        && (stat(e, &path).is_some()
            || (template_default && !a.create_false && (templ || a.edit_line.is_some())))
    {
        editdrive::edit(e, a, pr, &path);
    } else if a.edits() && a.create_false && stat(e, &path).is_none() {
        // nothing to edit, and nothing promised to create it
    }
    // the final leaf check: a regular file is verified again
    if a.depth.is_none() {
        if let Some(m) = stat(e, &path) {
            if m.kind == Kind::File
                && (a.rename.is_some() || a.perms.is_some() || a.touch || a.delete.is_some())
            {
                leaf::verify_leaf_at(e, a, pr, &path, leaf::Leaf::Final);
            } else if m.kind == Kind::File && a.changes {
                // VerifyFileAttributes
                e.host.vfs.keep(&path);
                leaf::integrity(e, a, pr, &path);
            }
        } else if a.changes {
            e.log(
                LogLevel::Error,
                &format!("Promised to monitor '{path}' for changes, but file does not exist"),
            );
            pr.fail(e);
        }
    }
    Exit::Chopped
}
