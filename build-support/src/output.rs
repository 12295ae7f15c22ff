//! Writing output files safely: whole or not at all, and untouched when unchanged.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

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
    if fs::read(path).is_ok_and(|old| old == bytes) {
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
