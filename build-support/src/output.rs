//! Writing output files safely: only where an output belongs, whole or not at all, and
//! untouched when unchanged.
//!
//! - [`write_if_changed`]: one file (`arenaplan plan-csv --output`).
//! - [`write_all_if_changed`]: a set of files published as one folder (`arenaplan plan --out`,
//!   `arenaplan run --out`, the `build.rs` API).
//!
//! **Only where an output belongs.** An existing output path must be a regular file (for a
//! set: a folder arenaplan published, or an empty folder). A symbolic link, FIFO, socket,
//! device or someone else's folder is refused and left as it is: renaming a temporary file
//! over `/dev/null` would replace the machine's `/dev/null`.
//!
//! **Whole after any crash.** A set is never updated file by file. On Unix the output folder
//! `DIR` is a symbolic link to a *generation* folder, `.DIR.arenaplan/gen-N`, next to it:
//! a new set is written and synced into a fresh temporary folder there, renamed to the next
//! generation, and published by renaming a new link over `DIR` — one atomic step. Killed at
//! any instant, `DIR` shows the complete old set or the complete new one; the next run
//! removes what a killed run left. A lock file serialises concurrent writers of one folder.
//! (Elsewhere the files are replaced one by one.)
//!
//! **Untouched when unchanged.** A set whose files already hold the same bytes is not
//! republished, and in a new generation every unchanged file is a hard link to the old one, so
//! its timestamp stays and build tools rebuild only what changed.

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};

use thiserror::Error;

/// Prefix of the temporary files and folders arenaplan creates next to its outputs (and
/// removes again, on the next run if it was killed).
pub const TEMP_PREFIX: &str = ".arenaplan-tmp-";

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
/// a reader never sees a partial file and a failed run leaves the old file in place. When the
/// file already holds exactly `bytes` it is not touched (its timestamp stays, so build tools
/// do not rebuild). Returns whether the file was written. An existing `path` that is not a
/// regular file (a symbolic link, FIFO, device, folder) is refused and left untouched.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("arenaplan-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("plan.csv");
/// assert!(arenaplan_build::output::write_if_changed(&path, b"a")?);
/// assert!(!arenaplan_build::output::write_if_changed(&path, b"a")?);
/// assert!(arenaplan_build::output::write_if_changed(std::path::Path::new("/dev/null"), b"a").is_err());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    check_output_file(path).map_err(WriteError::into_io)?;
    if holds(path, bytes) {
        return Ok(false);
    }
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let mut temp_name = std::ffi::OsString::from(TEMP_PREFIX);
    temp_name.push(name);
    temp_name.push(format!(".{}", std::process::id()));
    let temp = path.with_file_name(temp_name);
    // Left by a killed run with our process id, perhaps: ours to replace, never to follow.
    if fs::symlink_metadata(&temp).is_ok_and(|m| m.is_file()) {
        fs::remove_file(&temp)?;
    }
    // `write_new` creates it new: a link or FIFO planted at the temporary name is an error
    // (AlreadyExists), and not ours to remove.
    let result = write_new(&temp, bytes)
        .and_then(|()| fs::File::open(&temp)?.sync_all())
        .and_then(|()| fs::rename(&temp, path));
    if let Err(e) = &result {
        if e.kind() != io::ErrorKind::AlreadyExists {
            let _ = fs::remove_file(&temp);
        }
    }
    result.map(|()| true)
}

