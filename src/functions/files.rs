//! File functions answered by the host: fileexists, filesexist, isdir, isplain, islink, isexecutable,
//! isnewerthan, accessedbefore, changedbefore, filesize, filestat, lsdir, findfiles, file_hash.

use super::args::{bool_opt, collect_or_fail, elements, full_match};
use super::strings::{digest_hex, dirname_of};
use super::{def, CallCtx, FnArg, FnDef, FnFail, FnResult};
use crate::expr::host::FileStat;
use crate::value::Value;

/// Deepest directory level `**` expands to in `findfiles`.
pub const GLOB_MAX_DEPTH: usize = 16;
/// Most directory entries and paths one `findfiles()`/`findfiles_up()` pattern may visit (cfsim's
/// limit: `/**` on a real machine walks /proc and every mount 16 levels deep).
pub const MAX_GLOB_VISITS: usize = 1_000_000;

pub const FUNCTIONS: &[FnDef] = &[
    def("fileexists", false, fileexists),
    def("filesexist", false, filesexist),
    def("isdir", false, isdir),
    def("isplain", false, isplain),
    def("islink", false, islink),
    def("isexecutable", false, isexecutable),
    def("isnewerthan", false, isnewerthan),
    def("accessedbefore", false, accessedbefore),
    def("changedbefore", false, changedbefore),
    def("filesize", false, filesize),
    def("filestat", false, filestat),
    def("lsdir", false, lsdir),
    def("findfiles", false, findfiles),
    def("file_hash", false, file_hash),
    def("hashmatch", false, hashmatch),
    def("makerule", false, makerule),
    def("findfiles_up", false, findfiles_up),
    def("search_up", false, findfiles_up),
];

fn stat(ctx: &CallCtx<'_>, p: &str) -> Option<FileStat> {
    ctx.host.stat(p, true)
}

fn lstat(ctx: &CallCtx<'_>, p: &str) -> Option<FileStat> {
    ctx.host.stat(p, false)
}

fn fileexists(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(lstat(ctx, a[0].text()).is_some()))
}

fn filesexist(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let files = elements(&collect_or_fail(ctx, "filesexist", &a[0])?);
    Ok(Value::context(
        !files.is_empty() && files.iter().all(|f| lstat(ctx, f).is_some()),
    ))
}

fn isdir(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(
        lstat(ctx, a[0].text()).is_some_and(|s| s.is_dir && !s.is_symlink),
    ))
}

fn isplain(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(
        lstat(ctx, a[0].text()).is_some_and(|s| s.is_file && !s.is_symlink),
    ))
}

fn islink(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    Ok(Value::context(
        lstat(ctx, a[0].text()).is_some_and(|s| s.is_symlink),
    ))
}

fn isexecutable(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    if lstat(ctx, a[0].text()).is_none() {
        return Ok(Value::context(false));
    }
    Ok(Value::context(
        stat(ctx, a[0].text()).is_some_and(|s| s.mode & 0o111 != 0),
    ))
}

/// `stat` both files (the call fails when either is missing) and compare one time field.
fn compare_times(
    ctx: &CallCtx<'_>,
    a: &[FnArg],
    f: fn(&FileStat) -> i64,
    cmp: fn(i64, i64) -> bool,
) -> FnResult {
    let (Some(x), Some(y)) = (stat(ctx, a[0].text()), stat(ctx, a[1].text())) else {
        return Err(FnFail);
    };
    Ok(Value::context(cmp(f(&x), f(&y))))
}

fn isnewerthan(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    compare_times(ctx, a, |s| s.mtime, |x, y| x > y)
}

fn accessedbefore(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    compare_times(ctx, a, |s| s.atime, |x, y| x < y)
}

/// As the agent computes it: true when the first file's ctime is *later* than the second's.
fn changedbefore(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    compare_times(ctx, a, |s| s.ctime, |x, y| x > y)
}

fn filesize(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    match lstat(ctx, a[0].text()) {
        Some(s) => Ok(Value::int(s.size as i64)),
        None => Err(FnFail),
    }
}

