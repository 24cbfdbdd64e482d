//! The hENC merge: the exact line rules of brontolinux/hENC `module/henc`, over in-memory inputs, with
//! provenance (file index and line number) for every surviving class and variable.
//!
//! Rules (spec henc-enc-bcfg2.md §1.2-§1.4): a line, after removing one trailing `\n`, is used only when it
//! matches "optional ASCII whitespace, one sigil from `= @ % + , - . / _ !`, at least one more byte"; the rest
//! of the line (trailing blanks and `\r` included) is the identifier. `+`/`-` set/cancel a class, `_`
//! forgets it, `=`/`@`/`%` store the whole original line under the variable name (text before the first
//! `=` after the sigil's first identifier byte), `/` forgets a variable, `!RESET_ALL_CLASSES`,
//! `!RESET_ACTIVE_CLASSES` and `!RESET_CANCELLED_CLASSES` clear class states; `,` and `.` lines and unknown
//! `!` commands are no-ops. `henc_classification_completed` is forced to "set" after the last line.
//! This file does not read files (see `mod.rs`) and does not render anything (see `render`/`explain`).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A small multiply-rotate hasher (FxHash-style) for the merge maps: the keys are names from the
/// operator's own ENC files, so hash flooding is not a concern, and SipHash was the largest cost of
/// merging a 1,000,000-line hierarchy. Deterministic (no random seed).
#[derive(Default, Clone, Copy)]
pub struct NameHasher(u64);

impl Hasher for NameHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x51_7c_c1_b7_27_22_0a_95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // The tail as one zero-padded word (the length was hashed first, so this stays injective).
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.0 = (self.0.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(K);
        }
    }

    fn finish(&self) -> u64 {
        // murmur3's fmix64: spread every input bit over the low bits the table indexes with.
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

/// A map key for a name: names up to 22 bytes are copied inline, so a lookup compares bytes that sit in
/// the table instead of chasing a pointer into the (large) input; longer names borrow the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameKey<'a> {
    Short(u8, [u8; 22]),
    Long(&'a [u8]),
}

impl<'a> NameKey<'a> {
    pub fn new(name: &'a [u8]) -> NameKey<'a> {
        if name.len() <= 22 {
            let mut buf = [0u8; 22];
            buf[..name.len()].copy_from_slice(name);
            NameKey::Short(name.len() as u8, buf)
        } else {
            NameKey::Long(name)
        }
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            NameKey::Short(len, buf) => &buf[..usize::from(*len)],
            NameKey::Long(b) => b,
        }
    }
}

/// Map keyed by names, with [`NameHasher`]. A plain hash map measured faster than an `IndexMap` on large
/// hierarchies; it is never iterated into output without sorting first.
pub type NameMap<'a, V> = HashMap<NameKey<'a>, V, BuildHasherDefault<NameHasher>>;

/// The class hENC always sets at the end of the merge.
pub const COMPLETED_CLASS: &[u8] = b"henc_classification_completed";

/// One input of the merge: a file name and its bytes, or `None` when it was missing or unreadable
/// (hENC skips such files silently).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub name: String,
    pub text: Option<Vec<u8>>,
}

/// Where a line came from: index into the merged sources and 1-based line number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Origin {
    pub file: u32,
    pub line: u32,
}

/// Final state of a class: `+name` or `-name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClassState {
    Set,
    Cancelled,
}

/// What one line did to one name; kept only when history is requested.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Set,
    Cancel,
    Forget,
    ResetAll,
    ResetActive,
    ResetCancelled,
    /// A variable line with its sigil (`=`, `@` or `%`).
    Assign(u8),
    Slash,
}

/// One step of a name's history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub origin: Origin,
    pub action: Action,
}

/// A class present at the end of the merge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClassEntry {
    pub state: ClassState,
    /// The line that decided the state; `None` for the final forced `henc_classification_completed`.
    pub origin: Option<Origin>,
}

/// A variable present at the end of the merge: the whole original line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VarEntry<'a> {
    pub line: &'a [u8],
    pub sigil: u8,
    pub origin: Origin,
}

/// Result of a merge. The maps are unordered; use [`Merged::sorted_classes`] and [`Merged::sorted_vars`]
/// for the documented output order.
#[derive(Debug, Clone, Default)]
pub struct Merged<'a> {
    pub classes: NameMap<'a, ClassEntry>,
    pub vars: NameMap<'a, VarEntry<'a>>,
    /// Every step per class name, in input order (only with `history`), including names now absent.
    pub class_history: NameMap<'a, Vec<Step>>,
    /// Every step per variable name, in input order (only with `history`).
    pub var_history: NameMap<'a, Vec<Step>>,
    /// Indexes of sources that were missing or unreadable.
    pub skipped: Vec<u32>,
}

/// A parsed hENC line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HencLine<'a> {
    /// Bytes of leading whitespace before the sigil.
    pub indent: usize,
    pub sigil: u8,
    /// Everything after the sigil (trailing blanks and `\r` included).
    pub id: &'a [u8],
}

/// Perl's `\s` on byte strings: space, `\t`, `\n`, `\x0B`, `\x0C`, `\r`.
pub fn is_perl_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')
}

/// Match one chomped line against the hENC line pattern; `None` when hENC ignores it.
pub fn parse_line(line: &[u8]) -> Option<HencLine<'_>> {
    let mut start = 0;
    // Leading whitespace can be backtracked into by the regex only if a whitespace byte were a sigil;
    // none is, so the greedy strip is exact.
    while start < line.len() && is_perl_space(line[start]) {
        start += 1;
    }
    let sigil = *line.get(start)?;
    let is_sigil = matches!(
        sigil,
        b'=' | b'@' | b'%' | b'+' | b',' | b'-' | b'.' | b'/' | b'_' | b'!'
    );
    let id = line.get(start + 1..)?;
    // `(.+)` needs one more byte; lines never contain `\n` (see [`lines`]).
    if !is_sigil || id.is_empty() {
        return None;
    }
    Some(HencLine {
        indent: start,
        sigil,
        id,
    })
}

