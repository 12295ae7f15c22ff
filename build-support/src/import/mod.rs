//! Every importer: ExecuTorch programs (`.pte`), TFLite models (`.tflite`, including Vela
//! output) and arenaplan's native TOML models, each into the [model IR](crate::model). Our own
//! readers, written from the formats' documented facts; every offset and count in a file is
//! checked before use.

mod arm_moves;
pub(crate) mod flatbuf;
pub(crate) mod flexbuf;
mod in_place;
mod model_folder;
mod pte;
mod tflite;
mod tflite_names;
mod toml;
mod views;

use std::path::Path;

use crate::diagnostic::Diagnostic;
use crate::model::Program;
pub use toml::{load_toml_model, parse_toml_model};

use thiserror::Error;

use crate::backends::BlobError;
pub use flatbuf::FbError;
pub use in_place::is_in_place_operator;
pub use model_folder::{ModelFolder, ModelPathError};
pub use pte::{extended_header, load_pte, read_pte, ExtendedHeader};
pub use tflite::{load_tflite, read_tflite};
pub use tflite_names::{builtin_name, tflite_operator};

/// Largest model file read (the largest real models for these NPUs are a few megabytes).
pub const MAX_MODEL_FILE: u64 = 256 << 20;

/// A model file that cannot be imported.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The file could not be read.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// The flatbuffer structure is broken.
    #[error("malformed flatbuffer {0}")]
    Flatbuffer(#[from] FbError),
    /// The structure is sound but the content is not (bad index, impossible size).
    #[error("{0}")]
    Invalid(String),
    /// A feature arenaplan does not import.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A delegate's blob is not what its backend expects.
    #[error(transparent)]
    Blob(#[from] BlobError),
    /// The program breaks a rule every model must keep, whatever its format.
    #[error(transparent)]
    Model(#[from] crate::model::ModelError),
    /// The model file was not read: not a regular file, too large, or unreadable.
    #[error(transparent)]
    File(#[from] InputFileError),
}

pub use arenaplan_syntax::input::{check_input_file, read_input_file, InputFileError};

/// An index a file gives (`raw`, from `what`) as a position below `count`, or the error saying
/// `what` refers to `thing` `raw` while `whole` has `count`.
pub(crate) fn index_below(
    raw: i32,
    count: usize,
    what: &str,
    thing: &str,
    whole: &str,
) -> Result<usize, ImportError> {
    usize::try_from(raw)
        .ok()
        .filter(|&i| i < count)
        .ok_or_else(|| {
            ImportError::Invalid(format!(
                "{what} refers to {thing} {raw}, but {whole} has {count}"
            ))
        })
}

/// What every binary importer ends with: the semantic check of the program it read
/// ([`crate::model::check`]), so no importer hands the pipeline a program it has not checked.
pub(crate) fn checked(program: Result<Program, ImportError>) -> Result<Program, ImportError> {
    let program = program?;
    crate::model::check(&program)?;
    Ok(program)
}

/// Reads a whole model file with [`read_input_file`], refusing files over [`MAX_MODEL_FILE`].
pub(crate) fn read_bounded(path: &Path) -> Result<Vec<u8>, ImportError> {
    Ok(read_input_file(path, MAX_MODEL_FILE)?)
}

/// Loads a model, choosing the reader by the file's extension. The files it names must be in
/// its folder ([`ModelFolder`]).
pub fn load_model(path: &Path) -> Result<Program, Diagnostic> {
    load_model_in(path, &ModelFolder::of(path))
}

/// [`load_model`], with the files the model names resolved by `files` (e.g. a folder widened
/// with [`ModelFolder::allow_under`]).
pub fn load_model_in(path: &Path, files: &ModelFolder) -> Result<Program, Diagnostic> {
    let imported = match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => return toml::load_toml_model_in(path, files),
        Some("pte") => load_pte(path),
        Some("tflite") => load_tflite(path),
        other => {
            return Err(Diagnostic::file(
                path,
                format!(
                    "unsupported model format{}",
                    other.map(|e| format!(" `.{e}`")).unwrap_or_default()
                ),
            )
            .with_help("arenaplan reads ExecuTorch programs (.pte), TFLite models (.tflite) and native models (.toml)"))
        }
    };
    imported.map_err(|e| Diagnostic::file(path, e.to_string()))
}
