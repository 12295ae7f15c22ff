//! Shared by the integration tests: the corpus under `../shared/corpus/`, small models, and
//! the build's last stages on a plan.
#![allow(dead_code, unused_imports)] // each test binary uses its own subset

mod corpus;
pub mod npy;

pub use corpus::{corpus, files, reference, skip};

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
) -> Vec<(String, Vec<u8>)> {
    let verified = verify(program, plan, target).unwrap_or_else(|e| panic!("{e}"));
    emit(
        &Input::new(verified, name, &Default::default(), symbols),
        what,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// The text of generated file `name` among `files` (what `emit` and `Rendered::files` give);
/// panics naming it when it is missing or not UTF-8.
pub fn text<'a>(files: &'a [(String, Vec<u8>)], name: &str) -> &'a str {
    let (_, bytes) = files
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no generated file {name}"));
    std::str::from_utf8(bytes).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// x (16 int8) -> one call of `backend` running `blob` -> y (`out_bytes` int8), with the
/// scratch its plugin reads from the blob, as the `.pte` importer declares it, and the compile
/// spec `compile_flags` set to `flags`.
pub fn blob_call(backend: &str, blob: Vec<u8>, flags: &str, out_bytes: u64) -> Program {
    use arenaplan_build::model::{DType, Delegate, DelegateCall, Instruction, Value};
    let mut compile_specs = std::collections::BTreeMap::new();
    compile_specs.insert("compile_flags".to_owned(), flags.to_owned());
    let info = arenaplan_build::backends::plugin_for(backend)
        .unwrap()
        .inspect(&blob, &compile_specs)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut p = Program::new("one_call");
    let x = p.add_value(Value::planned("x", DType::Int8, vec![16]));
    let y = p.add_value(Value::planned("y", DType::Int8, vec![out_bytes]));
    p.delegates.push(Delegate {
        name: "npu".into(),
        backend: backend.into(),
        blob: Some(blob),
        compile_specs,
        scratch: info.scratch.iter().map(|s| s.to_spec(backend)).collect(),
    });
    p.body.push(Instruction::Delegate(DelegateCall {
        delegate: 0,
        inputs: vec![x],
        outputs: vec![y],
        scratch: Vec::new(),
    }));
    p.inputs = vec![x];
    p.outputs = vec![y];
    p
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

/// Compiles the generated `sources` (file names in `dir`) with `main_c` (written to
/// `dir/main.c`) and the runtime's `runtime.c`, as a C integrator does (`-std=c11 -Wall
/// -Wextra -Werror`), runs the program and returns what it printed; panics when it does not
/// compile or exits non-zero.
pub fn run_generated_c(dir: &std::path::Path, sources: &[&str], main_c: &str) -> String {
    run_generated_c_with(dir, sources, main_c, &[])
}

/// [`run_generated_c`] with more of the runtime's files, relative to `runtime-c/` (a backend, a
/// simulator).
pub fn run_generated_c_with(
    dir: &std::path::Path,
    sources: &[&str],
    main_c: &str,
    runtime_sources: &[&str],
) -> String {
    run_generated_c_on(dir, sources, main_c, runtime_sources, &[], &[])
}

/// The runtime's TFLite kernels, one C file per operator, relative to `runtime-c/`.
#[allow(dead_code)]
pub fn tflite_kernel_sources() -> Vec<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c/kernels/tflite");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| name.ends_with(".c"))
        .map(|name| format!("kernels/tflite/{name}"))
        .collect();
    files.sort();
    files
}

/// [`run_generated_c_with`] with sources from elsewhere (a vendor library's) and their
/// include folders.
pub fn run_generated_c_on(
    dir: &std::path::Path,
    sources: &[&str],
    main_c: &str,
    runtime_sources: &[&str],
    others: &[std::path::PathBuf],
    includes: &[std::path::PathBuf],
) -> String {
    use std::process::Command;
    std::fs::write(dir.join("main.c"), main_c).unwrap();
    let runtime = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let exe = dir.join("run");
    let out = Command::new(&cc)
        .args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-o"])
        .arg(&exe)
        .arg(dir.join("main.c"))
        .args(sources.iter().map(|s| dir.join(s)))
        .arg(runtime.join("core/runtime.c"))
        .args(runtime_sources.iter().map(|s| runtime.join(s)))
        .args(others)
        .args(
            includes
                .iter()
                .flat_map(|i| [std::ffi::OsStr::new("-I"), i.as_os_str()]),
        )
        .arg("-I")
        .arg(dir)
        .arg("-I")
        .arg(runtime.join("include"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{stdout}");
    stdout
}

/// `program` built for corstone-300 as a C integrator builds it (the CLI's `--source` with a
/// declarations file holding `declarations`, symbols defined in C), its files written to a
/// fresh folder named after `tag`; the folder and what was rendered.
pub fn render_for_c(
    tag: &str,
    program: Program,
    declarations: &str,
) -> (std::path::PathBuf, arenaplan_build::Rendered) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let decls = dir.join("kernels.rs");
    std::fs::write(&decls, declarations).unwrap();
    let rendered = arenaplan_build::Build::new()
        .program(program)
        .target("corstone-300")
        .source(&decls)
        .symbols(Symbols::C)
        .cargo_metadata(false)
        .try_render()
        .unwrap_or_else(|e| panic!("{e}"));
    for (name, text) in &rendered.files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    (dir, rendered)
}
