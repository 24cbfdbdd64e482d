//! The run's virtual file system: a read-only base (the profile's file map and `files_root`, or this
//! machine with `--host local`) under an in-memory overlay holding every change the run makes. Paths
//! are resolved component by component in the virtual namespace (symlinks of the base and of the
//! overlay alike, `..` never above `/`, at most [`MAX_SYMLINK_HOPS`] links), so a path can never reach
//! outside the base's root, and a file created in pass 1 exists for every later promise and function.
//! The base is never written; [`Vfs::journal`] lists what changed, in first-change order, with the
//! state each path had before the run. File contents the overlay holds (new ones and the originals of
//! changed files) go through the run's [`SpillStore`] when one is set: past its memory budget they live
//! in a private temporary file instead (see [`super::spill`]).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::sync::Mutex;

use indexmap::IndexMap;

use super::read::{ReadError, MAX_SYMLINK_HOPS};
pub use super::spill::Content;
use super::spill::{SpillConfig, SpillStore};

/// Type of a file system object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    Fifo,
    Socket,
    Other,
}

/// `lstat` of an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Meta {
    pub kind: Kind,
    /// Permission bits with set-id and sticky bits (`07777`).
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub size: u64,
    pub atime: i64,
    pub mtime: i64,
    pub ctime: i64,
    pub nlink: u64,
    pub ino: u64,
}

impl Kind {
    /// The name used in `--changes=json`, the result JSON and test specs.
    pub fn name(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "directory",
            Kind::Symlink => "symlink",
            Kind::Fifo => "fifo",
            Kind::Socket => "socket",
            Kind::Other => "other",
        }
    }
}

impl Meta {
    /// A fresh object of `kind` made at `now`, owned by root.
    pub fn new(kind: Kind, mode: u32, now: i64) -> Meta {
        Meta {
            kind,
            mode: mode & 0o7777,
            uid: 0,
            gid: 0,
            size: if kind == Kind::Dir { 4096 } else { 0 },
            atime: now,
            mtime: now,
            ctime: now,
            nlink: if kind == Kind::Dir { 2 } else { 1 },
            ino: 0,
        }
    }

    /// The `st_mode` value: type bits and permission bits.
    pub fn st_mode(&self) -> u32 {
        let t = match self.kind {
            Kind::File => 0o100000,
            Kind::Dir => 0o040000,
            Kind::Symlink => 0o120000,
            Kind::Fifo => 0o010000,
            Kind::Socket => 0o140000,
            Kind::Other => 0o020000,
        };
        t | self.mode
    }
}

/// An object of the overlay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    pub meta: Meta,
    /// Contents of a regular file.
    pub content: Option<Content>,
    /// Target of a symbolic link.
    pub target: Option<String>,
    /// A directory made by the run over nothing (or over a removed object): the base's entries
    /// below it are hidden.
    pub opaque: bool,
}

/// The read-only file system under the overlay. Paths given are absolute and normalised, and none
/// of their parents is a symbolic link (the [`Vfs`] resolves them first).
pub trait BaseFs {
    /// `lstat`; `None` if nothing is there.
    fn lstat(&self, path: &str) -> Option<Meta>;
    /// Contents of a regular file, at most `max` bytes.
    fn read(&self, path: &str, max: u64) -> Result<Vec<u8>, ReadError>;
    /// Target of a symbolic link.
    fn readlink(&self, path: &str) -> Option<String>;
    /// Names in a directory (any order).
    fn list(&self, path: &str) -> Option<Vec<String>>;
}

/// A base with nothing in it but `/`.
pub struct EmptyBase;

impl BaseFs for EmptyBase {
    fn lstat(&self, path: &str) -> Option<Meta> {
        (path == "/").then(|| Meta::new(Kind::Dir, 0o755, 0))
    }
    fn read(&self, _: &str, _: u64) -> Result<Vec<u8>, ReadError> {
        Err(ReadError::Unreadable)
    }
    fn readlink(&self, _: &str) -> Option<String> {
        None
    }
    fn list(&self, path: &str) -> Option<Vec<String>> {
        (path == "/").then(Vec::new)
    }
}

/// The promise acting on the file system (for `--changes=json`): set by the files promise being
/// evaluated, recorded with every change it makes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub bundle: String,
    pub handle: Option<String>,
    pub file: String,
    pub line: usize,
}

/// What a change did to a path (for the journal and `--changes=json`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    pub action: &'static str,
}

/// Why a write failed (the agent's message is chosen by the caller).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FsError {
    /// A component of the parent is missing.
    NoParent,
    /// A component of the parent is not a directory.
    NotDir(String),
    /// The path is a directory where a file was expected (or the reverse).
    IsDir,
    /// Nothing is there.
    Missing,
    /// Too many symbolic links.
    Loop,
    /// The directory is not empty.
    NotEmpty,
}