/// Why the outputs were not written (all are written or none: the previous ones stay).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum WriteError {
    /// An output name is not a plain file name (empty, `.`, `..`, with a path separator) or
    /// appears twice. Nothing was created.
    #[error("`{name}` is not a usable output file name: it must be one plain, unique file name")]
    BadName {
        /// The name.
        name: String,
    },
    /// The output path exists and is not something arenaplan may replace: a symbolic link,
    /// FIFO, socket, device, or a folder arenaplan did not write. It was left untouched.
    #[error("{} is {what}, not an output of arenaplan's: left untouched; {fix}", path.display())]
    NotAnOutput {
        /// The path.
        path: PathBuf,
        /// What it is.
        what: &'static str,
        /// What to do instead.
        fix: &'static str,
    },
    /// Creating, writing or moving a file failed.
    #[error("writing {}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl WriteError {
    /// The path concerned (for [`WriteError::BadName`], the name itself).
    pub fn path(&self) -> PathBuf {
        match self {
            WriteError::BadName { name } => PathBuf::from(name),
            WriteError::NotAnOutput { path, .. } | WriteError::Io { path, .. } => path.clone(),
        }
    }

    /// Whether the request was at fault (a bad name, a path that is not an output), rather
    /// than the file system.
    pub fn is_bad_request(&self) -> bool {
        !matches!(self, WriteError::Io { .. })
    }

    /// The error as an `io::Error` (a bad name or path is `InvalidInput`).
    pub fn into_io(self) -> io::Error {
        match self {
            WriteError::Io { source, .. } => source,
            other => io::Error::new(io::ErrorKind::InvalidInput, other.to_string()),
        }
    }
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Refuses an existing `path` that is not a regular file (not following a symbolic link).
fn check_output_file(path: &Path) -> Result<(), WriteError> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => Ok(()),
        Ok(meta) => Err(WriteError::NotAnOutput {
            path: path.to_path_buf(),
            what: kind_of(&meta.file_type()),
            fix: "give the path of a regular file, or a new one (`-` for standard output)",
        }),
        Err(_) => Ok(()),
    }
}

fn kind_of(kind: &fs::FileType) -> &'static str {
    if kind.is_file() {
        return "a file";
    }
    if kind.is_symlink() {
        return "a symbolic link";
    }
    if kind.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a FIFO";
        }
        if kind.is_socket() {
            return "a socket";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
    }
    "a special file"
}

/// Writes every `(file name, contents)` of `files` as the output set published at `dir`: all
/// of them or none, and after a crash at any instant the complete old set or the complete new
/// one (see the [module documentation](self)). `dir` must be new, an empty folder, or a set
/// arenaplan published before; its parent folder is created if missing. Returns, for each
/// file, whether its bytes changed.
///
/// ```
/// use arenaplan_build::output::write_all_if_changed;
/// let top = std::env::temp_dir().join(format!("arenaplan-doc-all-{}", std::process::id()));
/// let dir = top.join("out");
/// let files = [("a.h", "#define A 1\n"), ("a.c", "int a;\n")];
/// assert_eq!(write_all_if_changed(&dir, &files)?, [true, true]);
/// assert_eq!(write_all_if_changed(&dir, &files)?, [false, false]);
/// assert_eq!(write_all_if_changed(&dir, &[("a.h", "#define A 2\n")])?, [true]);
/// // The set is what was written last: a.c is gone with the set it belonged to.
/// assert!(!dir.join("a.c").exists());
/// // Someone else's folder is not an output folder.
/// std::fs::create_dir_all(top.join("mine"))?;
/// std::fs::write(top.join("mine/notes.txt"), "keep")?;
/// assert!(write_all_if_changed(&top.join("mine"), &files).is_err());
/// # std::fs::remove_dir_all(&top)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_all_if_changed<N, B>(dir: &Path, files: &[(N, B)]) -> Result<Vec<bool>, WriteError>
where
    N: AsRef<str>,
    B: AsRef<[u8]>,
{
    write_all_observed(dir, files, &mut |_| {})
}

/// A point of [`write_all_if_changed`] between two changes to the file system, for tests that
/// interrupt the publish there.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The lock is held.
    Locked,
    /// What killed runs left is removed.
    Cleaned,
    /// File `i` of the set is in the new generation.
    Staged(usize),
    /// The new generation is complete under its final name.
    Renamed,
    /// The link to it exists, not yet in place.
    Linked,
    /// The link replaced `dir`: the new set is published.
    Published,
}

