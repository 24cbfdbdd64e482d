//! hENC: the hierarchical external node classifier merge (`merge`), its provenance report (`explain`), its
//! pitfall checker (`lint`), the Puppet ENC built on it (`enc`, `yaml`) and the `cfsim henc` / `cfsim enc`
//! front ends (`cli`). Files are read through [`EncReader`], so the simulator's host abstraction can serve
//! them; [`FsReader`] reads the real file system for use on a real node.

pub mod cli;
pub mod enc;
pub mod explain;
pub mod lint;
pub mod merge;
pub mod yaml;

pub use merge::{merge, Merged, Source};

/// Supplies the bytes of an ENC file by name; `None` when it is missing or unreadable (hENC skips it).
pub trait EncReader {
    fn read(&self, name: &str) -> Option<Vec<u8>>;
}

/// Largest ENC file (or standard input) read: 64 MiB. An ENC file is lines of classes and variables;
/// anything larger is a mistake (`cfsim henc < /dev/zero`), reported instead of read.
pub const MAX_ENC_BYTES: u64 = 64 << 20;

pub use crate::host::read::ReadError;

/// Reads at most [`MAX_ENC_BYTES`] of `name` (`-`: standard input); only regular files are opened,
/// so a FIFO or `/dev/zero` cannot block or fill memory.
pub fn read_bounded(name: &str) -> Result<Vec<u8>, ReadError> {
    if name == "-" {
        crate::host::read::read_stdin(MAX_ENC_BYTES)
    } else {
        crate::host::read::read_regular(std::path::Path::new(name), MAX_ENC_BYTES)
    }
}

/// Reads the real file system (`-` is standard input, as with Perl's `<>`), through
/// [`read_bounded`]: what cannot be read in full counts as missing.
#[derive(Debug, Clone, Copy, Default)]
pub struct FsReader;

impl EncReader for FsReader {
    fn read(&self, name: &str) -> Option<Vec<u8>> {
        read_bounded(name).ok()
    }
}

/// An in-memory reader (tests, simulations): name → bytes.
#[derive(Debug, Clone, Default)]
pub struct MemReader {
    pub files: indexmap::IndexMap<String, Vec<u8>>,
}

impl MemReader {
    pub fn new() -> MemReader {
        MemReader::default()
    }

    /// Add a file; returns `self` for chaining.
    pub fn with(mut self, name: &str, text: &str) -> MemReader {
        self.files
            .insert(name.to_string(), text.as_bytes().to_vec());
        self
    }
}

impl EncReader for MemReader {
    fn read(&self, name: &str) -> Option<Vec<u8>> {
        self.files.get(name).cloned()
    }
}

/// Read every named file through `reader`, in order, keeping missing ones as `text: None`.
pub fn load(names: &[String], reader: &dyn EncReader) -> Vec<Source> {
    names
        .iter()
        .map(|n| Source {
            name: n.clone(),
            text: reader.read(n),
        })
        .collect()
}

/// Merge the named files read through `reader` and return the module output bytes.
pub fn merge_files(names: &[String], reader: &dyn EncReader) -> Vec<u8> {
    let sources = load(names, reader);
    merge(&sources, false).render()
}

/// The ENC file arguments of a `commands` promiser whose program is named `henc` (basename of `argv[0]`),
/// or `None` for any other program. Such a module promise is merged natively, without executing anything.
pub fn native_henc_args(command: &str) -> Option<Vec<String>> {
    let argv = crate::module::process::split_command(command);
    let (prog, args) = argv.split_first()?;
    (prog.rsplit('/').next() == Some("henc")).then(|| args.to_vec())
}

/// The module output of a native hENC promise (`None` when the program is not `henc`): the merge of its
/// argument files read through `reader`, ready for `module::protocol::parse_output`.
pub fn native_henc_output(command: &str, reader: &dyn EncReader) -> Option<String> {
    let args = native_henc_args(command)?;
    Some(String::from_utf8_lossy(&merge_files(&args, reader)).into_owned())
}
