//! The edit driver of a files promise (`ScheduleEditOperation`): load the file into a line model (size
//! limit, `empty_file_before_editing`), render mustache templates, run the `edit_line` bundle (its
//! promise types in edit order, three passes, each sub-promise once per file) with INFO lines held
//! back until the edit ends repaired, then compare and save (backup `.cf-before-edit`, final newline).

use super::attrs::Attrs;
use super::{leaf, stat, Pr};
use crate::eval::output::LogLevel;
use crate::eval::{split_ns, Engine};
use crate::value::Value;

/// The file being edited while its `edit_line` bundle runs.
#[derive(Debug, Clone, Default)]
pub struct EditState {
    /// Absolute path as printed.
    pub filename: String,
    /// The lines of the model (without newlines).
    pub lines: Vec<String>,
    /// `-n` or a warn-only action: sub-promises only say what they would do.
    pub warn_only: bool,
    /// Warn-only by the files promise's action body.
    pub action_warn: bool,
    /// A sub-promise counted an edit.
    pub edited: bool,
}

/// The file's lines; a file that is not UTF-8 is read byte for byte (each byte one char, as the
/// agent's byte-oriented matching sees it), `true` then. With `recognize_join` a line ending in `\`
/// is dropped: 3.21's `LoadFileAsItemList` strips the backslash, appends the line to its join buffer
/// and then clears the buffer without keeping it, so the continued line never reaches the model (nor
/// the file, if another edit makes the agent save it) (recorded: files/editdefaults-recognize-join).
fn split_lines(text: &[u8], recognize_join: bool) -> (Vec<String>, bool) {
    let (s, bytes) = match std::str::from_utf8(text) {
        Ok(s) => (s.to_string(), false),
        Err(_) => (text.iter().map(|&b| char::from(b)).collect(), true),
    };
    let mut v: Vec<String> = s.split('\n').map(str::to_string).collect();
    if v.last().is_some_and(String::is_empty) {
        v.pop();
    }
    // the agent keeps lines as C strings: a line ends at its first NUL byte (recorded:
    // binary-file-edit, where an edit drops the rest of such a line)
    for l in &mut v {
        if let Some(i) = l.find('\0') {
            l.truncate(i);
        }
    }
    if recognize_join {
        v.retain(|l| !l.ends_with('\\'));
    }
    (v, bytes)
}

/// The lines written back, each with its newline (byte-for-byte chars back to their bytes).
fn join_lines(lines: &[String], bytes: bool) -> Vec<u8> {
    // sized once: the run keeps every edited file's contents, so no slack capacity
    let mut out = Vec::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for l in lines {
        if bytes {
            for c in l.chars() {
                match u8::try_from(u32::from(c)) {
                    Ok(b) => out.push(b),
                    Err(_) => {
                        let mut buf = [0u8; 4];
                        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    }
                }
            }
        } else {
            out.extend_from_slice(l.as_bytes());
        }
        out.push(b'\n');
    }
    out
}

/// Saves `content` to `path` with the edit backup.
fn save(e: &mut Engine<'_>, a: &Attrs, path: &str, content: Vec<u8>) {
    // a symlink is followed: the backup sits next to the real file
    let resolved = {
        let b = e.host.base();
        e.host
            .vfs
            .resolve(b, path, true)
            .unwrap_or_else(|_| path.to_string())
    };
    let path = resolved.as_str();
    // shared by the backup and the record of the original state
    let old = {
        let b = e.host.base();
        e.host.vfs.read(b, path).unwrap_or_default()
    };
    let mode = stat(e, path).map_or(0o600, |m| m.mode);
    let backup = a.edit_defaults.backup.as_str();
    let name = super::transfer::stamped_name(e, backup, path, ".cf-before-edit");
    let (v, b) = e.host.vfs_mut();
    match backup {
        "false" => {}
        "rotate" => {
            // P.cf-before-edit.1 is the newest; older generations move up, the last one drops
            let n = a.edit_defaults.rotate.max(1);
            for i in (1..n).rev() {
                let from = format!("{path}.cf-before-edit.{i}");
                if v.stat(b, &from, false).is_some() {
                    // a backup is a side file: its rotation is not a rename the --simulate report
                    // lists, as the agent's does not (recorded: editdefaults-backup-rotate)
                    let to = format!("{path}.cf-before-edit.{}", i + 1);
                    let _ = v.rename_unlisted(b, &from, &to);
                }
            }
            let _ = v.write_file_shared(b, &format!("{path}.cf-before-edit.1"), old, mode);
        }
        _ => {
            let _ = v.write_file_shared(b, &name, old, mode);
        }
    }
    let _ = v.write_file(b, path, content, mode);
}

