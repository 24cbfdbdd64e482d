//! `depth_search` (the agent's reach per `depth`, children before their directory, the base only
//! with `include_basedir`, `exclude_dirs`/`include_dirs`) and `file_select` (criteria as tokens,
//! `file_result` as a class expression over them). Children are visited in sorted order (the
//! agent's is readdir order; sorted is deterministic).

use super::attrs::Attrs;
use super::{leaf, lstat, Pr};
use crate::eval::Engine;
use crate::expr::classexpr::parse;
use crate::host::vfs::{Kind, Meta};

/// Most paths one depth search visits.
pub const MAX_VISITS: usize = 1_000_000;

/// file_select's leaf_name/path_name (and depth_search include/exclude): the agent's `FullTextMatch`.
fn full_match(re: &str, s: &str) -> bool {
    crate::pcre::full_match(re, s)
}

/// Whether `path` is selected by the promise's `file_select` (true without one).
pub fn selected(a: &Attrs, path: &str, m: &Meta) -> bool {
    let Some(s) = &a.select else {
        return true;
    };
    let leafname = path.rsplit('/').next().unwrap_or(path);
    let mut tokens: Vec<&str> = Vec::new();
    if s.leaf_name.is_empty() || s.leaf_name.iter().any(|r| full_match(r, leafname)) {
        tokens.push("leaf_name");
    }
    if s.path_name.is_empty() {
        tokens.push("leaf_path");
    } else if s.path_name.iter().any(|r| full_match(r, path)) {
        tokens.push("path_name");
    }
    let kind = match m.kind {
        Kind::File => ["plain", "reg"].as_slice(),
        Kind::Dir => &["dir"],
        Kind::Symlink => &["symlink"],
        Kind::Fifo => &["fifo"],
        Kind::Socket => &["socket"],
        Kind::Other => &["char", "block"],
    };
    if s.file_types.is_empty() || s.file_types.iter().any(|t| kind.contains(&t.as_str())) {
        tokens.push("file_types");
    }
    let within = |r: Option<(i64, i64)>, t: i64| r.is_none_or(|(lo, hi)| lo < t && t < hi);
    if s.mtime.is_some() && within(s.mtime, m.mtime) {
        tokens.push("mtime");
    }
    if s.ctime.is_some() && within(s.ctime, m.ctime) {
        tokens.push("ctime");
    }
    if s.atime.is_some() && within(s.atime, m.atime) {
        tokens.push("atime");
    }
    if s.size.is_some() && within(s.size, m.size as i64) {
        tokens.push("size");
    }
    tokens.push("owner");
    tokens.push("group");
    let Some(fr) = &s.file_result else {
        return false;
    };
    parse(fr).is_ok_and(|x| x.eval_names(&tokens))
}

/// Visits the tree under `base` as the agent's `DepthSearch` does, verifying each selected leaf.
pub fn depth_search(e: &mut Engine<'_>, a: &Attrs, pr: &mut Pr<'_>, base: &str) {
    let Some(bm) = super::stat(e, base) else {
        return;
    };
    if bm.kind != Kind::Dir {
        return;
    }
    let depth = a.depth.as_ref().map_or(0, |d| d.depth);
    let mut visits = 0usize;
    walk(e, a, pr, base, 0, depth, &mut visits);
    if a.depth.as_ref().is_some_and(|d| d.include_basedir) {
        if let Some(m) = lstat(e, base) {
            if selected(a, base, &m) {
                leaf::verify_leaf_at(e, a, pr, base, leaf::Leaf::BaseDir);
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn walk(
    e: &mut Engine<'_>,
    a: &Attrs,
    pr: &mut Pr<'_>,
    dir: &str,
    level: u64,
    depth: u64,
    visits: &mut usize,
) {
    let names = {
        let b = e.host.base();
        e.host.vfs.list(b, dir).unwrap_or_default()
    };
    for n in names {
        *visits += 1;
        if *visits > MAX_VISITS {
            return;
        }
        let path = format!("{}/{n}", dir.trim_end_matches('/'));
        let Some(m) = lstat(e, &path) else {
            continue;
        };
        if m.kind == Kind::Dir {
            let d = a.depth.as_ref();
            let excluded = d.is_some_and(|d| {
                d.exclude_dirs
                    .iter()
                    .any(|r| full_match(r, &n) || full_match(r, &path))
            });
            let included = d.is_none_or(|d| {
                d.include_dirs.is_empty()
                    || d.include_dirs
                        .iter()
                        .any(|r| full_match(r, &n) || full_match(r, &path))
            });
            if depth > 1 && level <= depth && !excluded && included {
                walk(e, a, pr, &path, level + 1, depth, visits);
            }
        }
        let Some(m) = lstat(e, &path) else {
            continue;
        };
        if m.kind == Kind::Symlink
            && a.depth.as_ref().is_some_and(|d| d.rmdeadlinks)
            && super::stat(e, &path).is_none()
        {
            if pr.warn_only {
                pr.should(e, &format!("remove dead link '{path}'"));
            } else {
                let (v, b) = e.host.vfs_mut();
                if v.remove(b, &path, false).is_ok() {
                    v.mark_changed(b, &path);
                }
                pr.change(e, &format!("Removed dead link '{path}'"));
            }
            continue;
        }
        if selected(a, &path, &m) {
            leaf::verify_leaf(e, a, pr, &path);
        }
    }
}