/// [`write_all_if_changed`], calling `observe` at every [`Step`].
#[doc(hidden)]
pub fn write_all_observed<N, B>(
    dir: &Path,
    files: &[(N, B)],
    observe: &mut dyn FnMut(Step),
) -> Result<Vec<bool>, WriteError>
where
    N: AsRef<str>,
    B: AsRef<[u8]>,
{
    // Every name is checked before anything is created.
    let mut seen = std::collections::HashSet::new();
    for (name, _) in files {
        let name = name.as_ref();
        if !is_plain_file_name(name) || !seen.insert(name) {
            return Err(WriteError::BadName {
                name: name.to_owned(),
            });
        }
    }
    let mut set = OutputSet::begin_observed(dir, observe)?;
    for (name, bytes) in files {
        set.add_observed(name.as_ref(), bytes.as_ref(), observe)?;
    }
    set.finish_observed(observe)
}

/// An output set written file by file, as its files are made, and published as a whole by
/// [`OutputSet::finish`] (with the guarantees of [`write_all_if_changed`]): a run with many
/// outputs holds one at a time, not all of them. The files are made durable once, for the
/// whole set, when it is finished; a set dropped unfinished is never published (its staged
/// files are removed by the next write of the folder).
///
/// ```
/// use arenaplan_build::output::OutputSet;
/// let top = std::env::temp_dir().join(format!("arenaplan-doc-set-{}", std::process::id()));
/// let dir = top.join("out");
/// let mut set = OutputSet::begin(&dir)?;
/// for k in 0..3 {
///     set.add(&format!("{k}.txt"), format!("call {k}").as_bytes())?;
/// }
/// assert!(!dir.exists(), "nothing is published before the set is finished");
/// assert_eq!(set.finish()?, [true, true, true]);
/// assert_eq!(std::fs::read_to_string(dir.join("2.txt"))?, "call 2");
/// # std::fs::remove_dir_all(&top)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct OutputSet {
    staging: Staging,
    names: std::collections::HashSet<String>,
    written: Vec<bool>,
}

impl OutputSet {
    /// Starts a set to be published at `dir`, which must be new, an empty folder, or a set
    /// arenaplan published before (checked now, before anything is created).
    pub fn begin(dir: &Path) -> Result<Self, WriteError> {
        Self::begin_observed(dir, &mut |_| {})
    }

    /// Adds a file: a plain name, once. Returns whether its bytes differ from the published
    /// set's file of that name.
    pub fn add(&mut self, name: &str, bytes: &[u8]) -> Result<bool, WriteError> {
        self.add_observed(name, bytes, &mut |_| {})
    }

    /// Publishes the set in one step; for each file, whether its bytes changed. A set whose
    /// every file already holds the same bytes is left as it was.
    pub fn finish(self) -> Result<Vec<bool>, WriteError> {
        self.finish_observed(&mut |_| {})
    }

    fn begin_observed(dir: &Path, observe: &mut dyn FnMut(Step)) -> Result<Self, WriteError> {
        // `out/` and `out` are one folder; but a trailing slash would make the system follow
        // the link that `out` is.
        let dir: PathBuf = dir.components().collect();
        Ok(OutputSet {
            staging: Staging::begin(&dir, observe)?,
            names: std::collections::HashSet::new(),
            written: Vec::new(),
        })
    }

    fn add_observed(
        &mut self,
        name: &str,
        bytes: &[u8],
        observe: &mut dyn FnMut(Step),
    ) -> Result<bool, WriteError> {
        if !is_plain_file_name(name) || self.names.contains(name) {
            return Err(WriteError::BadName {
                name: name.to_owned(),
            });
        }
        let changed = self.staging.stage(name, bytes)?;
        self.names.insert(name.to_owned());
        self.written.push(changed);
        observe(Step::Staged(self.written.len() - 1));
        Ok(changed)
    }

