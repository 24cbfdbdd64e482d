//! The attributes of one files promise, flattened as the agent flattens them (`GetFilesAttributes`):
//! the promise's own constraints and the attributes of its bodies (perms, delete, rename, copy_from,
//! link_from, depth_search, file_select, edit_defaults, action), expanded for the current binding.

use crate::eval::{BundleDef, Engine};
use crate::syntax::ast::{Promise, Rval};
use crate::value::Value;

/// `body perms`.
#[derive(Debug, Clone, Default)]
pub struct Perms {
    /// (bits to set, bits to clear), from octal or symbolic `mode`.
    pub mode: Option<(u32, u32)>,
    pub owners: Vec<String>,
    pub groups: Vec<String>,
    pub rxdirs: bool,
    /// `rxdirs` was given (else the agent warns that it uses the default).
    pub rxdirs_set: bool,
}

/// `body delete`.
#[derive(Debug, Clone, Default)]
pub struct Delete {
    pub rmdirs: bool,
    pub dirlinks_keep: bool,
}

/// `body rename`.
#[derive(Debug, Clone, Default)]
pub struct Rename {
    pub newname: Option<String>,
    pub disable: bool,
    pub disable_suffix: Option<String>,
    pub disable_mode: Option<(u32, u32)>,
    pub rotate: Option<u32>,
}

/// `body copy_from` (local copies, and remote ones from the profile's `remote_files`).
#[derive(Debug, Clone, Default)]
pub struct Copy {
    pub source: String,
    pub servers: Vec<String>,
    /// `portnumber` (cf-serverd's 5308 when not given).
    pub port: String,
    /// `trustkey`: trust a server's key the host does not know yet.
    pub trustkey: bool,
    pub compare: String,
    pub preserve: bool,
    /// `true` (default), `false`, `timestamp`.
    pub backup: String,
    pub purge: bool,
    pub missing_ok: bool,
    pub type_check: bool,
    pub force_update: bool,
}

/// `body link_from`.
#[derive(Debug, Clone, Default)]
pub struct Link {
    pub source: String,
    /// `symlink` (default), `relative`, `absolute`, `hardlink`.
    pub link_type: String,
    /// `nop` (default), `force`, `delete`.
    pub when_no_source: String,
    pub move_obstructions: bool,
    pub link_children: bool,
}

/// `body depth_search`.
#[derive(Debug, Clone, Default)]
pub struct Depth {
    /// Levels (`inf`: `u64::MAX`).
    pub depth: u64,
    pub include_basedir: bool,
    pub exclude_dirs: Vec<String>,
    pub include_dirs: Vec<String>,
    pub rmdeadlinks: bool,
}

/// `body file_select`.
#[derive(Debug, Clone, Default)]
pub struct Select {
    pub leaf_name: Vec<String>,
    pub path_name: Vec<String>,
    pub file_types: Vec<String>,
    pub mtime: Option<(i64, i64)>,
    pub ctime: Option<(i64, i64)>,
    pub atime: Option<(i64, i64)>,
    pub size: Option<(i64, i64)>,
    pub search_mode: Vec<String>,
    pub file_result: Option<String>,
}

/// `body edit_defaults`.
#[derive(Debug, Clone)]
pub struct EditDefaults {
    pub empty_before_use: bool,
    /// `recognize_join`: see `editdrive::split_lines`.
    pub recognize_join: bool,
    /// `true` (default), `false`, `timestamp`, `rotate`.
    pub backup: String,
    pub max_file_size: u64,
    /// Generations kept with `edit_backup => "rotate"`.
    pub rotate: u32,
}

impl Default for EditDefaults {
    fn default() -> Self {
        EditDefaults {
            empty_before_use: false,
            recognize_join: false,
            backup: "true".into(),
            max_file_size: 100_000,
            rotate: 1,
        }
    }
}

/// Everything a files promise may ask for.
#[derive(Debug, Clone, Default)]
pub struct Attrs {
    pub create: bool,
    /// `create => "false"` (or `"no"`) literally written.
    pub create_false: bool,
    pub touch: bool,
    pub file_type: String,
    pub pathtype: String,
    pub perms: Option<Perms>,
    pub delete: Option<Delete>,
    pub rename: Option<Rename>,
    pub copy: Option<Copy>,
    pub link: Option<Link>,
    pub content: Option<String>,
    pub depth: Option<Depth>,
    pub select: Option<Select>,
    /// The edit bundle, its arguments and their kinds (see [`crate::promise::methods::eval_args`]).
    pub edit_line: Option<(String, Vec<Option<Value>>, Vec<char>)>,
    pub edit_xml: bool,
    pub edit_template: Option<String>,
    pub edit_template_string: Option<String>,
    pub template_method: String,
    pub template_data: Option<Value>,
    pub template_data_given: bool,
    pub edit_defaults: EditDefaults,
    pub changes: bool,
    /// The `changes` body (when `changes` is given).
    pub change: ChangeSpec,
    pub transformer: Option<String>,
    pub move_obstructions: bool,
}

