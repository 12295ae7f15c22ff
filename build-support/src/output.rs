//! Writing output files safely: whole or not at all, and untouched when unchanged.
//!
//! - [`write_if_changed`]: one file (`arenaplan plan-csv --output`).
//! - [`write_all_if_changed`]: a set of files into one folder, all of them or none
//!   (`arenaplan plan --out`, the `build.rs` API).

use std::fs;
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

/// Prefix of the temporary folders [`write_all_if_changed`] creates inside the destination
/// folder (and removes again, whatever happens).
pub const TEMP_PREFIX: &str = ".arenaplan-tmp-";

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
/// a reader never sees a partial file and a failed run leaves the old file in place. When the
/// file already holds exactly `bytes` it is not touched (its timestamp stays, so build tools
/// do not rebuild). Returns whether the file was written.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("arenaplan-doc-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("plan.csv");
/// assert!(arenaplan_build::output::write_if_changed(&path, b"a")?);
/// assert!(!arenaplan_build::output::write_if_changed(&path, b"a")?);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn write_if_changed(path: &Path, bytes: &[u8]) -> io::Result<bool> {
    if holds(path, bytes) {
        return Ok(false);
    }
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no file name"))?;
    let mut temp_name = std::ffi::OsString::from(".");
    temp_name.push(name);
    temp_name.push(format!(".{}.tmp", std::process::id()));
    let temp = path.with_file_name(temp_name);
    let result = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
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
            WriteError::Io { path, .. } => path.clone(),
        }
    }

    /// The error as an `io::Error` (a bad name is `InvalidInput`).
    pub fn into_io(self) -> io::Error {
        match self {
            WriteError::BadName { .. } => {
                io::Error::new(io::ErrorKind::InvalidInput, self.to_string())
            }
            WriteError::Io { source, .. } => source,
        }
    }
}

fn io_at(path: &Path) -> impl FnOnce(io::Error) -> WriteError + '_ {
    move |source| WriteError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes every `(file name, contents)` of `files` into `dir` (created if missing), all of them
/// or none:
///
/// 1. every file whose bytes differ from what `dir` holds is written (and synced) into a fresh
///    temporary folder `dir/.arenaplan-tmp-…` — inside `dir`, so every later rename stays on
///    one filesystem and is atomic;
/// 2. only when all of them were written are they moved into place, one rename each (a file
///    already holding the same bytes is not touched, so its timestamp stays and build tools do
///    not rebuild); an existing file is first hard-linked (or copied) aside, so that if a rename
///    fails, the files already moved are put back;
/// 3. the temporary folder is removed, on success and on failure alike.
///
/// On error the files in `dir` are as they were (and a `dir` this call created is removed
/// again when empty). Returns, for each file, whether it was written.
///
/// ```
/// use arenaplan_build::output::write_all_if_changed;
/// let dir = std::env::temp_dir().join(format!("arenaplan-doc-all-{}", std::process::id()));
/// let files = [("a.h", "#define A 1\n"), ("a.c", "int a;\n")];
/// assert_eq!(write_all_if_changed(&dir, &files)?, [true, true]);
/// assert_eq!(write_all_if_changed(&dir, &files)?, [false, false]);
/// // A failure writes nothing: "sub" is a folder, so the set cannot be written.
/// std::fs::create_dir(dir.join("sub"))?;
/// assert!(write_all_if_changed(&dir, &[("a.h", "changed"), ("sub", "x")]).is_err());
/// assert_eq!(std::fs::read_to_string(dir.join("a.h"))?, "#define A 1\n");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn write_all_if_changed<N, B>(dir: &Path, files: &[(N, B)]) -> Result<Vec<bool>, WriteError>
where
    N: AsRef<str>,
    B: AsRef<[u8]>,
{
    let mut seen = std::collections::HashSet::new();
    for (name, _) in files {
        let name = name.as_ref();
        if !is_plain_file_name(name) || !seen.insert(name) {
            return Err(WriteError::BadName {
                name: name.to_owned(),
            });
        }
    }
    let existed = match fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => {
            return Err(WriteError::Io {
                path: dir.to_path_buf(),
                source: io::Error::new(io::ErrorKind::NotADirectory, "exists and is not a folder"),
            })
        }
        Ok(_) => true,
        Err(_) => fs::symlink_metadata(dir).is_ok(),
    };
    fs::create_dir_all(dir).map_err(io_at(dir))?;
    let temp = match fresh_temp_dir(dir) {
        Ok(temp) => temp,
        Err(e) => {
            if !existed {
                let _ = fs::remove_dir(dir);
            }
            return Err(e);
        }
    };
    let result = stage_and_commit(dir, &temp, files, |from, to| fs::rename(from, to));
    let _ = fs::remove_dir_all(&temp);
    if result.is_err() && !existed {
        // Only succeeds when empty: nothing of ours, nothing of anyone else's, is lost.
        let _ = fs::remove_dir(dir);
    }
    result
}

/// A name that `dir.join(name)` keeps inside `dir`, and not one of our temporary folders.
fn is_plain_file_name(name: &str) -> bool {
    let mut components = Path::new(name).components();
    matches!(
        (components.next(), components.next()),
        (Some(Component::Normal(n)), None) if n == name
    ) && !name.starts_with(TEMP_PREFIX)
}