    fn finish_observed(self, observe: &mut dyn FnMut(Step)) -> Result<Vec<bool>, WriteError> {
        self.staging.finish(&self.written, observe)
    }
}

/// A name that `dir.join(name)` keeps inside `dir`, and not one of our temporary names.
fn is_plain_file_name(name: &str) -> bool {
    let mut components = Path::new(name).components();
    matches!(
        (components.next(), components.next()),
        (Some(Component::Normal(n)), None) if n == name
    ) && !name.starts_with(TEMP_PREFIX)
}

#[cfg(unix)]
/// What is at the output path now.
enum Existing {
    /// Nothing.
    Nothing,
    /// An empty folder (someone prepared it): replaced by the link.
    EmptyFolder,
    /// A set arenaplan published: the name of its generation folder.
    Generation(String),
}

#[cfg(unix)]
/// Prefix of generation folders, followed by their number.
const GENERATION: &str = "gen-";

/// The hidden folder beside `dir` that holds its generations: `.NAME.arenaplan`.
fn store_name(dir: &Path) -> Result<String, WriteError> {
    match dir.file_name().and_then(|n| n.to_str()) {
        Some(name) if !matches!(name, "." | "..") => Ok(format!(".{name}.arenaplan")),
        _ => Err(WriteError::NotAnOutput {
            path: dir.to_path_buf(),
            what: "not a folder name arenaplan can publish",
            fix: "name a new folder, e.g. `out/generated`",
        }),
    }
}

/// Looks at `dir` without following a link, and refuses what is not an output.
#[cfg(unix)]
fn existing(dir: &Path, store_name: &str) -> Result<Existing, WriteError> {
    let meta = match fs::symlink_metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Existing::Nothing),
        Err(source) => return Err(io_at(dir)(source)),
    };
    let kind = meta.file_type();
    if kind.is_symlink() {
        let target = fs::read_link(dir).map_err(io_at(dir))?;
        let mut parts = target.components();
        if let (Some(Component::Normal(store)), Some(Component::Normal(generation)), None) =
            (parts.next(), parts.next(), parts.next())
        {
            let generation = generation.to_str().unwrap_or_default();
            if store == store_name && generation_number(generation).is_some() {
                return Ok(Existing::Generation(generation.to_owned()));
            }
        }
        return Err(WriteError::NotAnOutput {
            path: dir.to_path_buf(),
            what: "a symbolic link arenaplan did not make",
            fix: "give a new path; arenaplan publishes an output folder as its own link",
        });
    }
    if kind.is_dir() {
        let mut entries = fs::read_dir(dir).map_err(io_at(dir))?;
        if entries.next().is_none() {
            return Ok(Existing::EmptyFolder);
        }
        return Err(WriteError::NotAnOutput {
            path: dir.to_path_buf(),
            what: "a folder arenaplan did not write",
            fix: "give a new or empty folder (arenaplan replaces an output folder as a whole)",
        });
    }
    Err(WriteError::NotAnOutput {
        path: dir.to_path_buf(),
        what: kind_of(&kind),
        fix: "give the path of a new folder",
    })
}

#[cfg(unix)]
fn generation_number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix(GENERATION)?;
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// A set being written (Unix): the lock held, the files staged in a fresh folder in the store.
#[cfg(unix)]
struct Staging {
    dir: PathBuf,
    parent: PathBuf,
    store: PathBuf,
    store_name: String,
    found: Existing,
    current: Option<String>,
    temp: PathBuf,
    staged: Vec<PathBuf>,
    _lock: fs::File,
}

