//! Reading an input file (model, targets catalogue, source, CSV) the one way arenaplan reads
//! them: regular files only, and never more than a limit, whatever the file's metadata says.

use std::path::Path;

use thiserror::Error;

/// Why an input file was not read ([`read_input_file`]). The messages do not repeat the path;
/// callers put it in front, as every diagnostic does.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum InputFileError {
    /// Nothing at that path (a bad argument).
    #[error("no such file")]
    NotFound,
    /// A directory, FIFO, socket or device: refused before it is opened, since reading one
    /// could block forever or never end.
    #[error("{0}, not a regular file; arenaplan reads its inputs only from regular files")]
    NotRegular(&'static str),
    /// More than the limit arrived (whatever the file's metadata said).
    #[error("larger than {0} bytes, the most accepted for this kind of file")]
    TooLarge(u64),
    /// The file is there but reading it failed (permissions, an I/O error).
    #[error("cannot read: {0}")]
    Io(#[source] std::io::Error),
}

impl InputFileError {
    /// Whether this is a failure to read a file that exists (an I/O failure), rather than a
    /// bad input (a missing file, something that is not a regular file, a file too large).
    pub fn is_io(&self) -> bool {
        matches!(self, InputFileError::Io(_))
    }
}

/// Reads the whole regular file at `path`, at most `max_bytes` of it: the one way arenaplan's
/// importers and command line read an input file (model, targets catalogue, source, CSV).
///
/// - Anything but a regular file (after following symbolic links) is refused before it is
///   opened: a FIFO would block forever, `/dev/zero` would never end, a directory is a mistake.
/// - The size in the file's metadata is not trusted (files under `/proc` say 0, a file may
///   grow while it is read): the read goes through `Read::take(max_bytes + 1)`, and the file
///   is refused when more than `max_bytes` arrive. The metadata only lets an obviously large
///   file be refused without reading it.
///
/// ```
/// use arenaplan_syntax::input::{read_input_file, InputFileError};
/// let dir = std::env::temp_dir().join(format!("arenaplan-doc-read-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("m.pte"), b"12345")?;
/// assert_eq!(read_input_file(&dir.join("m.pte"), 5).unwrap(), b"12345");
/// assert!(matches!(read_input_file(&dir.join("m.pte"), 4), Err(InputFileError::TooLarge(4))));
/// assert!(matches!(read_input_file(&dir, 5), Err(InputFileError::NotRegular(_))));
/// assert!(matches!(read_input_file(&dir.join("none"), 5), Err(InputFileError::NotFound)));
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn read_input_file(path: &Path, max_bytes: u64) -> Result<Vec<u8>, InputFileError> {
    use std::io::Read;
    let metadata = check_input_file(path)?;
    if metadata.len() > max_bytes {
        return Err(InputFileError::TooLarge(max_bytes));
    }
    let file = std::fs::File::open(path).map_err(InputFileError::Io)?;
    // The path may have been replaced between the two looks; check what was opened.
    regular(&file.metadata().map_err(InputFileError::Io)?)?;
    let expected = usize::try_from(metadata.len()).unwrap_or(usize::MAX);
    let mut data = Vec::with_capacity(expected.saturating_add(1));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(InputFileError::Io)?;
    if data.len() as u64 > max_bytes {
        return Err(InputFileError::TooLarge(max_bytes));
    }
    Ok(data)
}

/// The first half of [`read_input_file`], without opening the file: `path` must name a regular
/// file (symbolic links followed). Returns its metadata, whose size is only a hint.
pub fn check_input_file(path: &Path) -> Result<std::fs::Metadata, InputFileError> {
    let metadata = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => {
            InputFileError::NotFound
        }
        _ => InputFileError::Io(e),
    })?;
    regular(&metadata)?;
    Ok(metadata)
}

/// Refuses anything but a regular file, saying what it is.
fn regular(metadata: &std::fs::Metadata) -> Result<(), InputFileError> {
    let kind = metadata.file_type();
    if kind.is_file() {
        return Ok(());
    }
    let what = if kind.is_dir() {
        "a directory"
    } else {
        special_kind(&kind)
    };
    Err(InputFileError::NotRegular(what))
}

#[cfg(unix)]
fn special_kind(kind: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

#[cfg(not(unix))]
fn special_kind(_: &std::fs::FileType) -> &'static str {
    "a special file"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_that_understates_the_size_is_not_trusted() {
        // procfs files say they are empty; this one is not.
        let path = Path::new("/proc/self/maps");
        if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0) {
            assert!(matches!(
                read_input_file(path, 8),
                Err(InputFileError::TooLarge(8))
            ));
        }
    }

    #[test]
    fn devices_are_refused_before_reading() {
        let path = Path::new("/dev/zero");
        if path.exists() {
            let e = read_input_file(path, 1 << 20).unwrap_err();
            assert_eq!(
                e.to_string(),
                "a character device, not a regular file; arenaplan reads its inputs only from regular files"
            );
            assert!(!e.is_io());
        }
    }

    #[test]
    fn exactly_the_limit_is_accepted() {
        let dir = std::env::temp_dir().join(format!("arenaplan-read-limit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("f");
        std::fs::write(&path, [7u8; 100]).unwrap();
        assert_eq!(read_input_file(&path, 100).unwrap().len(), 100);
        assert!(matches!(
            read_input_file(&path, 99),
            Err(InputFileError::TooLarge(99))
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