/// `ls -l` style permission string.
pub fn permstr(s: &FileStat) -> String {
    let kind = if s.is_symlink {
        'l'
    } else if s.is_dir {
        'd'
    } else {
        '-'
    };
    let mut out = String::from(kind);
    for shift in [6u32, 3, 0] {
        let bits = (s.mode >> shift) & 7;
        out.push(if bits & 4 != 0 { 'r' } else { '-' });
        out.push(if bits & 2 != 0 { 'w' } else { '-' });
        out.push(if bits & 1 != 0 { 'x' } else { '-' });
    }
    out
}

fn filestat(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let path = a[0].text();
    let Some(s) = lstat(ctx, path) else {
        return Err(FnFail);
    };
    let v = match a[1].text() {
        "size" => s.size.to_string(),
        "gid" => s.gid.to_string(),
        "uid" => s.uid.to_string(),
        "ino" => s.ino.to_string(),
        "nlink" => s.nlink.to_string(),
        "ctime" => s.ctime.to_string(),
        "atime" => s.atime.to_string(),
        "mtime" => s.mtime.to_string(),
        "xattr" => String::new(),
        "mode" => s.mode.to_string(),
        "modeoct" => format!("{:o}", s.mode),
        "permstr" => permstr(&s),
        "permoct" => format!("{:o}", s.mode & 0o7777),
        "type" => if s.is_symlink {
            "symlink"
        } else if s.is_dir {
            "directory"
        } else if s.is_file {
            "regular file"
        } else {
            "special file"
        }
        .to_string(),
        "devno" => s.dev.to_string(),
        "dev_major" => ((s.dev >> 8) & 0xfff).to_string(),
        "dev_minor" => ((s.dev & 0xff) | ((s.dev >> 12) & 0xfff00)).to_string(),
        "basename" => path
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or("")
            .to_string(),
        "dirname" => dirname_of(path),
        "linktarget" | "linktarget_shallow" => match &s.link_target {
            Some(t) => t.clone(),
            None => path.to_string(),
        },
        _ => return Err(FnFail),
    };
    Ok(Value::str(v))
}

fn lsdir(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let dir = a[0].text();
    let full = bool_opt(a[2].text());
    let Some(mut entries) = ctx.host.list_dir(dir) else {
        ctx.error(format!(
            "Directory '{dir}' could not be accessed in lsdir(), (opendir: No such file or directory)"
        ));
        return Ok(Value::slist(Vec::new()));
    };
    entries.push(".".into());
    entries.push("..".into());
    entries.sort();
    // the agent compiles the regex for every entry: one error per entry, nothing matches (recorded)
    let Ok(re) = super::args::compile(a[1].text()) else {
        for _ in &entries {
            let _ = super::args::regex_or_log(ctx, a[1].text());
        }
        return Ok(Value::slist(Vec::new()));
    };
    let out = entries
        .into_iter()
        .filter(|e| full_match(&re, e))
        .map(|e| {
            if full {
                format!("{}/{e}", dir.trim_end_matches('/'))
            } else {
                e
            }
        })
        .collect();
    Ok(Value::slist(out))
}

/// Shell glob of one path component (`*`, `?`, `[...]`); a leading `.` needs an explicit match.
pub fn glob_component(pat: &str, name: &str) -> bool {
    component_matches(pat, &ComponentGlob::new(pat), name)
}

/// One path component's glob, ready to match a directory's entries: a pattern of only `*`, `?` and
/// literal characters is matched directly (compiling its regex cost ~200,000 instructions, more than
/// matching every entry of a directory); one with a `[…]` class goes through [`glob_regex`].
enum ComponentGlob {
    Wildcards,
    Regex(Option<regex::Regex>),
}

impl ComponentGlob {
    fn new(pat: &str) -> Self {
        if pat.contains('[') {
            ComponentGlob::Regex(glob_regex(pat))
        } else {
            ComponentGlob::Wildcards
        }
    }
}

/// `name` against component pattern `pat` (a leading `.` needs an explicit one).
fn component_matches(pat: &str, glob: &ComponentGlob, name: &str) -> bool {
    if name.starts_with('.') && !pat.starts_with('.') {
        return false;
    }
    if pat == "*" {
        return true;
    }
    match glob {
        // the regex's `.` does not match a newline: such a name goes to the regex (never met)
        ComponentGlob::Wildcards if name.contains('\n') => {
            glob_regex(pat).is_some_and(|r| r.is_match(name))
        }
        ComponentGlob::Wildcards => wildcard_match(pat, name),
        ComponentGlob::Regex(re) => re.as_ref().is_some_and(|r| r.is_match(name)),
    }
}