#[cfg(unix)]
impl Staging {
    fn begin(dir: &Path, observe: &mut dyn FnMut(Step)) -> Result<Self, WriteError> {
        let store_name = store_name(dir)?;
        // Refuse before creating anything.
        existing(dir, &store_name)?;
        let parent = match dir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(io_at(&parent))?;
        let store = parent.join(&store_name);
        own_store(&store)?;
        let lock = open_lock(&store.join("lock"))?;
        observe(Step::Locked);
        // Under the lock: another writer may have published meanwhile, and anything else in
        // the store was left by a killed run, or is the generation before the current one
        // (kept until now for readers that were still in it).
        let found = existing(dir, &store_name)?;
        let current = match &found {
            Existing::Generation(g) => Some(g.clone()),
            _ => None,
        };
        clean(&store, current.as_deref())?;
        observe(Step::Cleaned);
        let temp = fresh_temp_dir(&store)?;
        Ok(Staging {
            dir: dir.to_path_buf(),
            parent,
            store,
            store_name,
            found,
            current,
            temp,
            staged: Vec::new(),
            _lock: lock,
        })
    }

    /// Stages one file: a hard link to the current generation's when the bytes are the same
    /// (its timestamp stays), else written (made durable with the rest in `finish`).
    fn stage(&mut self, name: &str, bytes: &[u8]) -> Result<bool, WriteError> {
        let staged = self.temp.join(name);
        let unchanged = self
            .current
            .as_ref()
            .map(|g| self.store.join(g).join(name))
            .is_some_and(|old| holds(&old, bytes) && fs::hard_link(&old, &staged).is_ok());
        if !unchanged {
            write_new(&staged, bytes).map_err(io_at(&staged))?;
            self.staged.push(staged);
        }
        Ok(!unchanged)
    }

    /// Publishes the staged set, unless it is the current one file for file; returns, for
    /// each file, whether its bytes changed.
    fn finish(
        self,
        written: &[bool],
        observe: &mut dyn FnMut(Step),
    ) -> Result<Vec<bool>, WriteError> {
        if let Some(current) = &self.current {
            let entries = fs::read_dir(self.store.join(current)).map(Iterator::count);
            if !written.contains(&true) && entries.is_ok_and(|n| n == written.len()) {
                fs::remove_dir_all(&self.temp).map_err(io_at(&self.temp))?;
                return Ok(vec![false; written.len()]);
            }
        }
        durable(&self.temp, &self.staged)?;
        let number = self
            .current
            .as_deref()
            .and_then(generation_number)
            .unwrap_or(0)
            + 1;
        let next = format!("{GENERATION}{number}");
        let next_dir = self.store.join(&next);
        fs::rename(&self.temp, &next_dir).map_err(io_at(&next_dir))?;
        sync_dir(&self.store);
        observe(Step::Renamed);
        let link = self.store.join(format!("{TEMP_PREFIX}link"));
        std::os::unix::fs::symlink(Path::new(&self.store_name).join(&next), &link)
            .map_err(io_at(&link))?;
        observe(Step::Linked);
        if matches!(self.found, Existing::EmptyFolder) {
            // The empty folder seen at the start: swapped for the link in one step where the
            // system can (a folder cannot be renamed over), then removed.
            replace_empty_folder(&link, &self.dir)?;
        } else {
            fs::rename(&link, &self.dir).map_err(io_at(&self.dir))?;
        }
        sync_dir(&self.parent);
        observe(Step::Published);
        // The previous generation stays until the next run, for a reader (a compiler part-way
        // through the includes) that resolved the link before it moved. The lock goes with
        // `self`.
        Ok(written.to_vec())
    }
}

/// A set dropped unfinished (a failed run) is not published: its staged files go now, not
/// at the next write of the folder. (After `finish` the folder has been renamed or removed.)
#[cfg(unix)]
impl Drop for Staging {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.temp);
    }
}