/// Creates a new, empty folder `dir/.arenaplan-tmp-PID-N` (a counter, so that builds in
/// threads of one process never share one).
fn fresh_temp_dir(dir: &Path) -> Result<PathBuf, WriteError> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!("{TEMP_PREFIX}{}-{n}", std::process::id()));
        match fs::create_dir(&temp) {
            Ok(()) => return Ok(temp),
            // Left by a killed process that had our id: take the next number.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(WriteError::Io { path: temp, source }),
        }
    }
}

/// One file to move into place.
struct Move {
    /// The new file, in the temporary folder.
    staged: PathBuf,
    /// Where it goes.
    dest: PathBuf,
    /// The previous file, linked aside, if there was one.
    backup: Option<PathBuf>,
}

fn stage_and_commit<N, B>(
    dir: &Path,
    temp: &Path,
    files: &[(N, B)],
    rename: impl FnMut(&Path, &Path) -> io::Result<()>,
) -> Result<Vec<bool>, WriteError>
where
    N: AsRef<str>,
    B: AsRef<[u8]>,
{
    let (new_dir, old_dir) = (temp.join("new"), temp.join("old"));
    fs::create_dir(&new_dir).map_err(io_at(&new_dir))?;
    fs::create_dir(&old_dir).map_err(io_at(&old_dir))?;
    // Stage: write every changed file; nothing in `dir` is touched yet.
    let mut written = Vec::with_capacity(files.len());
    let mut moves = Vec::new();
    for (name, bytes) in files {
        let (name, bytes) = (name.as_ref(), bytes.as_ref());
        let dest = dir.join(name);
        if let Ok(meta) = fs::metadata(&dest) {
            if meta.is_dir() {
                return Err(WriteError::Io {
                    path: dest,
                    source: io::Error::new(
                        io::ErrorKind::IsADirectory,
                        "a folder is in the way of this output file",
                    ),
                });
            }
        }
        if holds(&dest, bytes) {
            written.push(false);
            continue;
        }
        let staged = new_dir.join(name);
        write_new(&staged, bytes).map_err(io_at(&staged))?;
        written.push(true);
        moves.push(Move {
            staged,
            dest,
            backup: None,
        });
    }
    // Keep the previous files aside, still without touching `dir`.
    for m in &mut moves {
        if fs::symlink_metadata(&m.dest).is_ok() {
            let backup = old_dir.join(m.staged.file_name().expect("a plain file name"));
            fs::hard_link(&m.dest, &backup)
                .or_else(|_| fs::copy(&m.dest, &backup).map(|_| ()))
                .map_err(io_at(&m.dest))?;
            m.backup = Some(backup);
        }
    }
    commit(&moves, rename)?;
    Ok(written)
}

/// Moves every staged file into place; if one move fails, puts back what was moved before it.
fn commit(
    moves: &[Move],
    mut rename: impl FnMut(&Path, &Path) -> io::Result<()>,
) -> Result<(), WriteError> {
    for (i, m) in moves.iter().enumerate() {
        if let Err(source) = rename(&m.staged, &m.dest) {
            for done in moves[..i].iter().rev() {
                // Best effort: the error below is what the caller needs to know.
                let _ = match &done.backup {
                    Some(backup) => fs::rename(backup, &done.dest),
                    None => fs::remove_file(&done.dest),
                };
            }
            return Err(WriteError::Io {
                path: m.dest.clone(),
                source,
            });
        }
    }
    Ok(())
}

/// Whether `path` is a regular file holding exactly `bytes` (never reads anything else: a
/// FIFO in the way must not block).
fn holds(path: &Path, bytes: &[u8]) -> bool {
    fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
        && fs::read(path).is_ok_and(|old| old == bytes)
}

/// Creates `path` (which must not exist) with `bytes`, synced to disk.
fn write_new(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = fs::File::options()
        .write(true)
        .create_new(true)
        .open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("arenaplan-output-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn names_that_leave_the_folder_are_refused_before_anything_is_created() {
        let dir = temp("names");
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
        assert!(!dir.exists());
    }

    #[test]
    fn a_failed_move_puts_back_the_files_moved_before_it() {
        let dir = temp("rollback");
        write_all_if_changed(&dir, &[("a", "old a"), ("c", "same")]).unwrap();
        let temp = fresh_temp_dir(&dir).unwrap();
        let mut calls = 0;
        let result = stage_and_commit(
            &dir,
            &temp,
            &[
                ("a", "new a"),
                ("b", "new b"),
                ("c", "same"),
                ("d", "new d"),
            ],
            |from, to| {
                calls += 1;
                if calls == 3 {
                    Err(io::Error::other("disk on fire"))
                } else {
                    fs::rename(from, to)
                }
            },
        );
        fs::remove_dir_all(&temp).unwrap();
        let e = result.unwrap_err();
        assert_eq!(e.path(), dir.join("d"));
        let mut names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(fs::read_to_string(dir.join("a")).unwrap(), "old a");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_in_the_way_writes_nothing_and_leaves_no_temporary_folder() {
        let dir = temp("in-the-way");
        write_all_if_changed(&dir, &[("a", "old a")]).unwrap();
        fs::create_dir(dir.join("b")).unwrap();
        let e = write_all_if_changed(&dir, &[("a", "new a"), ("b", "new b")]).unwrap_err();
        assert_eq!(e.path(), dir.join("b"));
        let mut names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a", "b"]);
        assert_eq!(fs::read_to_string(dir.join("a")).unwrap(), "old a");
        fs::remove_dir_all(&dir).unwrap();
    }
}
