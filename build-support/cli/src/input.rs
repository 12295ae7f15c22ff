//! The command line's input files — models, targets catalogues, scanned sources, lifetime
//! CSVs — all read through [`read_input_file`]: regular files only, never more than a limit,
//! and a failure to read told apart from a bad file.

use std::io::Read;
use std::path::{Path, PathBuf};

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::import::{
    check_input_file, read_input_file, read_pte, read_tflite, InputFileError, MAX_MODEL_FILE,
};
use arenaplan_build::import::{load_model as load_by_extension, parse_toml_model, ModelFolder};
use arenaplan_build::model::Program;
use arenaplan_build::targets::Catalogue;

use crate::{Failure, Status};

/// Largest text input: a native TOML model or a scanned source (as the library's readers).
const MAX_TEXT_FILE: u64 = 16 << 20;
/// Largest targets catalogue (as `Catalogue::load`).
const MAX_TARGETS_FILE: u64 = 4 << 20;
/// Largest lifetime CSV (a million buffers take some 30 MB).
pub(crate) const MAX_CSV_FILE: u64 = 256 << 20;

/// The failure for a file that was not read: an I/O failure, or bad input.
fn file_failure(path: &Path, e: &InputFileError) -> Failure {
    let status = if e.is_io() {
        Status::Io
    } else {
        Status::BadInput
    };
    Failure::new(status, format!("{}: {e}", path.display()))
}

/// The bytes of the file at `path`, at most `max_bytes` of them.
pub(crate) fn read(path: &Path, max_bytes: u64) -> Result<Vec<u8>, Failure> {
    read_input_file(path, max_bytes).map_err(|e| file_failure(path, &e))
}

/// Standard input, at most `max_bytes` of it.
pub(crate) fn read_stdin(max_bytes: u64) -> Result<Vec<u8>, Failure> {
    let mut data = Vec::new();
    std::io::stdin()
        .lock()
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut data)
        .map_err(|e| Failure::io(format!("standard input: cannot read: {e}")))?;
    if data.len() as u64 > max_bytes {
        return Err(Failure::bad_input(format!(
            "standard input: {}",
            InputFileError::TooLarge(max_bytes)
        )));
    }
    Ok(data)
}

/// The text of the file at `path`.
fn text(path: &Path, max_bytes: u64) -> Result<SourceText, Failure> {
    let bytes = read(path, max_bytes)?;
    let text = String::from_utf8(bytes)
        .map_err(|e| Failure::bad_input(format!("{}: not UTF-8 text: {e}", path.display())))?;
    Ok(SourceText::new(path, text))
}

/// The model at `path`, by its extension (`.pte`, `.tflite`, `.toml`). The files it names
/// must lie in its folder, or under `files_root` when given (`--files-root`).
pub(crate) fn load_model(path: &Path, files_root: Option<&Path>) -> Result<Program, Failure> {
    let stem = path.file_stem().and_then(|s| s.to_str());
    let content =
        |e: &dyn std::fmt::Display| Failure::bad_input(format!("{}: {e}", path.display()));
    match path.extension().and_then(|e| e.to_str()) {
        // The default names are the library's (`load_pte`, `load_tflite`), so that the CLI
        // and build.rs name their outputs alike.
        Some("pte") => read_pte(&read(path, MAX_MODEL_FILE)?, stem.unwrap_or("program"))
            .map_err(|e| content(&e)),
        Some("tflite") => read_tflite(&read(path, MAX_MODEL_FILE)?, stem.unwrap_or("model"))
            .map_err(|e| content(&e)),
        Some("toml") => {
            let source = text(path, MAX_TEXT_FILE)?;
            let files = ModelFolder::of(path).allow_under(files_root);
            parse_toml_model(&source, Some(&files)).map_err(Failure::bad_input)
        }
        // Not a model format: the library says which formats it reads (without reading), once
        // the path is known to name a regular file.
        _ => {
            check_input_file(path).map_err(|e| file_failure(path, &e))?;
            load_by_extension(path).map_err(Failure::bad_input)
        }
    }
}

/// The catalogue at `path`, or the built-in one.
pub(crate) fn load_catalogue(path: Option<&Path>) -> Result<Catalogue, Failure> {
    match path {
        Some(path) => Catalogue::parse(&text(path, MAX_TARGETS_FILE)?).map_err(Failure::bad_input),
        None => Ok(Catalogue::builtin()),
    }
}

/// Checks that every source to scan is a regular file within the limit, before the scanner
/// opens it (it reads by path). Every problem is reported; an I/O failure decides the status.
pub(crate) fn check_sources(sources: &[PathBuf]) -> Result<(), Failure> {
    let problems: Vec<Failure> = sources
        .iter()
        .filter_map(|s| read(s, MAX_TEXT_FILE).err())
        .collect();
    if problems.is_empty() {
        return Ok(());
    }
    let status = if problems.iter().any(|f| f.status == Status::Io) {
        Status::Io
    } else {
        Status::BadInput
    };
    Err(Failure {
        status,
        messages: problems.into_iter().flat_map(|f| f.messages).collect(),
    })
}