/// Whole-name match of `*` (any run of characters) and `?` (one character), every other character
/// literal: the classic matcher that backtracks to the last `*` only (complete when `*` matches any
/// run, here of a name without a newline); linear for one `*`, at most quadratic in the name.
fn wildcard_match(pat: &str, name: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    // after the last `*` seen: the pattern position past it and the name position it matched up to
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi + 1, ni));
                pi += 1;
            }
            Some(&c) if c == '?' || n.get(ni) == Some(&c) => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((after, matched)) => {
                    // the `*` takes one more character
                    star = Some((after, matched + 1));
                    pi = after;
                    ni = matched + 1;
                }
                None => return false,
            },
        }
    }
    p.get(pi..).unwrap_or(&[]).iter().all(|&c| c == '*')
}

/// The regex of one path component's glob pattern (`*`, `?`, `[…]`, `[!…]`): cfsim's own translation of
/// findfiles() globs (the agent uses glob(3), not PCRE), so it stays on the `regex` crate.
fn glob_regex(pat: &str) -> Option<regex::Regex> {
    let mut re = String::from("^");
    let mut chars = pat.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            '[' => {
                re.push('[');
                if chars.peek() == Some(&'!') {
                    chars.next();
                    re.push('^');
                }
                for d in chars.by_ref() {
                    if d == ']' {
                        break;
                    }
                    if d == '\\' || d == '[' {
                        re.push('\\');
                    }
                    re.push(d);
                }
                re.push(']');
            }
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).ok()
}

fn glob_walk(
    ctx: &CallCtx<'_>,
    base: &str,
    parts: &[&str],
    out: &mut Vec<String>,
    budget: &mut usize,
) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    let Some((first, rest)) = parts.split_first() else {
        out.push(base.to_string());
        return;
    };
    let join = |name: &str| {
        if base == "/" {
            format!("/{name}")
        } else {
            format!("{base}/{name}")
        }
    };
    if *first == "**" {
        for depth in 1..=GLOB_MAX_DEPTH {
            let mut expanded: Vec<&str> = vec!["*"; depth];
            expanded.extend_from_slice(rest);
            glob_walk(ctx, base, &expanded, out, budget);
        }
        return;
    }
    if !first.contains(['*', '?', '[']) {
        let p = join(first);
        if rest.is_empty() {
            if ctx.host.stat(&p, false).is_some() {
                out.push(p);
            }
        } else {
            glob_walk(ctx, &p, rest, out, budget);
        }
        return;
    }
    let Some(entries) = ctx.host.list_dir(base) else {
        return;
    };
    // prepared once for every entry of the directory
    let glob = ComponentGlob::new(first);
    for e in entries {
        if *budget == 0 {
            return;
        }
        *budget -= 1;
        if component_matches(first, &glob, &e) {
            glob_walk(ctx, &join(&e), rest, out, budget);
        }
    }
}

/// Reports a pattern whose walk ran out of its budget (the result is incomplete).
fn glob_limit(ctx: &mut CallCtx<'_>, budget: usize, pat: &str) {
    if budget == 0 {
        ctx.error(format!(
            "cfsim: findfiles('{pat}') visited more than {MAX_GLOB_VISITS} paths; its result is incomplete"
        ));
        ctx.limit_hit = true;
    }
}

fn findfiles(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let mut out = Vec::new();
    for pat in a.iter().map(FnArg::text) {
        if !pat.starts_with('/') {
            continue;
        }
        let parts: Vec<&str> = pat.split('/').filter(|p| !p.is_empty()).collect();
        let mut found = Vec::new();
        let mut budget = MAX_GLOB_VISITS;
        glob_walk(ctx, "/", &parts, &mut found, &mut budget);
        glob_limit(ctx, budget, pat);
        found.sort();
        found.dedup();
        out.extend(found);
    }
    Ok(Value::slist(out))
}