/// The variable name of a `=`/`@`/`%` identifier: the shortest non-empty prefix followed by `=`;
/// the empty name when there is none (Perl stores those under the key `""`).
pub fn var_name(id: &[u8]) -> &[u8] {
    match id.iter().skip(1).position(|&b| b == b'=') {
        Some(pos) => &id[..pos + 1],
        None => b"",
    }
}

/// Split a file's bytes the way Perl's `<>` does: on `\n`, each line without its `\n`; a final line
/// without newline is still a line; an empty file has no lines.
pub fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let body = text.strip_suffix(b"\n").unwrap_or(text);
    let empty = text.is_empty();
    body.split(|&b| b == b'\n').filter(move |_| !empty)
}

/// Merge the sources in order. With `history`, every step per name is recorded for `--explain`.
pub fn merge(sources: &[Source], history: bool) -> Merged<'_> {
    let mut m = Merged::default();
    for (fi, src) in sources.iter().enumerate() {
        let file = u32::try_from(fi).unwrap_or(u32::MAX);
        let Some(text) = &src.text else {
            m.skipped.push(file);
            continue;
        };
        for (li, line) in lines(text).enumerate() {
            let origin = Origin {
                file,
                line: u32::try_from(li + 1).unwrap_or(u32::MAX),
            };
            if let Some(parsed) = parse_line(line) {
                apply(&mut m, line, parsed, origin, history);
            }
        }
    }
    m.classes.insert(
        NameKey::new(COMPLETED_CLASS),
        ClassEntry {
            state: ClassState::Set,
            origin: None,
        },
    );
    m
}

fn record<'a>(map: &mut NameMap<'a, Vec<Step>>, name: &'a [u8], step: Step) {
    map.entry(NameKey::new(name)).or_default().push(step);
}

fn apply<'a>(m: &mut Merged<'a>, line: &'a [u8], p: HencLine<'a>, origin: Origin, history: bool) {
    let step = |action| Step { origin, action };
    match p.sigil {
        b'+' | b'-' => {
            let (state, action) = if p.sigil == b'+' {
                (ClassState::Set, Action::Set)
            } else {
                (ClassState::Cancelled, Action::Cancel)
            };
            let entry = ClassEntry {
                state,
                origin: Some(origin),
            };
            m.classes.insert(NameKey::new(p.id), entry);
            if history {
                record(&mut m.class_history, p.id, step(action));
            }
        }
        b'_' => {
            let removed = m.classes.remove(&NameKey::new(p.id)).is_some();
            if history && removed {
                record(&mut m.class_history, p.id, step(Action::Forget));
            }
        }
        b'=' | b'@' | b'%' => {
            let name = var_name(p.id);
            let entry = VarEntry {
                line,
                sigil: p.sigil,
                origin,
            };
            m.vars.insert(NameKey::new(name), entry);
            if history {
                record(&mut m.var_history, name, step(Action::Assign(p.sigil)));
            }
        }
        b'/' => {
            let removed = m.vars.remove(&NameKey::new(p.id)).is_some();
            if history && removed {
                record(&mut m.var_history, p.id, step(Action::Slash));
            }
        }
        b'!' => {
            let (keep, action): (fn(ClassState) -> bool, Action) = match p.id {
                b"RESET_ALL_CLASSES" => (|_| false, Action::ResetAll),
                b"RESET_ACTIVE_CLASSES" => (|s| s != ClassState::Set, Action::ResetActive),
                b"RESET_CANCELLED_CLASSES" => {
                    (|s| s != ClassState::Cancelled, Action::ResetCancelled)
                }
                _ => return,
            };
            if history {
                let cleared: Vec<NameKey<'a>> = m
                    .classes
                    .iter()
                    .filter(|(_, e)| !keep(e.state))
                    .map(|(k, _)| *k)
                    .collect();
                for k in cleared {
                    m.class_history.entry(k).or_default().push(step(action));
                }
            }
            m.classes.retain(|_, e| keep(e.state));
        }
        _ => {}
    }
}

impl<'a> Merged<'a> {
    /// Classes in output order: bytewise by name.
    pub fn sorted_classes(&self) -> Vec<(&[u8], ClassEntry)> {
        let mut v: Vec<_> = self.classes.iter().map(|(k, e)| (k.bytes(), *e)).collect();
        v.sort_unstable_by(|a, b| a.0.cmp(b.0));
        v
    }

    /// Variables in output order: bytewise by variable name.
    pub fn sorted_vars(&self) -> Vec<(&[u8], VarEntry<'a>)> {
        let mut v: Vec<_> = self.vars.iter().map(|(k, e)| (k.bytes(), *e)).collect();
        v.sort_unstable_by(|a, b| a.0.cmp(b.0));
        v
    }

    /// The module output, exactly as `cfsim henc` prints it: classes (`+name`/`-name`) sorted by name,
    /// then variable lines sorted by variable name, each ended by `\n`.
    pub fn render(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 * (self.classes.len() + self.vars.len()));
        for (name, e) in self.sorted_classes() {
            out.push(if e.state == ClassState::Set {
                b'+'
            } else {
                b'-'
            });
            out.extend_from_slice(name);
            out.push(b'\n');
        }
        for (_, v) in self.sorted_vars() {
            out.extend_from_slice(v.line);
            out.push(b'\n');
        }
        out
    }
}
