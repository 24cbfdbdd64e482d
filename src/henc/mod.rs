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

/// The program and the ENC file arguments of a module command line.
pub fn module_argv(command: &str) -> Option<(String, Vec<String>)> {
    let argv = crate::module::process::split_command(command);
    let (prog, args) = argv.split_first()?;
    Some((prog.clone(), args.to_vec()))
}

/// Whether the text of a module program is a wrapper that runs cfsim's hENC merge (a line, not a
/// comment, invoking `cfsim henc` — `cfsim`, a path ending in it, or `"${CFSIM:-cfsim}"` — as
/// `policies/henc/demo/modules/henc` does): cfsim then merges
/// natively instead of running it. A program is never recognised by its name alone: any other
/// script called `henc` is a command like every other (run only with `--exec`).
pub fn is_henc_wrapper(text: &str) -> bool {
    text.lines().map(str::trim).any(|l| {
        !l.starts_with('#') && {
            let words: Vec<&str> = l.split_whitespace().collect();
            words.windows(2).any(|w| {
                w[0].trim_matches(['"', '\'', '{', '}']).ends_with("cfsim") && w[1] == "henc"
            })
        }
    })
}

/// The module output of a native hENC promise: the merge of the argument files read through `reader`,
/// ready for `module::protocol::parse_output`.
pub fn native_henc_output(args: &[String], reader: &dyn EncReader) -> String {
    String::from_utf8_lossy(&merge_files(args, reader)).into_owned()
}