/// Answers of the base, kept for the run (a mutex so that a state can be handed to another thread).
#[derive(Debug, Default)]
struct BaseCache(Mutex<HashMap<String, Option<Meta>, crate::fasthash::FastState>>);

impl Clone for BaseCache {
    fn clone(&self) -> Self {
        let map = match self.0.lock() {
            Ok(m) => m.clone(),
            Err(p) => p.into_inner().clone(),
        };
        BaseCache(Mutex::new(map))
    }
}

impl BaseCache {
    fn get(&self, path: &str) -> Option<Option<Meta>> {
        match self.0.lock() {
            Ok(m) => m.get(path).cloned(),
            Err(p) => p.into_inner().get(path).cloned(),
        }
    }
    fn put(&self, path: &str, m: Option<Meta>) {
        match self.0.lock() {
            Ok(mut c) => {
                c.insert(path.to_string(), m);
            }
            Err(p) => {
                p.into_inner().insert(path.to_string(), m);
            }
        }
    }
}

/// Base contents handed out by [`Vfs::read`] and still held somewhere (a backup node, an edit in
/// progress): recording a path's original state reuses them instead of reading the file again, so an
/// edited file's original and its backup share one buffer.
#[derive(Debug, Default)]
struct ReadCache(Mutex<HashMap<String, std::sync::Weak<Vec<u8>>, crate::fasthash::FastState>>);

impl Clone for ReadCache {
    fn clone(&self) -> Self {
        ReadCache::default()
    }
}

impl ReadCache {
    fn get(&self, path: &str) -> Option<Arc<Vec<u8>>> {
        let m = match self.0.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        m.get(path).and_then(std::sync::Weak::upgrade)
    }
    fn put(&self, path: &str, c: &Arc<Vec<u8>>) {
        let mut m = match self.0.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        m.insert(path.to_string(), Arc::downgrade(c));
    }
}

/// The overlay over a base. One per run.
#[derive(Debug, Default, Clone)]
pub struct Vfs {
    /// Path → object (`None`: removed by the run).
    overlay: BTreeMap<String, Option<Node>>,
    /// The state of each changed path before its first change, in first-change order.
    originals: IndexMap<String, Option<Node>>,
    /// Every change in order.
    changes: Vec<Change>,
    /// The promise acting now (see [`Actor`]).
    pub actor: Option<Actor>,
    /// The promises that changed each path, in order, each once.
    actors: IndexMap<String, Vec<Arc<Actor>>>,
    /// The last actor recorded, shared by the paths it changed (one copy per promise, not per path).
    last_actor: Option<Arc<Actor>>,
    /// Renames made by the run: (new, old).
    renames: Vec<(String, String)>,
    /// Base `lstat` answers already asked for (the base does not change during a run).
    base_cache: BaseCache,
    /// Base contents still in use (see [`ReadCache`]).
    read_cache: ReadCache,
    /// Paths files promises looked at, in order (the `--simulate` report goes by the agent's own
    /// lists instead: [`Vfs::keep`], [`Vfs::mark_changed`]).
    evaluated: IndexMap<String, ()>,
    /// The agent's list of evaluated files (`RecordFileEvaluatedInChroot`), as the paths were
    /// written, in order (`--simulate=manifest-full` manifests those not shown as changed).
    kept: Vec<String>,
    /// The agent's list of changed files (`RecordFileChangedInChroot`), normalised, in first-record
    /// order (the `--simulate` report shows these).
    reported: IndexMap<String, ()>,
    /// `--simulate`: the paths the agent has mirrored into its changes chroot so far.
    mirrored: HashSet<String>,
    /// The agent's change database (`changes` bodies), see [`super::changedb`].
    pub change_db: BTreeMap<String, String>,
    /// Whether [`Vfs::change_db`] was read from the host yet.
    pub change_db_loaded: bool,
    /// Seconds since the epoch used for the times of changed objects.
    pub now: i64,
    /// Largest file read (bytes).
    pub max_read: u64,
    /// Where contents past the memory budget go (`None`: all stay in memory).
    spill: Option<Arc<SpillStore>>,
}

use super::read::components;

/// `/` + components.
fn join(done: &[String]) -> String {
    if done.is_empty() {
        return "/".into();
    }
    let mut s = String::new();
    for c in done {
        s.push('/');
        s.push_str(c);
    }
    s
}

/// The lexically normalised absolute form of `path` (`.` and empty components removed, `..` applied,
/// never above `/`). Symlinks are not looked at.
pub fn normalize(path: &str) -> String {
    let mut done: Vec<String> = Vec::new();
    for c in components(path) {
        if c == ".." {
            done.pop();
        } else {
            done.push(c.to_string());
        }
    }
    join(&done)
}