/// Makes the files written into `temp` durable, and `temp`'s entries: on Linux with one
/// `syncfs` for the whole set (a sync per file made 10,000 outputs take a minute), elsewhere
/// file by file.
#[cfg(unix)]
fn durable(temp: &Path, staged: &[PathBuf]) -> Result<(), WriteError> {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let _ = staged;
        let folder = fs::File::open(temp).map_err(io_at(temp))?;
        // SAFETY: the descriptor is open for the call's duration.
        if unsafe { libc::syncfs(folder.as_raw_fd()) } != 0 {
            return Err(io_at(temp)(io::Error::last_os_error()));
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        for file in staged {
            fs::File::open(file)
                .and_then(|f| f.sync_all())
                .map_err(io_at(file))?;
        }
        sync_dir(temp);
    }
    Ok(())
}

/// Makes `store` a folder of the user's own, or checks that it is one: a real folder (not a
/// link someone planted, which `clean` would then empty) owned by this user.
#[cfg(unix)]
fn own_store(store: &Path) -> Result<(), WriteError> {
    use std::os::unix::fs::MetadataExt;
    match fs::create_dir(store) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(source) => return Err(io_at(store)(source)),
    }
    let meta = fs::symlink_metadata(store).map_err(io_at(store))?;
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if !meta.is_dir() || meta.uid() != me {
        return Err(WriteError::NotAnOutput {
            path: store.to_path_buf(),
            what: if meta.file_type().is_symlink() {
                "a symbolic link (arenaplan keeps its generations there)"
            } else if !meta.is_dir() {
                "a file (arenaplan keeps its generations there)"
            } else {
                "another user's folder (arenaplan keeps its generations there)"
            },
            fix: "remove it, or give another output folder",
        });
    }
    Ok(())
}

/// Opens (creating) the store's lock file and takes the lock: never through a link, never
/// blocking on a FIFO planted there.
#[cfg(unix)]
fn open_lock(path: &Path) -> Result<fs::File, WriteError> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = fs::File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(io_at(path))?;
    if !file.metadata().map_err(io_at(path))?.is_file() {
        return Err(WriteError::NotAnOutput {
            path: path.to_path_buf(),
            what: "a special file (arenaplan keeps its lock there)",
            fix: "remove it",
        });
    }
    file.lock().map_err(io_at(path))?;
    Ok(file)
}

/// Puts `link` where the empty folder `dir` is. On Linux in one step (the two are exchanged,
/// then the folder, now at `link`'s name, is removed); elsewhere the folder is removed first,
/// so a crash in between leaves no `dir` (it held nothing).
#[cfg(unix)]
fn replace_empty_folder(link: &Path, dir: &Path) -> Result<(), WriteError> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| std::ffi::CString::new(p.as_os_str().as_bytes()).ok();
        if let (Some(from), Some(to)) = (c(link), c(dir)) {
            // SAFETY: both are valid NUL-terminated paths; AT_FDCWD resolves them as the
            // process's other calls do.
            let swapped = unsafe {
                libc::renameat2(
                    libc::AT_FDCWD,
                    from.as_ptr(),
                    libc::AT_FDCWD,
                    to.as_ptr(),
                    libc::RENAME_EXCHANGE,
                )
            } == 0;
            if swapped {
                return fs::remove_dir(link).map_err(io_at(link));
            }
        }
    }
    fs::remove_dir(dir).map_err(io_at(dir))?;
    fs::rename(link, dir).map_err(io_at(dir))
}

