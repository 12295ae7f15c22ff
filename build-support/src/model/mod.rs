//! The model IR, the native TOML model format, and loading models by file type.

mod describe;
mod ir;
mod toml_model;

use std::path::Path;

pub use describe::describe;
pub use ir::*;
pub use toml_model::{load_toml_model, parse_toml_model};

use crate::diagnostic::Diagnostic;

/// Loads a model, choosing the reader by the file's extension.
pub fn load_model(path: &Path) -> Result<Program, Diagnostic> {
    let imported = match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => return load_toml_model(path),
        Some("pte") => crate::import::load_pte(path),
        Some("tflite") => crate::import::load_tflite(path),
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