/// A `changes` body (`GetChangeMgtConstraints`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeSpec {
    /// `md5 sha1 sha224 sha256 sha384 sha512` or `best` (md5 and sha1); default `best`.
    pub hash: String,
    /// `content`, `stats`, `all` or `none` (default).
    pub report: String,
    /// `update_hashes`: a changed hash replaces the stored one (default false).
    pub update: bool,
}

impl Default for ChangeSpec {
    fn default() -> Self {
        ChangeSpec {
            hash: "best".into(),
            report: "none".into(),
            update: false,
        }
    }
}

impl Attrs {
    /// Whether the promise asks for any action at all.
    pub fn any_action(&self) -> bool {
        self.create
            || self.touch
            || self.perms.is_some()
            || self.delete.is_some()
            || self.rename.is_some()
            || self.copy.is_some()
            || self.link.is_some()
            || self.content.is_some()
            || self.edit_line.is_some()
            || self.edit_xml
            || self.edit_template.is_some()
            || self.edit_template_string.is_some()
            || self.changes
            || self.transformer.is_some()
    }

    /// Whether the promise edits the file (any edit_* or a template).
    pub fn edits(&self) -> bool {
        self.edit_line.is_some()
            || self.edit_xml
            || self.edit_template.is_some()
            || self.edit_template_string.is_some()
    }
}

/// Parses a `mode` value: octal digits (`"640"`) or a symbolic list (`"u+x,g-r"`, `"a=r"`).
/// Returns (bits to set, bits to clear).
pub fn parse_mode(s: &str) -> Option<(u32, u32)> {
    let s = s.trim();
    if !s.is_empty() && s.chars().all(|c| c.is_digit(8)) {
        let v = u32::from_str_radix(s, 8).ok()?;
        return Some((v & 0o7777, !v & 0o7777));
    }
    let (mut plus, mut minus) = (0u32, 0u32);
    for part in s.split(',') {
        let part = part.trim();
        let op_at = part.find(['+', '-', '='])?;
        let (who, rest) = part.split_at(op_at);
        let op = rest.chars().next()?;
        let perms = &rest[1..];
        let mut who_mask = 0u32;
        for c in who.chars() {
            who_mask |= match c {
                'u' => 0o4700,
                'g' => 0o2070,
                'o' => 0o1007,
                'a' => 0o7777,
                _ => return None,
            };
        }
        if who.is_empty() {
            who_mask = 0o7777;
        }
        let mut bits = 0u32;
        for c in perms.chars() {
            bits |= match c {
                'r' => 0o444,
                'w' => 0o222,
                'x' => 0o111,
                's' => 0o6000,
                't' => 0o1000,
                _ => return None,
            };
        }
        let b = bits & who_mask;
        match op {
            '+' => plus |= b,
            '-' => minus |= b,
            _ => {
                plus |= b;
                minus |= who_mask & 0o777 & !b;
            }
        }
    }
    Some((plus, minus))
}

/// Parses `"inf"` or a number.
fn parse_depth(s: &str) -> u64 {
    if s == "inf" {
        return u64::MAX;
    }
    s.trim().parse().unwrap_or(0)
}

fn truthy(s: &str) -> bool {
    matches!(s, "true" | "yes" | "on")
}