/// Removes from `store` what is not the lock or the `current` generation: temporary folders
/// and links and older generations, that killed runs left or the last run kept for its
/// readers (the caller holds the lock, so no live run is using them). Nothing else that may
/// be there is touched.
#[cfg(unix)]
fn clean(store: &Path, current: Option<&str>) -> Result<(), WriteError> {
    for entry in fs::read_dir(store).map_err(io_at(store))? {
        let entry = entry.map_err(io_at(store))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = name.starts_with(TEMP_PREFIX) || generation_number(&name).is_some();
        if !ours || Some(&*name) == current {
            continue;
        }
        let path = entry.path();
        // Not following links: a link is removed as a link.
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        let removed = if is_dir {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        removed.map_err(io_at(&path))?;
    }
    Ok(())
}

/// Syncs a folder's entries to disk (best effort: not every file system syncs folders).
#[cfg(unix)]
fn sync_dir(dir: &Path) {
    if let Ok(d) = fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// A set being written where folders cannot be swapped in one step: its files are kept and
/// written one by one when it is finished.
#[cfg(not(unix))]
struct Staging {
    dir: PathBuf,
    files: Vec<(String, Vec<u8>)>,
}

#[cfg(not(unix))]
impl Staging {
    fn begin(dir: &Path, _observe: &mut dyn FnMut(Step)) -> Result<Self, WriteError> {
        Ok(Staging {
            dir: dir.to_path_buf(),
            files: Vec::new(),
        })
    }

    fn stage(&mut self, name: &str, bytes: &[u8]) -> Result<bool, WriteError> {
        self.files.push((name.to_owned(), bytes.to_vec()));
        Ok(true)
    }

    fn finish(
        self,
        _written: &[bool],
        observe: &mut dyn FnMut(Step),
    ) -> Result<Vec<bool>, WriteError> {
        let files: Vec<(&str, &[u8])> = self
            .files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        publish(&self.dir, &files, observe)
    }
}

/// The file that marks a folder as arenaplan's output where it cannot be a link (Windows).
#[cfg(not(unix))]
const MARKER: &str = ".arenaplan-output";

/// Where folders cannot be swapped by one rename (no symbolic links for everyone on Windows),
/// the files are replaced one by one: each is whole, the set is not. The folder must be new,
/// empty, or marked as arenaplan's by an earlier run.
#[cfg(not(unix))]
fn publish(
    dir: &Path,
    files: &[(&str, &[u8])],
    observe: &mut dyn FnMut(Step),
) -> Result<Vec<bool>, WriteError> {
    store_name(dir)?;
    let marker = dir.join(MARKER);
    if let Ok(meta) = fs::symlink_metadata(dir) {
        if !meta.is_dir() {
            return Err(WriteError::NotAnOutput {
                path: dir.to_path_buf(),
                what: kind_of(&meta.file_type()),
                fix: "give the path of a new folder",
            });
        }
        let empty = fs::read_dir(dir).map_err(io_at(dir))?.next().is_none();
        if !empty && !marker.is_file() {
            return Err(WriteError::NotAnOutput {
                path: dir.to_path_buf(),
                what: "a folder arenaplan did not write",
                fix: "give a new or empty folder",
            });
        }
    }
    fs::create_dir_all(dir).map_err(io_at(dir))?;
    for (name, _) in files {
        check_output_file(&dir.join(name))?;
    }
    let mut written = Vec::with_capacity(files.len());
    for (i, (name, bytes)) in files.iter().enumerate() {
        let path = dir.join(name);
        written.push(write_if_changed(&path, bytes).map_err(io_at(&path))?);
        observe(Step::Staged(i));
    }
    let names: Vec<&str> = files.iter().map(|(n, _)| *n).collect();
    write_if_changed(&marker, names.join("\n").as_bytes()).map_err(io_at(&marker))?;
    Ok(written)
}

/// Creates a new, empty folder `store/.arenaplan-tmp-PID-N` (a counter, so that builds in
/// threads of one process never share one).
#[cfg(unix)]
fn fresh_temp_dir(store: &Path) -> Result<PathBuf, WriteError> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = store.join(format!("{TEMP_PREFIX}{}-{n}", std::process::id()));
        match fs::create_dir(&temp) {
            Ok(()) => return Ok(temp),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(WriteError::Io { path: temp, source }),
        }
    }
}

/// Whether `path` is a regular file holding exactly `bytes` (never reads anything else: a
/// FIFO in the way must not block).
fn holds(path: &Path, bytes: &[u8]) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
        && fs::read(path).is_ok_and(|old| old == bytes)
}

