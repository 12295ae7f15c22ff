//! Where the files a model names may be: [`ModelFolder`].

use std::path::{Component, Path, PathBuf};

use thiserror::Error;

use super::{read_input_file, InputFileError};

/// Folders no model may read from, whatever the allowed root: the kernel's views of processes
/// (`/proc/self/environ`), devices and system state are never model data.
const SPECIAL_FILESYSTEMS: [&str; 3] = ["/proc", "/sys", "/dev"];

/// Where the files a model names (a TOML model's `blob = "…"`) may be: inside the model's own
/// folder, and nowhere else unless the build widens that on purpose.
///
/// A model is input from outside the firmware team (a model zoo, a converter, a colleague), and
/// whatever a blob path names is copied into the generated C and linked into firmware. So a
/// model file must not be able to reach the build machine's files: `blob = "/proc/self/environ"`
/// would ship the build's environment (CI secrets included) in a binary. The rule, in one place:
///
/// - a path is relative (an absolute path is machine-specific and leaves the folder);
/// - after following every symbolic link, it lies under the allowed root (by default the
///   model's folder; [`ModelFolder::allow_under`] widens it, e.g. to a repository's root);
/// - it is never under `/proc`, `/sys` or `/dev`, however reached and whatever the root;
/// - it names a regular file, read as every input is ([`read_input_file`]).
///
/// ```
/// use arenaplan_build::import::ModelFolder;
/// let dir = std::env::temp_dir().join(format!("arenaplan-doc-folder-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("blobs"))?;
/// std::fs::write(dir.join("blobs/npu.bin"), b"cmd")?;
/// let folder = ModelFolder::new(&dir);
/// assert_eq!(folder.read("blobs/npu.bin", 1024).unwrap(), b"cmd");
/// assert!(folder.read("/etc/hostname", 1024).is_err());
/// assert!(folder.read("../outside.bin", 1024).is_err());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ModelFolder {
    dir: PathBuf,
    root: Option<PathBuf>,
}

/// Why a path a model names was refused ([`ModelFolder::resolve`]). The messages say what to
/// change; callers put the model file and field in front.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ModelPathError {
    /// The path is empty.
    #[error("the path is empty; name a file relative to the model's folder")]
    Empty,
    /// The path is absolute.
    #[error("`{0}` is an absolute path; name the file relative to the model's folder (copy it there if needed)")]
    Absolute(String),
    /// The path leads outside the allowed root (by `..` or through a symbolic link).
    #[error("`{path}` leads outside {}; model files may only name files inside it (copy the file there, or widen the allowed folder explicitly: `--files-root` on the command line, `.files_root(..)` in build.rs)", .root.display())]
    Outside {
        /// The path as the model gives it.
        path: String,
        /// The folder it may not leave.
        root: PathBuf,
    },
    /// The path leads into `/proc`, `/sys` or `/dev`.
    #[error("`{0}` leads into a system folder (/proc, /sys or /dev), which is never model data")]
    Special(String),
    /// The file is missing, not a regular file, too large, or unreadable.
    #[error("`{path}`: {source}")]
    File {
        /// The path as the model gives it.
        path: String,
        /// Why.
        source: InputFileError,
    },
}

impl ModelFolder {
    /// Paths resolve in `dir`, and may not leave it.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        ModelFolder {
            dir: dir.into(),
            root: None,
        }
    }

    /// The folder of the model file at `model`: where the file really is (a link to a model
    /// is followed), else its parent as given (`.` for a bare file name).
    pub fn of(model: &Path) -> Self {
        let real = std::fs::canonicalize(model).unwrap_or_else(|_| model.to_path_buf());
        let dir = match real.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        ModelFolder::new(dir)
    }

    /// Lets paths also lead anywhere under `root`, not only under the model's folder (`..` may
    /// then climb out of it). Absolute paths and system folders stay refused.
    pub fn allow_under(mut self, root: Option<impl Into<PathBuf>>) -> Self {
        self.root = root.map(Into::into);
        self
    }

    /// The file `reference` names, as a path with every symbolic link resolved, once every
    /// rule of [`ModelFolder`] holds.
    pub fn resolve(&self, reference: &str) -> Result<PathBuf, ModelPathError> {
        if reference.is_empty() {
            return Err(ModelPathError::Empty);
        }
        let path = Path::new(reference);
        if path.has_root() || matches!(path.components().next(), Some(Component::Prefix(_))) {
            return Err(ModelPathError::Absolute(reference.to_owned()));
        }
        let root = self.root.as_deref().unwrap_or(&self.dir);
        let outside = || ModelPathError::Outside {
            path: reference.to_owned(),
            root: root.to_path_buf(),
        };
        // Lexically first, so that `../x` is refused before anything is looked up.
        if self.root.is_none() && climbs_out(path) {
            return Err(outside());
        }
        let file_error = |source| ModelPathError::File {
            path: reference.to_owned(),
            source,
        };
        let real = canonical(&self.dir.join(path)).map_err(file_error)?;
        if SPECIAL_FILESYSTEMS
            .iter()
            .any(|special| real.starts_with(special))
        {
            return Err(ModelPathError::Special(reference.to_owned()));
        }
        let under = |folder: &Path| canonical(folder).is_ok_and(|f| real.starts_with(f));
        if !under(&self.dir) && !self.root.as_deref().is_some_and(under) {
            return Err(outside());
        }
        Ok(real)
    }

    /// The bytes of the regular file `reference` names, at most `max_bytes` of them.
    pub fn read(&self, reference: &str, max_bytes: u64) -> Result<Vec<u8>, ModelPathError> {
        let real = self.resolve(reference)?;
        read_input_file(&real, max_bytes).map_err(|source| ModelPathError::File {
            path: reference.to_owned(),
            source,
        })
    }
}

/// Whether some `..` of `path` climbs above its starting folder.
fn climbs_out(path: &Path) -> bool {
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::ParentDir if depth == 0 => return true,
            Component::ParentDir => depth -= 1,
            Component::Normal(_) => depth += 1,
            _ => {}
        }
    }
    false
}

fn canonical(path: &Path) -> Result<PathBuf, InputFileError> {
    std::fs::canonicalize(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => {
            InputFileError::NotFound
        }
        _ => InputFileError::Io(e),
    })
}