/// Runs the promise's edits on `path`.
pub fn edit(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, path: &str) {
    let templ_name = a.edit_template.clone().or_else(|| {
        a.edit_template_string
            .as_ref()
            .map(|_| "inline".to_string())
    });
    let mustache = matches!(a.template_method.as_str(), "mustache" | "inline_mustache")
        && (a.edit_template.is_some() || a.edit_template_string.is_some());
    let mut pre_buffered = Vec::new();
    if stat(e, path).is_none() {
        if a.create && !pr.warn_only {
            // created by the create step already when it could be
        } else if mustache || a.edit_template.is_some() {
            // the cfengine method creates the file in its edit context: the INFO line waits with
            // the edit's (recorded: files/cftemplate-no-create/verbose.out)
            let held = (!mustache).then(|| e.out.info_buffer.replace(Vec::new()));
            let created = leaf::create(e, a, pr, path);
            if let Some(held) = held {
                pre_buffered = std::mem::replace(&mut e.out.info_buffer, held).unwrap_or_default();
            }
            if !created {
                for l in std::mem::take(&mut pre_buffered) {
                    e.out.push(l);
                }
                if a.edit_template.is_some() && !mustache && !a.create {
                    e.log(
                        LogLevel::Error,
                        &format!(
                            "Failed to create file '{path}' for rendering cfengine template '{}'",
                            templ_name.clone().unwrap_or_default()
                        ),
                    );
                    pr.fail(e);
                }
                return;
            }
        } else {
            e.log(
                LogLevel::Error,
                &format!("File '{path}' was marked for editing but could not be opened"),
            );
            pr.fail(e);
            return;
        }
    }
    let Some(m) = stat(e, path) else {
        return;
    };
    if m.size > a.edit_defaults.max_file_size {
        let opened = super::chroot::opened(e, path);
        e.log(
            LogLevel::Info,
            &format!(
                "File '{opened}' is bigger than the edit limit. max_file_size = {} > {} bytes",
                m.size, a.edit_defaults.max_file_size
            ),
        );
        e.log(
            LogLevel::Error,
            &format!("File '{path}' was marked for editing but could not be opened"),
        );
        pr.fail(e);
        return;
    }
    let old = {
        let b = e.host.base();
        e.host
            .vfs
            .read(b, path)
            .map(|c| c.to_vec())
            .unwrap_or_default()
    };
    if mustache {
        render_mustache(e, a, pr, path, &old, templ_name.as_deref().unwrap_or(""));
        return;
    }
    let (original, bytes) = split_lines(&old, a.edit_defaults.recognize_join);
    let empty = a.edit_defaults.empty_before_use || a.edit_template.is_some();
    let state = EditState {
        filename: path.to_string(),
        lines: if empty { Vec::new() } else { original.clone() },
        warn_only: pr.warn_only,
        action_warn: pr.action_warn,
        edited: false,
    };
    let held = e.out.info_buffer.replace(pre_buffered);
    let saved = e.edit.replace(state);
    if let Some((name, args, kinds)) = &a.edit_line {
        // the edit bundle's events come between; the files promise's event resumes after them
        e.event_aside(|e| run_edit_bundle(e, pr, name, (args, kinds), path, empty));
    }
    let mut template_failed = false;
    if let Some(t) = &a.edit_template {
        template_failed = !crate::promise::files::editops::cfengine_template(e, pr, t);
    }
    let st = std::mem::replace(&mut e.edit, saved).unwrap_or_default();
    let buffered = std::mem::replace(&mut e.out.info_buffer, held).unwrap_or_default();
    if template_failed {
        return;
    }
    // the comparison is line-wise: a file without its final newline, unedited, is left alone; a model
    // emptied before editing is compared as it is
    // the edit bundle's result sets the files promise's classes once more when it is compared with
    // the file: kept when nothing changed, repaired before the buffered INFO lines when it is saved
    // (recorded: files/*/verbose.out)
    if (!st.edited && !empty) || st.lines == original {
        e.log(
            LogLevel::Verbose,
            &format!("No edit changes to file '{path}' need saving"),
        );
        pr.kept(e);
        return;
    }
    if pr.warn_only {
        if pr.action_warn {
            compare_warnings(e, pr, &original, &st.lines);
        }
        pr.should(e, &format!("edit file '{path}'"));
        return;
    }
    // `Edited file` is a cfPS whose INFO line waits in the buffer: its classes come first
    e.apply_classes_body(pr.def, pr.p, crate::eval::Outcome::Repaired);
    for l in buffered {
        e.out.push(l);
    }
    save(e, a, path, join_lines(&st.lines, bytes));
    pr.change_quiet(e, &format!("Edited file '{path}'"));
}