/// An `irange(a, b)` value as the agent stores it (`a,b`).
fn range(s: &str) -> Option<(i64, i64)> {
    let (a, b) = s.split_once(',')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

impl Engine<'_> {
    fn scalar_attr(&mut self, p: &Promise, lval: &str) -> Option<String> {
        let rv = Self::constraint(p, lval)?;
        self.scalar_of(rv)
    }

    fn body_scalars(&mut self, def: &BundleDef, p: &Promise, lval: &str) -> Vec<(String, Rval)> {
        self.body_attrs(def, p, lval, lval)
    }

    /// The flattened attributes of files promise `p` for the current binding.
    pub fn files_attrs(&mut self, def: &BundleDef, p: &Promise) -> Attrs {
        let mut a = Attrs {
            template_method: "cfengine".into(),
            ..Attrs::default()
        };
        if let Some(v) = self.scalar_attr(p, "create") {
            a.create = truthy(&v);
            a.create_false = matches!(v.as_str(), "false" | "no");
        }
        a.touch = self.scalar_attr(p, "touch").is_some_and(|v| truthy(&v));
        a.file_type = self.scalar_attr(p, "file_type").unwrap_or_default();
        a.pathtype = self.scalar_attr(p, "pathtype").unwrap_or_default();
        a.content = self.scalar_attr(p, "content");
        a.edit_template = self.scalar_attr(p, "edit_template");
        a.edit_template_string = self.scalar_attr(p, "edit_template_string");
        if let Some(m) = self.scalar_attr(p, "template_method") {
            a.template_method = m;
        }
        if let Some(rv) = Self::constraint(p, "template_data") {
            a.template_data_given = true;
            if let crate::eval::rval::RvalResult::Value { value, .. } = self.eval_rval(rv) {
                a.template_data = Some(value);
            }
        }
        a.transformer = self.scalar_attr(p, "transformer");
        a.edit_xml = Self::constraint(p, "edit_xml").is_some();
        if let Some(rv) = Self::constraint(p, "edit_line") {
            a.edit_line = self.edit_call(rv);
        }
        if Self::constraint(p, "perms").is_some() {
            let mut perms = Perms::default();
            for (l, rv) in self.body_scalars(def, p, "perms") {
                match l.as_str() {
                    "mode" => perms.mode = self.scalar_of(&rv).and_then(|m| parse_mode(&m)),
                    "owners" => perms.owners = self.list_of(&rv),
                    "groups" => perms.groups = self.list_of(&rv),
                    "rxdirs" => {
                        perms.rxdirs_set = true;
                        perms.rxdirs = self.scalar_of(&rv).is_some_and(|v| truthy(&v))
                    }
                    _ => {}
                }
            }
            a.perms = Some(perms);
        }
        if Self::constraint(p, "delete").is_some() {
            let mut d = Delete::default();
            for (l, rv) in self.body_scalars(def, p, "delete") {
                match l.as_str() {
                    "rmdirs" => d.rmdirs = self.scalar_of(&rv).is_some_and(|v| truthy(&v)),
                    "dirlinks" => d.dirlinks_keep = self.scalar_of(&rv).as_deref() == Some("keep"),
                    _ => {}
                }
            }
            a.delete = Some(d);
        }
        if Self::constraint(p, "rename").is_some() {
            let mut r = Rename::default();
            for (l, rv) in self.body_scalars(def, p, "rename") {
                let v = self.scalar_of(&rv).unwrap_or_default();
                match l.as_str() {
                    "newname" => r.newname = Some(v),
                    "disable" => r.disable = truthy(&v),
                    "disable_suffix" => r.disable_suffix = Some(v),
                    "disable_mode" => r.disable_mode = parse_mode(&v),
                    "rotate" => r.rotate = v.trim().parse().ok(),
                    _ => {}
                }
            }
            a.rename = Some(r);
        }
        if Self::constraint(p, "copy_from").is_some() {
            let mut c = Copy {
                compare: "ctime".into(),
                backup: "true".into(),
                ..Copy::default()
            };
            for (l, rv) in self.body_scalars(def, p, "copy_from") {
                match l.as_str() {
                    "servers" => c.servers = self.list_of(&rv),
                    _ => {
                        let v = self.scalar_of(&rv).unwrap_or_default();
                        match l.as_str() {
                            "source" => c.source = v,
                            "compare" => c.compare = v,
                            "preserve" => c.preserve = truthy(&v),
                            "copy_backup" => c.backup = v,
                            "purge" => c.purge = truthy(&v),
                            "missing_ok" => c.missing_ok = truthy(&v),
                            "type_check" => c.type_check = truthy(&v),
                            "force_update" => c.force_update = truthy(&v),
                            "portnumber" => c.port = v,
                            "trustkey" => c.trustkey = truthy(&v),
                            _ => {}
                        }
                    }
                }
            }
            a.copy = Some(c);
        }
        if Self::constraint(p, "link_from").is_some() {
            let mut k = Link {
                link_type: "symlink".into(),
                when_no_source: "nop".into(),
                ..Link::default()
            };
            for (l, rv) in self.body_scalars(def, p, "link_from") {
                let v = self.scalar_of(&rv).unwrap_or_default();
                match l.as_str() {
                    "source" => k.source = v,
                    "link_type" => k.link_type = v,
                    "when_no_source" => k.when_no_source = v,
                    "link_children" => k.link_children = truthy(&v),
                    _ => {}
                }
            }
            a.link = Some(k);
        }
        if let Some(v) = self.scalar_attr(p, "move_obstructions") {
            a.move_obstructions = truthy(&v);
            if let Some(k) = a.link.as_mut() {
                k.move_obstructions = truthy(&v);
            }
        }
        if Self::constraint(p, "depth_search").is_some() {
            let mut d = Depth::default();
            for (l, rv) in self.body_scalars(def, p, "depth_search") {
                match l.as_str() {
                    "exclude_dirs" => d.exclude_dirs = self.list_of(&rv),
                    "include_dirs" => d.include_dirs = self.list_of(&rv),
                    _ => {
                        let v = self.scalar_of(&rv).unwrap_or_default();
                        match l.as_str() {
                            "depth" => d.depth = parse_depth(&v),
                            "include_basedir" => d.include_basedir = truthy(&v),
                            "rmdeadlinks" => d.rmdeadlinks = truthy(&v),
                            _ => {}
                        }
                    }
                }
            }
            a.depth = Some(d);
        }
        if Self::constraint(p, "file_select").is_some() {
            let mut s = Select::default();
            for (l, rv) in self.body_scalars(def, p, "file_select") {
                match l.as_str() {
                    "leaf_name" => s.leaf_name = self.list_of(&rv),
                    "path_name" => s.path_name = self.list_of(&rv),
                    "file_types" => s.file_types = self.list_of(&rv),
                    "search_mode" => s.search_mode = self.list_of(&rv),
                    _ => {
                        let v = self.scalar_of(&rv).unwrap_or_default();
                        match l.as_str() {
                            "mtime" => s.mtime = range(&v),
                            "ctime" => s.ctime = range(&v),
                            "atime" => s.atime = range(&v),
                            "search_size" => s.size = range(&v),
                            "file_result" => s.file_result = Some(v),
                            _ => {}
                        }
                    }
                }
            }
            a.select = Some(s);
        }
        if Self::constraint(p, "edit_defaults").is_some() {
            for (l, rv) in self.body_scalars(def, p, "edit_defaults") {
                let v = self.scalar_of(&rv).unwrap_or_default();
                match l.as_str() {
                    "empty_file_before_editing" => a.edit_defaults.empty_before_use = truthy(&v),
                    "recognize_join" => a.edit_defaults.recognize_join = truthy(&v),
                    "edit_backup" => a.edit_defaults.backup = v,
                    "rotate" => a.edit_defaults.rotate = v.trim().parse().unwrap_or(1),
                    "max_file_size" => {
                        a.edit_defaults.max_file_size = v.trim().parse().unwrap_or(100_000)
                    }
                    _ => {}
                }
            }
        }
        a.changes = Self::constraint(p, "changes").is_some();
        if a.changes {
            for (l, rv) in self.body_scalars(def, p, "changes") {
                let v = self.scalar_of(&rv).unwrap_or_default();
                match l.as_str() {
                    "hash" => a.change.hash = v,
                    "report_changes" => a.change.report = v,
                    "update_hashes" => a.change.update = truthy(&v),
                    _ => {}
                }
            }
        }
        a
    }

    /// The bundle name and evaluated arguments of an `edit_line => name(args)` constraint.
    fn edit_call(&mut self, rv: &Rval) -> Option<(String, Vec<Option<Value>>, Vec<char>)> {
        match rv {
            Rval::Scalar(s) => Some((self.expand(&s.value).text, Vec::new(), Vec::new())),
            // arguments as methods pass them (a naked `@(list)` passes the list)
            Rval::Call(c) => {
                let (args, kinds) = crate::promise::methods::eval_args(self, &c.args)?;
                Some((c.name.clone(), args, kinds))
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_mode;

    #[test]
    fn modes() {
        assert_eq!(parse_mode("640"), Some((0o640, 0o7137)));
        // recorded in the spec: 0644 + u+x,g-r → 0704
        let (plus, minus) = parse_mode("u+x,g-r").unwrap_or_default();
        assert_eq!((0o644 | plus) & !minus, 0o704);
        assert_eq!(parse_mode("u+q"), None);
    }
}
