//! File contents held by the run's virtual file system ([`Content`]), in memory or spilled to a private
//! temporary file ([`SpillStore`]): once the contents kept in memory pass a budget, larger ones are
//! appended to one anonymous file of the run (created `0600` in the spill directory, `$TMPDIR` by
//! default, and unlinked at once, so it disappears when the run ends, however it ends) and read back
//! when asked for. The temporary file is cfsim's scratch space, never part of the simulated host: it
//! is made outside the host's `files_root` and unlinked the moment it is created.

use std::fs::File;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

/// Contents smaller than this always stay in memory (a spill would cost more than it saves).
pub const MIN_SPILL: usize = 4096;

/// Default budget of contents kept in memory before spilling ([`SpillConfig::budget`]).
pub const DEFAULT_BUDGET: u64 = 1 << 20;

/// Where and when contents spill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpillConfig {
    /// Directory of the temporary file (`None`: `$TMPDIR`, else `/tmp`).
    pub dir: Option<PathBuf>,
    /// Bytes of contents kept in memory before larger ones spill; `None`: never spill.
    pub budget: Option<u64>,
}

impl Default for SpillConfig {
    fn default() -> Self {
        SpillConfig {
            dir: None,
            budget: Some(DEFAULT_BUDGET),
        }
    }
}

/// Parses a size: bytes, or with a `K`, `M` or `G` suffix (powers of 1024); `none` or `unlimited`
/// for no limit (`Ok(None)`).
pub fn parse_size(s: &str) -> Result<Option<u64>, String> {
    let t = s.trim();
    if matches!(t, "none" | "unlimited") {
        return Ok(None);
    }
    let (num, mul) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1u64 << 10),
        Some((i, 'm' | 'M')) => (&t[..i], 1 << 20),
        Some((i, 'g' | 'G')) => (&t[..i], 1 << 30),
        _ => (t, 1),
    };
    num.parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mul))
        .map(Some)
        .ok_or_else(|| {
            format!("'{s}' is not a size (bytes, or a number with K, M or G; or 'none')")
        })
}

impl SpillConfig {
    /// The directory the temporary file goes to.
    pub fn effective_dir(&self) -> PathBuf {
        self.dir.clone().unwrap_or_else(std::env::temp_dir)
    }

    /// This configuration for a host whose files are under `files_root` (the simulated host's own
    /// files must never receive the spill file): a `--spill-dir` inside it is refused; the default
    /// directory inside it means no spilling.
    pub fn for_host(&self, files_root: Option<&Path>) -> Result<SpillConfig, String> {
        let (Some(root), Some(_)) = (files_root, self.budget) else {
            return Ok(self.clone());
        };
        let dir = self.effective_dir();
        let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        if !canon(&dir).starts_with(canon(root)) {
            return Ok(self.clone());
        }
        match &self.dir {
            Some(d) => Err(format!(
                "the spill directory '{}' is inside the host's files_root '{}': cfsim never writes there",
                d.display(),
                root.display()
            )),
            None => Ok(SpillConfig {
                dir: None,
                budget: None,
            }),
        }
    }
}

#[derive(Debug, Default)]
struct State {
    /// Bytes of contents admitted in memory so far (never decreases: an upper bound).
    resident: u64,
    /// End of the temporary file.
    end: u64,
}

/// The run's temporary file of spilled contents (append-only; shared by clones of the file system).
#[derive(Debug)]
pub struct SpillStore {
    dir: PathBuf,
    budget: Option<u64>,
    /// Opened on the first spill; `None` inside when it could not be made (contents then stay in
    /// memory).
    file: OnceLock<Option<File>>,
    state: Mutex<State>,
}