/// The warnings of the agent's `CompareToFile` for a warn-only files promise (its `ItemListsEqual` with
/// `warnings`), each a counted `cfPS` of the files promise (failed classes): an empty model says
/// nothing; an empty file says `File content wants to change from from/to full/empty …` once per model
/// line; otherwise file and model are walked side by side, a differing position says the file's line
/// (`edit_line warning promised: - L`), and past the shorter one each remaining line says
/// `(remove) L` (file) or `(add) L` (model) (recorded: files/warn-only-edit-lines,
/// files/warn-only-edit-empty).
fn compare_warnings(e: &mut Engine<'_>, pr: &mut Pr<'_>, file: &[String], model: &[String]) {
    use super::result::Res;
    if model.is_empty() {
        return;
    }
    let warn = |e: &mut Engine<'_>, pr: &mut Pr<'_>, msg: &str| {
        pr.cfps(e, LogLevel::Warning, msg, Res::Warn);
    };
    if file.is_empty() {
        for _ in model {
            warn(
                e,
                pr,
                "File content wants to change from from/to full/empty but only a warning promised",
            );
        }
        return;
    }
    for i in 0..file.len().max(model.len()) {
        match (file.get(i), model.get(i)) {
            (Some(f), Some(m)) if f != m => {
                warn(e, pr, &format!("edit_line warning promised: - {f}"));
            }
            (Some(f), None) => {
                warn(
                    e,
                    pr,
                    &format!(" ! edit_line change warning promised: (remove) {f}"),
                );
            }
            (None, Some(m)) => {
                warn(
                    e,
                    pr,
                    &format!(" ! edit_line change warning promised: (add) {m}"),
                );
            }
            _ => {}
        }
    }
}