/// The parent directory of a normalised path (`/` for `/`).
pub fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// The last component of a normalised path.
pub fn leaf(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

impl Vfs {
    /// An empty overlay; changed objects get times `now`.
    pub fn new(now: i64) -> Vfs {
        Vfs {
            now,
            max_read: super::read::MAX_READ_BYTES,
            ..Vfs::default()
        }
    }

    /// `lstat` of `path` on the base (exact path), answered once per run.
    pub fn base_lstat(&self, base: &dyn BaseFs, path: &str) -> Option<Meta> {
        if let Some(m) = self.base_cache.get(path) {
            return m;
        }
        let m = base.lstat(path);
        self.base_cache.put(path, m.clone());
        m
    }

    /// `lstat` of a path whose parents are known to contain no symlink: the overlay if it has the
    /// path, nothing if an ancestor was removed or replaced, the base otherwise.
    fn lstat_exact(&self, base: &dyn BaseFs, path: &str) -> Option<Meta> {
        if let Some(n) = self.overlay.get(path) {
            return n.as_ref().map(|n| n.meta.clone());
        }
        if self.hidden(path) {
            return None;
        }
        self.base_lstat(base, path)
    }

    /// Whether an ancestor of `path` in the overlay hides the base below it (removed, not a
    /// directory, or an opaque directory).
    fn hidden(&self, path: &str) -> bool {
        if self.overlay.is_empty() {
            return false;
        }
        let mut p = path;
        while p != "/" {
            p = parent(p);
            if let Some(n) = self.overlay.get(p) {
                return match n {
                    None => true,
                    Some(n) => n.meta.kind != Kind::Dir || n.opaque,
                };
            }
        }
        false
    }

    /// Resolves `path` in the virtual namespace: every symlink among the parents is followed, the
    /// last component too when `follow`. `Err(Loop)` past [`MAX_SYMLINK_HOPS`] links. The result is
    /// normalised; it may not exist.
    pub fn resolve(&self, base: &dyn BaseFs, path: &str, follow: bool) -> Result<String, FsError> {
        use std::borrow::Cow;
        let mut todo: std::collections::VecDeque<Cow<'_, str>> =
            components(path).map(Cow::Borrowed).collect();
        // the components done so far, as the path they make (`/a/b`, empty for `/`), and where each
        // one starts in it
        let mut here = String::with_capacity(path.len() + 1);
        let mut starts: Vec<usize> = Vec::new();
        let mut hops = 0;
        while let Some(c) = todo.pop_front() {
            if c == ".." {
                if let Some(at) = starts.pop() {
                    here.truncate(at);
                }
                continue;
            }
            starts.push(here.len());
            here.push('/');
            here.push_str(&c);
            if todo.is_empty() && !follow {
                break;
            }
            let Some(m) = self.lstat_exact(base, &here) else {
                // the rest does not exist: keep it as written (lexically)
                continue;
            };
            if m.kind != Kind::Symlink {
                continue;
            }
            hops += 1;
            if hops > MAX_SYMLINK_HOPS {
                return Err(FsError::Loop);
            }
            let Some(target) = self.readlink_exact(base, &here) else {
                continue;
            };
            if let Some(at) = starts.pop() {
                here.truncate(at);
            }
            if target.starts_with('/') {
                here.clear();
                starts.clear();
            }
            let mut next: std::collections::VecDeque<Cow<'_, str>> = components(&target)
                .map(|c| Cow::Owned(c.to_string()))
                .collect();
            next.extend(todo);
            todo = next;
        }
        if here.is_empty() {
            here.push('/');
        }
        Ok(here)
    }

    fn readlink_exact(&self, base: &dyn BaseFs, path: &str) -> Option<String> {
        if let Some(n) = self.overlay.get(path) {
            return n.as_ref().and_then(|n| n.target.clone());
        }
        if self.hidden(path) {
            return None;
        }
        base.readlink(path)
    }

    /// `lstat` (`follow` false) or `stat` of `path`.
    pub fn stat(&self, base: &dyn BaseFs, path: &str, follow: bool) -> Option<Meta> {
        let p = self.resolve(base, path, follow).ok()?;
        self.lstat_exact(base, &p)
    }

    /// Target of the symbolic link `path`.
    pub fn readlink(&self, base: &dyn BaseFs, path: &str) -> Option<String> {
        let p = self.resolve(base, path, false).ok()?;
        self.readlink_exact(base, &p)
    }

    /// Contents of the regular file at `path` (symlinks followed), at most `max_read` bytes.
    pub fn read(&self, base: &dyn BaseFs, path: &str) -> Result<Arc<Vec<u8>>, ReadError> {
        let p = self
            .resolve(base, path, true)
            .map_err(|_| ReadError::Unreadable)?;
        if let Some(n) = self.overlay.get(&p) {
            return match n {
                Some(Node {
                    content: Some(c), ..
                }) => {
                    if c.len() as u64 > self.max_read {
                        Err(ReadError::TooLarge)
                    } else {
                        c.load().map_err(|_| ReadError::Unreadable)
                    }
                }
                _ => Err(ReadError::Unreadable),
            };
        }
        if self.hidden(&p) {
            return Err(ReadError::Unreadable);
        }
        match self.base_lstat(base, &p) {
            Some(m) if m.kind == Kind::File => {
                if let Some(c) = self.read_cache.get(&p) {
                    return Ok(c);
                }
                let c = Arc::new(base.read(&p, self.max_read)?);
                self.read_cache.put(&p, &c);
                Ok(c)
            }
            _ => Err(ReadError::Unreadable),
        }
    }

    /// Names in the directory `path` (symlinks followed), sorted; `None` if it is not a directory.
    pub fn list(&self, base: &dyn BaseFs, path: &str) -> Option<Vec<String>> {
        let p = self.resolve(base, path, true).ok()?;
        let m = self.lstat_exact(base, &p)?;
        if m.kind != Kind::Dir {
            return None;
        }
        let opaque = matches!(self.overlay.get(&p), Some(Some(n)) if n.opaque);
        let mut names: std::collections::BTreeSet<String> = if opaque || self.hidden(&p) {
            Default::default()
        } else {
            base.list(&p).unwrap_or_default().into_iter().collect()
        };
        let prefix = if p == "/" {
            "/".to_string()
        } else {
            format!("{p}/")
        };
        for (k, v) in self.overlay.range(prefix.clone()..) {
            let Some(rest) = k.strip_prefix(&prefix) else {
                break;
            };
            if rest.is_empty() || rest.contains('/') {
                continue;
            }
            if v.is_some() {
                names.insert(rest.to_string());
            } else {
                names.remove(rest);
            }
        }
        Some(names.into_iter().collect())
    }

    /// The whole object at the exact (resolved) path, for recording originals.
    fn node_exact(&self, base: &dyn BaseFs, path: &str) -> Option<Node> {
        if let Some(n) = self.overlay.get(path) {
            return n.clone();
        }
        let meta = self.lstat_exact(base, path)?;
        let content = match meta.kind {
            Kind::File => self
                .read_cache
                .get(path)
                .or_else(|| base.read(path, self.max_read).ok().map(Arc::new))
                .map(Content::Mem),
            _ => None,
        };
        let target = match meta.kind {
            Kind::Symlink => base.readlink(path),
            _ => None,
        };
        Some(Node {
            meta,
            content,
            target,
            opaque: false,
        })
    }

    /// [`Vfs::node_exact`] to be kept by the run: contents read from the base go through the spill
    /// store.
    fn node_held(&self, base: &dyn BaseFs, path: &str) -> Option<Node> {
        if let Some(n) = self.overlay.get(path) {
            return n.clone();
        }
        let mut n = self.node_exact(base, path)?;
        n.content = n.content.map(|c| self.hold(c));
        Some(n)
    }

    /// `c` as the run keeps it (in memory, or spilled past the budget).
    fn hold(&self, c: Content) -> Content {
        match (&self.spill, c) {
            (Some(s), Content::Mem(m)) => s.admit(m),
            (_, c) => c,
        }
    }

    /// Sets where contents past the memory budget go (before the run changes anything).
    pub fn set_spill(&mut self, cfg: &SpillConfig) {
        self.spill = cfg.budget.map(|_| Arc::new(SpillStore::new(cfg)));
    }

    /// Bytes of contents written to the spill file so far.
    pub fn spilled_bytes(&self) -> u64 {
        self.spill.as_ref().map_or(0, |s| s.spilled_bytes())
    }

    fn remember(&mut self, base: &dyn BaseFs, path: &str) {
        if !self.originals.contains_key(path) {
            let n = self.node_held(base, path);
            self.originals.insert(path.to_string(), n);
        }
    }

    fn record(&mut self, path: &str, action: &'static str) {
        self.changes.push(Change {
            path: path.to_string(),
            action,
        });
        if let Some(a) = &self.actor {
            let shared = match &self.last_actor {
                Some(l) if **l == *a => Arc::clone(l),
                _ => {
                    let l = Arc::new(a.clone());
                    self.last_actor = Some(Arc::clone(&l));
                    l
                }
            };
            let list = self.actors.entry(path.to_string()).or_default();
            if !list.iter().any(|x| **x == *a) {
                list.push(shared);
            }
        }
    }

    /// The promises that changed `path` (exact path) in this run.
    pub fn actors_of(&self, path: &str) -> Vec<Actor> {
        self.actors
            .get(path)
            .map_or_else(Vec::new, |l| l.iter().map(|a| (**a).clone()).collect())
    }

    /// The parent of `path` must be an existing directory (after resolution).
    fn check_parent(&self, base: &dyn BaseFs, path: &str) -> Result<(), FsError> {
        let par = parent(path);
        match self.stat(base, par, true) {
            Some(m) if m.kind == Kind::Dir => Ok(()),
            Some(_) => Err(FsError::NotDir(par.to_string())),
            None => Err(FsError::NoParent),
        }
    }

    /// Writes the regular file `path` (a final symlink is followed): its contents change, its mode and
    /// owner stay; a new file gets `mode` and root as owner.
    pub fn write_file(
        &mut self,
        base: &dyn BaseFs,
        path: &str,
        content: Vec<u8>,
        mode: u32,
    ) -> Result<(), FsError> {
        self.write_file_shared(base, path, Arc::new(content), mode)
    }

    /// [`Vfs::write_file`] with contents that may be shared with other nodes (a backup of a file).
    pub fn write_file_shared(
        &mut self,
        base: &dyn BaseFs,
        path: &str,
        content: Arc<Vec<u8>>,
        mode: u32,
    ) -> Result<(), FsError> {
        let p = self.resolve(base, path, true)?;
        let existing = self.lstat_exact(base, &p);
        let created = existing.is_none();
        let mut meta = match existing {
            Some(m) if m.kind == Kind::Dir => return Err(FsError::IsDir),
            Some(m) if m.kind == Kind::File => m,
            Some(_) => return Err(FsError::IsDir),
            None => {
                self.check_parent(base, &p)?;
                Meta::new(Kind::File, mode, self.now)
            }
        };
        self.remember(base, &p);
        meta.size = content.len() as u64;
        meta.mtime = self.now;
        meta.ctime = self.now;
        let content = self.hold(Content::Mem(content));
        self.overlay.insert(
            p.clone(),
            Some(Node {
                meta,
                content: Some(content),
                target: None,
                opaque: false,
            }),
        );
        self.record(&p, if created { "create" } else { "write" });
        Ok(())
    }

    /// Adds the new object `node` at `path` (nothing may be there, the parent must exist).
    fn make(
        &mut self,
        base: &dyn BaseFs,
        path: &str,
        node: Node,
        action: &'static str,
    ) -> Result<(), FsError> {
        let p = self.resolve(base, path, false)?;
        if self.lstat_exact(base, &p).is_some() {
            return Err(FsError::IsDir);
        }
        self.check_parent(base, &p)?;
        self.remember(base, &p);
        self.overlay.insert(p.clone(), Some(node));
        self.record(&p, action);
        Ok(())
    }

    /// Makes the directory `path` (the parent must exist).
    pub fn mkdir(&mut self, base: &dyn BaseFs, path: &str, mode: u32) -> Result<(), FsError> {
        let node = Node {
            meta: Meta::new(Kind::Dir, mode, self.now),
            content: None,
            target: None,
            opaque: true,
        };
        self.make(base, path, node, "mkdir")
    }

    /// Makes a named pipe `path` (the parent must exist, nothing may be at `path`).
    pub fn mkfifo(&mut self, base: &dyn BaseFs, path: &str, mode: u32) -> Result<(), FsError> {
        let node = Node {
            meta: Meta::new(Kind::Fifo, mode, self.now),
            content: None,
            target: None,
            opaque: false,
        };
        self.make(base, path, node, "mkfifo")
    }

    /// Makes a symbolic link `path` → `target` (nothing may be at `path`).
    pub fn symlink(&mut self, base: &dyn BaseFs, path: &str, target: &str) -> Result<(), FsError> {
        let mut meta = Meta::new(Kind::Symlink, 0o777, self.now);
        meta.size = target.len() as u64;
        let node = Node {
            meta,
            content: None,
            target: Some(target.to_string()),
            opaque: false,
        };
        self.make(base, path, node, "symlink")
    }

    /// Removes the object at `path` (a final symlink is removed, not followed); a directory must be
    /// empty unless `recursive`.
    pub fn remove(
        &mut self,
        base: &dyn BaseFs,
        path: &str,
        recursive: bool,
    ) -> Result<(), FsError> {
        let p = self.resolve(base, path, false)?;
        let Some(m) = self.lstat_exact(base, &p) else {
            return Err(FsError::Missing);
        };
        if m.kind == Kind::Dir && !recursive && !self.list(base, &p).unwrap_or_default().is_empty()
        {
            return Err(FsError::NotEmpty);
        }
        self.remember(base, &p);
        // drop overlay entries below it (they are hidden by the removal anyway)
        let prefix = format!("{p}/");
        let below: Vec<String> = self
            .overlay
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .map(|(k, _)| k.clone())
            .collect();
        for k in below {
            self.overlay.remove(&k);
        }
        self.overlay.insert(p.clone(), None);
        self.record(&p, "remove");
        Ok(())
    }

    /// Changes metadata of the object at `path` (symlinks followed when `follow`) with `f`.
    pub fn set_meta(
        &mut self,
        base: &dyn BaseFs,
        path: &str,
        follow: bool,
        action: &'static str,
        f: impl FnOnce(&mut Meta),
    ) -> Result<(), FsError> {
        let p = self.resolve(base, path, follow)?;
        let Some(mut node) = self.node_held(base, &p) else {
            return Err(FsError::Missing);
        };
        self.remember(base, &p);
        f(&mut node.meta);
        node.meta.ctime = self.now;
        self.overlay.insert(p.clone(), Some(node));
        self.record(&p, action);
        Ok(())
    }

    /// Moves the object at `from` to `to` (replacing what is there, a directory with everything in
    /// it).
    pub fn rename(&mut self, base: &dyn BaseFs, from: &str, to: &str) -> Result<(), FsError> {
        let f = self.resolve(base, from, false)?;
        let t = self.resolve(base, to, false)?;
        if f == t {
            return Ok(());
        }
        self.check_parent(base, &t)?;
        let Some(node) = self.node_held(base, &f) else {
            return Err(FsError::Missing);
        };
        // materialise the subtree of a directory under its new name
        let mut moved: Vec<(String, Node)> = Vec::new();
        if node.meta.kind == Kind::Dir {
            self.collect_subtree(base, &f, &t, &mut moved, 0);
        }
        self.remember(base, &f);
        self.remember(base, &t);
        if self.lstat_exact(base, &t).is_some() {
            self.remove(base, &t, true)?;
        }
        let mut node = node;
        node.opaque = true;
        node.meta.ctime = self.now;
        self.overlay.insert(t.clone(), Some(node));
        for (p, n) in moved {
            self.overlay.insert(p, Some(n));
        }
        self.remove(base, &f, true)?;
        self.renames.push((t.clone(), f.clone()));
        self.record(&t, "rename");
        Ok(())
    }

    /// [`Vfs::rename`], not listed among the renames made by the run (a file moved out of the way).
    pub fn rename_unlisted(
        &mut self,
        base: &dyn BaseFs,
        from: &str,
        to: &str,
    ) -> Result<(), FsError> {
        let n = self.renames.len();
        let r = self.rename(base, from, to);
        self.renames.truncate(n);
        r
    }

    fn collect_subtree(
        &self,
        base: &dyn BaseFs,
        from: &str,
        to: &str,
        out: &mut Vec<(String, Node)>,
        depth: usize,
    ) {
        if depth > 4096 {
            return;
        }
        for name in self.list(base, from).unwrap_or_default() {
            let fp = format!("{}/{name}", from.trim_end_matches('/'));
            let tp = format!("{}/{name}", to.trim_end_matches('/'));
            if let Some(mut n) = self.node_held(base, &fp) {
                let is_dir = n.meta.kind == Kind::Dir;
                if is_dir {
                    n.opaque = true;
                }
                out.push((tp.clone(), n));
                if is_dir {
                    self.collect_subtree(base, &fp, &tp, out, depth + 1);
                }
            }
        }
    }

    /// Changed paths in first-change order with their state before the run.
    pub fn originals(&self) -> impl Iterator<Item = (&str, Option<&Node>)> {
        self.originals.iter().map(|(k, v)| (k.as_str(), v.as_ref()))
    }

    /// The object at `path` now (exact path, no symlink resolution of the last component).
    pub fn node(&self, base: &dyn BaseFs, path: &str) -> Option<Node> {
        let p = self.resolve(base, path, false).ok()?;
        self.node_exact(base, &p)
    }

    /// The state this run ended with, as the start of another run (the convergence check): the
    /// overlay stays, the record of changes starts empty.
    pub fn carried(&self) -> Vfs {
        Vfs {
            overlay: self.overlay.clone(),
            originals: IndexMap::new(),
            changes: Vec::new(),
            actor: None,
            actors: IndexMap::new(),
            last_actor: None,
            renames: Vec::new(),
            evaluated: IndexMap::new(),
            kept: Vec::new(),
            reported: IndexMap::new(),
            mirrored: HashSet::new(),
            base_cache: self.base_cache.clone(),
            read_cache: ReadCache::default(),
            change_db: BTreeMap::new(),
            change_db_loaded: false,
            now: self.now,
            max_read: self.max_read,
            spill: self.spill.clone(),
        }
    }

    /// Notes that a files promise looked at `path` (lexically normalised).
    pub fn note(&mut self, path: &str) {
        self.evaluated.insert(normalize(path), ());
    }

    /// Records `path` (as written, not normalised) in the list of evaluated files the agent keeps
    /// for `--simulate=manifest-full`.
    pub fn keep(&mut self, path: &str) {
        self.kept.push(path.to_string());
    }

    /// Records `path` in the list of changed files the agent keeps for `--simulate` (its state
    /// before the run is remembered now if the run has not changed it yet).
    pub fn mark_changed(&mut self, base: &dyn BaseFs, path: &str) {
        let p = normalize(path);
        self.remember(base, &p);
        self.reported.insert(p, ());
    }

    /// Notes that the agent's changes chroot now holds `path` (normalised).
    pub fn mirror(&mut self, path: &str) {
        self.mirrored.insert(path.to_string());
    }

    /// Whether the agent's changes chroot holds `path` (normalised): mirrored, or touched by the run.
    pub fn in_chroot(&self, path: &str) -> bool {
        self.mirrored.contains(path) || self.originals.contains_key(path)
    }

    /// Whether the run changed `path` (normalised) itself (as opposed to the agent mirroring it).
    pub fn in_chroot_changed(&self, path: &str) -> bool {
        self.originals.contains_key(path)
    }

    /// The paths recorded with [`Vfs::mark_changed`], in first-record order.
    pub fn reported(&self) -> impl Iterator<Item = &str> {
        self.reported.keys().map(String::as_str)
    }

    /// The paths recorded with [`Vfs::keep`], in order (repeats included).
    pub fn kept(&self) -> &[String] {
        &self.kept
    }

    /// The paths noted with [`Vfs::note`], in order.
    pub fn evaluated(&self) -> impl Iterator<Item = &str> {
        self.evaluated.keys().map(String::as_str)
    }

    /// The state of `path` before the run (exact path).
    pub fn original(&self, base: &dyn BaseFs, path: &str) -> Option<Node> {
        match self.originals.get(path) {
            Some(n) => n.clone(),
            None => self.node_exact(base, path),
        }
    }

    /// Whether the run changed `path` (its state differs from the one before the run).
    pub fn changed(&self, base: &dyn BaseFs, path: &str) -> bool {
        self.originals.contains_key(path) && self.original(base, path) != self.node(base, path)
    }

    /// Every change in order.
    pub fn journal(&self) -> &[Change] {
        &self.changes
    }

    /// Renames made by the run: (new name, old name).
    pub fn renames(&self) -> &[(String, String)] {
        &self.renames
    }

    /// Whether the run changed anything.
    pub fn is_changed(&self) -> bool {
        !self.changes.is_empty()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A base from a list of (path, kind, content-or-target).
    struct MapBase(Vec<(&'static str, Kind, &'static str)>);

    impl BaseFs for MapBase {
        fn lstat(&self, path: &str) -> Option<Meta> {
            if path == "/" {
                return Some(Meta::new(Kind::Dir, 0o755, 0));
            }
            self.0.iter().find(|e| e.0 == path).map(|e| {
                let mut m = Meta::new(e.1, 0o644, 0);
                m.size = e.2.len() as u64;
                m
            })
        }
        fn read(&self, path: &str, _: u64) -> Result<Vec<u8>, ReadError> {
            self.0
                .iter()
                .find(|e| e.0 == path && e.1 == Kind::File)
                .map(|e| e.2.as_bytes().to_vec())
                .ok_or(ReadError::Unreadable)
        }
        fn readlink(&self, path: &str) -> Option<String> {
            self.0
                .iter()
                .find(|e| e.0 == path && e.1 == Kind::Symlink)
                .map(|e| e.2.to_string())
        }
        fn list(&self, path: &str) -> Option<Vec<String>> {
            let prefix = if path == "/" {
                "/".to_string()
            } else {
                format!("{path}/")
            };
            Some(
                self.0
                    .iter()
                    .filter_map(|e| e.0.strip_prefix(&prefix))
                    .filter(|r| !r.contains('/'))
                    .map(str::to_string)
                    .collect(),
            )
        }
    }

    fn base() -> MapBase {
        MapBase(vec![
            ("/etc", Kind::Dir, ""),
            ("/etc/motd", Kind::File, "hello\n"),
            ("/etc/link", Kind::Symlink, "motd"),
            ("/etc/abs", Kind::Symlink, "/etc/motd"),
            ("/etc/up", Kind::Symlink, "../../../etc/motd"),
            ("/etc/loop1", Kind::Symlink, "loop2"),
            ("/etc/loop2", Kind::Symlink, "loop1"),
            ("/etc/d", Kind::Dir, ""),
            ("/etc/d/a", Kind::File, "a"),
        ])
    }

    #[test]
    fn reads_follow_links_and_stay_in_the_namespace() {
        let b = base();
        let v = Vfs::new(100);
        assert_eq!(
            v.read(&b, "/etc/link").map(|c| c.to_vec()),
            Ok(b"hello\n".to_vec())
        );
        assert_eq!(
            v.read(&b, "/etc/abs").map(|c| c.to_vec()),
            Ok(b"hello\n".to_vec())
        );
        assert_eq!(
            v.read(&b, "/etc/up").map(|c| c.to_vec()),
            Ok(b"hello\n".to_vec())
        );
        assert_eq!(v.resolve(&b, "/etc/loop1", true), Err(FsError::Loop));
        assert_eq!(
            v.stat(&b, "/etc/link", false).map(|m| m.kind),
            Some(Kind::Symlink)
        );
    }

    #[test]
    fn overlay_changes_are_seen_and_base_is_kept() {
        let b = base();
        let mut v = Vfs::new(100);
        assert_eq!(v.write_file(&b, "/etc/new", b"x".to_vec(), 0o600), Ok(()));
        assert_eq!(
            v.list(&b, "/etc"),
            Some(
                ["abs", "d", "link", "loop1", "loop2", "motd", "new", "up"]
                    .map(String::from)
                    .to_vec()
            )
        );
        assert_eq!(v.remove(&b, "/etc/d", false), Err(FsError::NotEmpty));
        assert_eq!(v.remove(&b, "/etc/d", true), Ok(()));
        assert_eq!(v.stat(&b, "/etc/d/a", false), None);
        assert_eq!(v.mkdir(&b, "/etc/d", 0o700), Ok(()));
        // the base's old entries do not come back under a new directory
        assert_eq!(v.list(&b, "/etc/d"), Some(vec![]));
        assert_eq!(
            v.write_file(&b, "/nope/x", vec![], 0o600),
            Err(FsError::NoParent)
        );
        assert_eq!(
            v.write_file(&b, "/etc/motd/x", vec![], 0o600),
            Err(FsError::NotDir("/etc/motd".into()))
        );
        // writing through a link changes the target
        assert_eq!(
            v.write_file(&b, "/etc/link", b"bye\n".to_vec(), 0o600),
            Ok(())
        );
        assert_eq!(
            v.read(&b, "/etc/motd").map(|c| c.to_vec()),
            Ok(b"bye\n".to_vec())
        );
        let changed: Vec<&str> = v.originals().map(|(p, _)| p).collect();
        assert_eq!(changed, vec!["/etc/new", "/etc/d", "/etc/motd"]);
    }

    #[test]
    fn spilled_contents_read_back_for_later_promises_and_the_journal() {
        let b = MapBase(vec![
            ("/etc", Kind::Dir, ""),
            (
                "/etc/big",
                Kind::File,
                Box::leak("x".repeat(10_000).into_boxed_str()),
            ),
        ]);
        let dir = std::env::temp_dir().join(format!("cfsim-vfs-spill-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut v = Vfs::new(100);
        v.set_spill(&SpillConfig {
            dir: Some(dir.clone()),
            budget: Some(0),
        });
        let new = "y".repeat(20_000).into_bytes();
        assert_eq!(v.write_file(&b, "/etc/big", new.clone(), 0o600), Ok(()));
        // the new contents and the original both went to the spill file
        assert_eq!(v.spilled_bytes(), 30_000);
        assert_eq!(v.read(&b, "/etc/big").map(|c| c.to_vec()), Ok(new.clone()));
        let orig = v.original(&b, "/etc/big").and_then(|n| n.content).unwrap();
        assert_eq!(orig.bytes().len(), 10_000);
        assert!(v.changed(&b, "/etc/big"));
        // a carried state (the convergence check) still reads them
        let c = v.carried();
        assert_eq!(c.read(&b, "/etc/big").map(|c| c.to_vec()), Ok(new));
        // the spill file is anonymous: nothing is left in the directory
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn rename_moves_a_subtree() {
        let b = base();
        let mut v = Vfs::new(100);
        assert_eq!(v.rename(&b, "/etc/d", "/etc/e"), Ok(()));
        assert_eq!(
            v.read(&b, "/etc/e/a").map(|c| c.to_vec()),
            Ok(b"a".to_vec())
        );
        assert_eq!(v.stat(&b, "/etc/d", false), None);
        assert_eq!(v.renames(), &[("/etc/e".to_string(), "/etc/d".to_string())]);
    }

    #[test]
    fn normalize_never_goes_above_the_root() {
        assert_eq!(normalize("/../a/./b/../c//"), "/a/c");
        assert_eq!(normalize(""), "/");
        assert_eq!(parent("/a"), "/");
        assert_eq!(parent("/a/b"), "/a");
        assert_eq!(leaf("/a/b"), "b");
    }
}