impl SpillStore {
    /// A store for `cfg` (nothing is created on disk before the first spill).
    pub fn new(cfg: &SpillConfig) -> SpillStore {
        SpillStore {
            dir: cfg.dir.clone().unwrap_or_else(std::env::temp_dir),
            budget: cfg.budget,
            file: OnceLock::new(),
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        match self.state.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    fn file(&self) -> Option<&File> {
        self.file.get_or_init(|| open_anonymous(&self.dir)).as_ref()
    }

    /// Bytes written to the temporary file so far.
    pub fn spilled_bytes(&self) -> u64 {
        self.state().end
    }

    /// `c` as held by the run: in memory while the budget lasts (or when it is small), else in the
    /// temporary file (in memory after all if the file cannot be written).
    pub fn admit(self: &Arc<Self>, c: Arc<Vec<u8>>) -> Content {
        let len = c.len() as u64;
        let mut st = self.state();
        let fits = match self.budget {
            None => true,
            Some(b) => c.len() < MIN_SPILL || st.resident.saturating_add(len) <= b,
        };
        if !fits {
            if let Some(f) = self.file() {
                let offset = st.end;
                if f.write_all_at(&c, offset).is_ok() {
                    st.end += len;
                    return Content::Disk(Spilled {
                        store: Arc::clone(self),
                        offset,
                        len,
                    });
                }
            }
        }
        st.resident = st.resident.saturating_add(len);
        Content::Mem(c)
    }
}

/// Makes a file only this process can reach: created new with mode `0600` under `dir`, then unlinked.
fn open_anonymous(dir: &Path) -> Option<File> {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    for attempt in 0..16u32 {
        let name = format!(".cfsim-spill-{}-{nanos:x}-{attempt}", std::process::id());
        let path = dir.join(name);
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)
        {
            Ok(f) => {
                // anonymous from now on: the space is freed when the last handle closes
                if std::fs::remove_file(&path).is_err() {
                    return None;
                }
                return Some(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(_) => return None,
        }
    }
    None
}

/// Contents in the temporary file.
#[derive(Debug, Clone)]
pub struct Spilled {
    store: Arc<SpillStore>,
    offset: u64,
    len: u64,
}

/// The contents of a regular file of the run.
#[derive(Debug, Clone)]
pub enum Content {
    Mem(Arc<Vec<u8>>),
    Disk(Spilled),
}

impl Content {
    /// Length in bytes (without reading spilled contents).
    pub fn len(&self) -> usize {
        match self {
            Content::Mem(c) => c.len(),
            Content::Disk(s) => usize::try_from(s.len).unwrap_or(usize::MAX),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes (read back from the temporary file when spilled).
    pub fn load(&self) -> std::io::Result<Arc<Vec<u8>>> {
        match self {
            Content::Mem(c) => Ok(Arc::clone(c)),
            Content::Disk(s) => {
                let Some(f) = s.store.file() else {
                    return Err(std::io::Error::other("the spill file is gone"));
                };
                let mut buf = vec![0u8; self.len()];
                f.read_exact_at(&mut buf, s.offset)?;
                Ok(Arc::new(buf))
            }
        }
    }

    /// The bytes, empty when spilled contents cannot be read back (a vanished spill file).
    pub fn bytes(&self) -> Arc<Vec<u8>> {
        self.load().unwrap_or_default()
    }

    /// Whether both are the same bytes in the same place (no reading).
    fn same_place(&self, other: &Content) -> bool {
        match (self, other) {
            (Content::Mem(a), Content::Mem(b)) => Arc::ptr_eq(a, b),
            (Content::Disk(a), Content::Disk(b)) => {
                Arc::ptr_eq(&a.store, &b.store) && a.offset == b.offset && a.len == b.len
            }
            _ => false,
        }
    }
}

impl PartialEq for Content {
    fn eq(&self, other: &Content) -> bool {
        if self.len() != other.len() {
            return false;
        }
        if self.same_place(other) {
            return true;
        }
        match (self, other) {
            (Content::Mem(a), Content::Mem(b)) => a == b,
            _ => match (self.load(), other.load()) {
                (Ok(a), Ok(b)) => a == b,
                _ => false,
            },
        }
    }
}

impl Eq for Content {}

impl From<Vec<u8>> for Content {
    fn from(v: Vec<u8>) -> Content {
        Content::Mem(Arc::new(v))
    }
}

impl From<Arc<Vec<u8>>> for Content {
    fn from(v: Arc<Vec<u8>>) -> Content {
        Content::Mem(v)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn store(budget: Option<u64>) -> (Arc<SpillStore>, PathBuf) {
        let dir = std::env::temp_dir().join(format!(
            "cfsim-spill-test-{}-{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let cfg = SpillConfig {
            dir: Some(dir.clone()),
            budget,
        };
        (Arc::new(SpillStore::new(&cfg)), dir)
    }

    #[test]
    fn contents_past_the_budget_spill_and_read_back() {
        let (s, dir) = store(Some(10_000));
        let a = s.admit(Arc::new(vec![b'a'; 8000]));
        let b = s.admit(Arc::new(vec![b'b'; 8000]));
        let small = s.admit(Arc::new(vec![b'c'; 10]));
        assert!(matches!(a, Content::Mem(_)));
        assert!(matches!(b, Content::Disk(_)));
        assert!(matches!(small, Content::Mem(_)));
        assert_eq!(s.spilled_bytes(), 8000);
        assert_eq!(b.len(), 8000);
        assert_eq!(*b.load().unwrap(), vec![b'b'; 8000]);
        assert_eq!(b, Content::from(vec![b'b'; 8000]));
        assert_ne!(b, Content::from(vec![b'a'; 8000]));
        // the file is anonymous: nothing is left in the directory
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn no_budget_keeps_everything_in_memory() {
        let (s, dir) = store(None);
        let a = s.admit(Arc::new(vec![0; 100_000]));
        assert!(matches!(a, Content::Mem(_)));
        assert_eq!(s.spilled_bytes(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn an_unwritable_directory_keeps_contents_in_memory() {
        let cfg = SpillConfig {
            dir: Some(PathBuf::from("/nonexistent/cfsim-spill")),
            budget: Some(0),
        };
        let s = Arc::new(SpillStore::new(&cfg));
        let a = s.admit(Arc::new(vec![1; 5000]));
        assert!(matches!(a, Content::Mem(_)));
        assert_eq!(*a.bytes(), vec![1; 5000]);
    }

    #[test]
    fn a_spill_dir_inside_the_files_root_is_refused() {
        let cfg = SpillConfig {
            dir: Some(PathBuf::from("/srv/root/tmp")),
            budget: Some(1),
        };
        assert!(cfg.for_host(Some(Path::new("/srv/root"))).is_err());
        assert_eq!(cfg.for_host(Some(Path::new("/srv/other"))), Ok(cfg.clone()));
        assert_eq!(cfg.for_host(None), Ok(cfg.clone()));
        let default_inside = SpillConfig {
            dir: None,
            budget: Some(1),
        };
        let root = std::env::temp_dir();
        assert_eq!(
            default_inside.for_host(Some(&root)).map(|c| c.budget),
            Ok(None)
        );
    }

    #[test]
    fn sizes_parse_with_suffixes() {
        assert_eq!(parse_size("4096"), Ok(Some(4096)));
        assert_eq!(parse_size("8K"), Ok(Some(8192)));
        assert_eq!(parse_size("2M"), Ok(Some(2 << 20)));
        assert_eq!(parse_size("1g"), Ok(Some(1 << 30)));
        assert_eq!(parse_size("none"), Ok(None));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("").is_err());
    }
}