/// Runs the `edit_line` bundle `name(args)` on the model in `e.edit`.
fn run_edit_bundle(
    e: &mut Engine<'_>,
    pr: &mut Pr<'_>,
    name: &str,
    (args, kinds): (&[Option<Value>], &[char]),
    path: &str,
    empty: bool,
) -> Option<crate::eval::Agg> {
    let (ns, bname) = split_ns(name, &pr.def.ns);
    let (ns, bname) = (ns.to_string(), bname.to_string());
    let Some(bi) = e
        .bundles
        .iter()
        .position(|b| b.ns == ns && b.name == bname && b.is_edit_line())
    else {
        e.log(
            LogLevel::Error,
            &format!("Did not find bundle '{bname}' for edit operation"),
        );
        pr.fail(e);
        return None;
    };
    for (k, v) in [
        ("filename", path.to_string()),
        (
            "empty_before_use",
            if empty { "true" } else { "false" }.to_string(),
        ),
    ] {
        e.ctx.set_var(
            ("default".into(), "edit".into(), k.into()),
            Value::str(v),
            vec!["source=agent".into()],
        );
    }
    // -v: the edit's promises show the files promise in their stack path, and no call text
    // (recorded: files/*/verbose.out)
    let stack = e.promise_stack("files", &pr.promiser);
    e.pending_call = Some((stack, String::new()));
    e.pending_arg_kinds = kinds.to_vec();
    Some(e.run_bundle(bi, args, true, false, path))
}

/// The text of mustache template file `t` on the virtual host; `None` (said, failed) when it cannot be
/// read (the cfengine method says it its own way: [`super::editops::cfengine_template`]).
fn read_template(e: &mut Engine<'_>, pr: &mut Pr<'_>, t: &str) -> Option<String> {
    let b = e.host.base();
    match e.host.vfs.read(b, t) {
        Ok(c) => Some(String::from_utf8_lossy(&c).into_owned()),
        Err(_) => {
            e.log(
                LogLevel::Error,
                &format!("Template file '{t}' could not be opened for reading"),
            );
            pr.fail(e);
            None
        }
    }
}

/// `template_method => "mustache"` / `"inline_mustache"`: render, compare, save.
fn render_mustache(
    e: &mut Engine<'_>,
    a: &Attrs,
    pr: &mut Pr<'_>,
    path: &str,
    old: &[u8],
    tname: &str,
) {
    let template = match (&a.edit_template, &a.edit_template_string) {
        (Some(t), _) => match read_template(e, pr, t) {
            Some(text) => text,
            None => return,
        },
        (None, Some(s)) => s.clone(),
        (None, None) => return,
    };
    let data = match &a.template_data {
        Some(Value::Data(d)) => d.clone(),
        _ => {
            let mut cx = crate::functions::CallCtx::new(&mut e.ctx, &e.host);
            cx.max_values = e.opts.limits.max_list_length;
            match crate::functions::vars::datastate_json(&cx) {
                Some(d) => d,
                None => {
                    e.limit_hit = true;
                    let msg = format!(
                        "cfsim: the template data (datastate) would hold more than {} values (--max-list-length)",
                        e.opts.limits.max_list_length
                    );
                    e.log(LogLevel::Error, &msg);
                    return;
                }
            }
        }
    };
    let text = match crate::functions::mustache::render_template(&template, &data) {
        Ok(t) => t,
        Err(err) => {
            let (error, msg) = crate::functions::mustache::describe(err, &data);
            e.log(
                if error {
                    LogLevel::Error
                } else {
                    LogLevel::Warning
                },
                &msg,
            );
            e.log(
                LogLevel::Error,
                &format!("Error rendering mustache template '{tname}'"),
            );
            pr.fail(e);
            return;
        }
    };
    if text.as_bytes() == old {
        pr.kept(e);
        return;
    }
    if pr.warn_only {
        pr.kept(e);
        pr.should(
            e,
            &format!("update rendering of '{path}' from mustache template '{tname}'"),
        );
        return;
    }
    save(e, a, path, text.into_bytes());
    // `Updated rendering …` is a cfPS whose INFO line waits in the edit's buffer: its repaired
    // classes, then the edit context's kept ones (nothing left to save), then the line (recorded:
    // files/mustache-*/verbose.out)
    e.apply_classes_body(pr.def, pr.p, crate::eval::Outcome::Repaired);
    pr.kept(e);
    pr.change_quiet(
        e,
        &format!("Updated rendering of '{path}' from mustache template '{tname}'"),
    );
}