/// Creates `path` (which must not exist) with `bytes`; the caller makes it durable.
fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::File::options()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("arenaplan-output-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn names_that_leave_the_folder_are_refused_before_anything_is_created() {
        let top = temp("names");
        let dir = top.join("out");
        for bad in ["", ".", "..", "x/y", "/abs", "a/../b", ".arenaplan-tmp-1-0"] {
            assert!(
                matches!(
                    write_all_if_changed(&dir, &[(bad, "x")]),
                    Err(WriteError::BadName { .. })
                ),
                "{bad:?}"
            );
        }
        assert!(matches!(
            write_all_if_changed(&dir, &[("a", "x"), ("a", "y")]),
            Err(WriteError::BadName { .. })
        ));
        assert_eq!(fs::read_dir(&top).unwrap().count(), 0);
        fs::remove_dir_all(&top).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn unchanged_files_keep_their_inode_in_a_new_generation() {
        use std::os::unix::fs::MetadataExt;
        let top = temp("inode");
        let dir = top.join("out");
        write_all_if_changed(&dir, &[("a", "same"), ("b", "old")]).unwrap();
        let inode = fs::metadata(dir.join("a")).unwrap().ino();
        assert_eq!(
            write_all_if_changed(&dir, &[("a", "same"), ("b", "new")]).unwrap(),
            [false, true]
        );
        assert_eq!(fs::metadata(dir.join("a")).unwrap().ino(), inode);
        assert_eq!(fs::read_to_string(dir.join("b")).unwrap(), "new");
        let store = top.join(".out.arenaplan");
        let entries = || {
            let mut left: Vec<String> = fs::read_dir(&store)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            left.sort();
            left
        };
        // The previous generation is kept for its readers until the next run.
        assert_eq!(entries(), ["gen-1", "gen-2", "lock"]);
        // Named with a trailing slash, it is the same output folder.
        let slash = PathBuf::from(format!("{}/", dir.display()));
        assert_eq!(
            write_all_if_changed(&slash, &[("a", "same"), ("b", "new")]).unwrap(),
            [false, false]
        );
        // The next run removes it: only the lock and the current generation remain.
        assert_eq!(entries(), ["gen-2", "lock"]);
        fs::remove_dir_all(&top).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_for_the_generations_folder_is_refused_and_its_target_kept() {
        let top = temp("planted");
        let victim = top.join("victim");
        fs::create_dir(&victim).unwrap();
        fs::write(victim.join("precious"), "keep").unwrap();
        std::os::unix::fs::symlink(&victim, top.join(".out.arenaplan")).unwrap();
        let e = write_all_if_changed(&top.join("out"), &[("a", "x")]).unwrap_err();
        assert!(e.is_bad_request(), "{e}");
        assert_eq!(fs::read_to_string(victim.join("precious")).unwrap(), "keep");
        assert!(!top.join("out").exists());
        fs::remove_dir_all(&top).unwrap();
    }

    #[test]
    fn an_empty_folder_becomes_the_output_and_a_full_one_is_left_alone() {
        let top = temp("folders");
        fs::create_dir(top.join("empty")).unwrap();
        write_all_if_changed(&top.join("empty"), &[("a", "x")]).unwrap();
        assert_eq!(fs::read_to_string(top.join("empty/a")).unwrap(), "x");
        fs::create_dir(top.join("full")).unwrap();
        fs::write(top.join("full/mine"), "keep").unwrap();
        let e = write_all_if_changed(&top.join("full"), &[("a", "x")]).unwrap_err();
        assert!(e.is_bad_request(), "{e}");
        assert_eq!(fs::read_dir(top.join("full")).unwrap().count(), 1);
        assert!(!top.join(".full.arenaplan").exists());
        fs::remove_dir_all(&top).unwrap();
    }
}