fn file_hash(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let algo = a[1].text();
    match ctx.host.read_file(a[0].text()) {
        Some(data) => Ok(Value::str(digest_hex(algo, &data))),
        None => {
            let len = digest_hex(algo, b"").len();
            Ok(Value::str("0".repeat(len)))
        }
    }
}

/// Exact (case-sensitive) comparison with the file's digest; a missing file hashes to zeros.
fn hashmatch(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let algo = a[1].text();
    let digest = match ctx.host.read_file(a[0].text()) {
        Some(data) => digest_hex(algo, &data),
        None => "0".repeat(digest_hex(algo, b"").len()),
    };
    Ok(Value::context(digest == a[2].text()))
}

fn makerule(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    let Some(target) = stat(ctx, a[0].text()) else {
        return Ok(Value::context(true));
    };
    // a list or container of sources, else an absolute path; a name of no list (or of a string
    // variable) fails (recorded: iteration/scalar_collections)
    let sources = match super::args::collect_container(ctx, &a[1]) {
        Some(v) => elements(&v),
        None if a[1].naked.is_none() && a[1].text().starts_with('/') => {
            vec![a[1].text().to_string()]
        }
        None => return Err(super::FnFail),
    };
    let newer = sources
        .iter()
        .any(|s| stat(ctx, s).is_some_and(|st| st.mtime > target.mtime));
    Ok(Value::context(newer))
}

fn findfiles_up(ctx: &mut CallCtx<'_>, a: &[FnArg]) -> FnResult {
    if !a[0].text().starts_with('/') {
        return Err(ctx.fail(format!(
            "findfiles_up: path '{}' is not absolute",
            a[0].text()
        )));
    }
    let start = a[0].text().trim_end_matches('/').to_string();
    let glob = a[1].text().trim_start_matches('/').to_string();
    let max_level = a.get(2).map_or(i64::MAX, super::args::int_arg);
    let mut out = Vec::new();
    let mut dir = if start.is_empty() {
        "/".to_string()
    } else {
        start
    };
    let mut level = 0i64;
    loop {
        let parts: Vec<&str> = dir
            .split('/')
            .chain(glob.split('/'))
            .filter(|p| !p.is_empty())
            .collect();
        let mut found = Vec::new();
        let mut budget = MAX_GLOB_VISITS;
        glob_walk(ctx, "/", &parts, &mut found, &mut budget);
        glob_limit(ctx, budget, &format!("{dir}/{glob}"));
        found.sort();
        out.extend(found.into_iter().map(serde_json::Value::String));
        let parent = dirname_of(&dir);
        if dir == "/" || level >= max_level || parent == dir {
            break;
        }
        dir = parent;
        level += 1;
    }
    Ok(Value::Data(serde_json::Value::Array(out)))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    /// The direct matcher agrees with the regex translation it replaces, on every pattern and name
    /// built from a small alphabet (all of them up to 4 pattern and 5 name characters).
    #[test]
    fn wildcards_match_as_their_regex() {
        fn all(alphabet: &[char], max: usize) -> Vec<String> {
            let mut out = vec![String::new()];
            let mut last = vec![String::new()];
            for _ in 0..max {
                let mut next = Vec::new();
                for s in &last {
                    for c in alphabet {
                        next.push(format!("{s}{c}"));
                    }
                }
                out.extend(next.iter().cloned());
                last = next;
            }
            out
        }
        let pats = all(&['*', '?', 'a', 'b', '.'], 4);
        let names = all(&['a', 'b', '.', 'é'], 5);
        let mut checked = 0;
        for p in &pats {
            let re = glob_regex(p).unwrap();
            for n in &names {
                assert_eq!(
                    wildcard_match(p, n),
                    re.is_match(n),
                    "pattern {p:?} name {n:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 500_000);
        // through the component matcher: hidden names, a class, a newline
        let m = |p: &str, n: &str| component_matches(p, &ComponentGlob::new(p), n);
        assert!(m("*.cf", "promises.cf") && !m("*.cf", ".hidden.cf") && m(".*.cf", ".hidden.cf"));
        assert!(m("[pq]*.cf", "promises.cf") && !m("[!p]*.cf", "promises.cf"));
        assert!(!m("a*b", "a\nb") && m("a?b", "a_b") && !m("a?b", "a\nb"));
    }
}
