//! The stages after planning, as every build runs them: verify, then emit.

use super::BuildError;
use crate::emit::{emit, Blobs, Emit, Input, Symbols};
use crate::model::Program;
use crate::pipeline::{Declarations, ModelPlan};
use crate::verify::verify;

/// What to generate from a plan, and how to name it.
#[derive(Clone, Copy, Debug)]
pub struct Artifacts<'a> {
    /// Base name of the files and prefix of C symbols (a C identifier).
    pub name: &'a str,
    /// The firmware's `#[delegate]` declarations.
    pub declared: &'a Declarations,
    /// Which side defines the arenas and tables.
    pub symbols: Symbols,
    /// How delegate blobs are linked.
    pub blobs: Blobs,
    /// Which artifacts.
    pub what: Emit,
    /// The operators that run on ExecuTorch's own kernels, whose shims the C artifacts include
    /// (`kernels::executorch::program_operators`).
    pub executorch: &'a [&'static crate::kernels::executorch::Signature],
    /// Whether ExecuTorch's kernels are compiled for every dtype rather than the program's.
    pub all_kernel_dtypes: bool,
}

/// The stages after planning, as every build runs them: the verify stage on the plan and on
/// every call against the firmware's declarations, then the emitters on what it accepted. A
/// plan that does not hold fails here, before any byte of generated code exists.
pub fn verify_and_emit(
    program: &Program,
    plan: &ModelPlan,
    target: &crate::targets::Target,
    artifacts: &Artifacts<'_>,
) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let verified = verify(program, plan, target)?;
    crate::verify::check_declarations(program, artifacts.declared, target)?;
    let input = Input::new(
        verified,
        artifacts.name,
        artifacts.declared,
        artifacts.symbols,
    )
    .blobs(artifacts.blobs);
    let mut files = emit(&input, artifacts.what)?;
    // The C++ binding the program's operators to ExecuTorch's kernels, beside the C.
    if artifacts.what.c {
        let cpp = crate::kernels::executorch::program_files(
            program,
            artifacts.executorch,
            artifacts.name,
            artifacts.all_kernel_dtypes,
        )
        .map_err(BuildError::Missing)?;
        files.extend(cpp.into_iter().map(|(f, text)| (f, text.into_bytes())));
    }
    Ok(files)
}
