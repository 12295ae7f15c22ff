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
    match path.extension().and_then(|e| e.to_str()) {
        Some("toml") => load_toml_model(path),
        other => Err(Diagnostic::file(
            path,
            format!(
                "unsupported model format{}",
                other.map(|e| format!(" `.{e}`")).unwrap_or_default()
            ),
        )
        .with_help("arenaplan reads native models (.toml)")),
    }
}
