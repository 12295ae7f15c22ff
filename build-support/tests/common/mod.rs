//! Shared by the integration tests: the corpus under `../shared/corpus/`, small models, and
//! the build's last stages on a plan.
#![allow(dead_code, unused_imports)] // each test binary uses its own subset

mod corpus;

pub use corpus::{corpus, files, reference};

use arenaplan_build::emit::{emit, Emit, Input, Symbols};
use arenaplan_build::model::Program;
use arenaplan_build::pipeline::ModelPlan;
use arenaplan_build::targets::Target;
use arenaplan_build::verify::verify;

/// The files of `dir` as (name, bytes), sorted by name: two output folders compare equal
/// exactly when they hold the same files with the same bytes.
pub fn folder_bytes(dir: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap())
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// `program` planned for `target` by the pipeline, and the plan checked by the verify stage as
/// every build checks it (a plan that fails is a bug: the test panics).
pub fn planned(
    target: &Target,
    program: Program,
) -> Result<(Program, ModelPlan), arenaplan_build::pipeline::PipelineError> {
    let (program, plan) = arenaplan_build::pipeline::Pipeline::new(target).run(program)?;
    verify(&program, &plan, target).unwrap_or_else(|e| panic!("{e}"));
    Ok((program, plan))
}

/// What the build writes for `plan`: the verify stage, then every emitter in `what` (no
/// `#[delegate]` declarations). Panics if the plan does not verify.
pub fn emit_files(
    program: &Program,
    plan: &ModelPlan,
    target: &Target,
    name: &str,
    symbols: Symbols,
    what: Emit,
) -> Vec<(String, String)> {
    let verified = verify(program, plan, target).unwrap_or_else(|e| panic!("{e}"));
    emit(
        &Input::new(verified, name, &Default::default(), symbols),
        what,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// x (16 bytes) -> one `backend` call with `scratch` -> y (16 bytes).
pub fn one_call(backend: &str, scratch: &str) -> String {
    format!(
        r#"
name = "one_call"
inputs = ["x"]
outputs = ["y"]
[[tensor]]
name = "x"
dtype = "int8"
shape = [16]
[[tensor]]
name = "y"
dtype = "int8"
shape = [16]
[[delegate]]
name = "npu"
backend = "{backend}"
scratch = [{scratch}]
[[instruction]]
kind = "delegate"
delegate = "npu"
inputs = ["x"]
outputs = ["y"]
"#
    )
}
