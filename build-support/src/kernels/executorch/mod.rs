//! ExecuTorch's own C++ kernels, bound to arenaplan's runtime: for every operator a program
//! calls that ExecuTorch implements (its portable kernels, its quantized kernels, its Cortex-M
//! backend's CMSIS-NN kernels), the kernel ExecuTorch itself links, so a program computes what
//! ExecuTorch's runtime computes, by construction.
//!
//! The room's layout:
//! - `signatures.tsv` and [`signatures`]: each kernel's C++ signature, written by
//!   `scripts/make_et_signatures.py` from ExecuTorch's and torch's schemas;
//! - [`readers`]: which bridge reader takes each C++ argument type;
//! - [`shims`]: the generated C++ file, one shim per operator the program calls;
//! - [`sources`]: the files and flags that compile them;
//! - [`selection`]: each kernel file compiled only for the dtypes the program uses;
//! - [`temp`]: the temp memory a kernel asks its context for, planned per call;
//! - [`cortex_m_scratch`] and [`cortex_m_linear`]: a Cortex-M program lowered for one core,
//!   made right for the core the build runs it on (CMSIS-NN's buffers, fully connected's
//!   constant term), see [`for_core`].
//!
//! The bridge the shims call (`ap_et_call.h`, `ap_et_platform.cpp`) is hand-written C++ in
//! `runtime-c/kernels/executorch/bridge/`, shipped by arenaplan-kernels. The build compiles
//! only the operators the program calls; which operators run here and which in Rust
//! (arenaplan-kernels) is [`implementation`]'s answer.

pub mod cortex_m_linear;
pub mod cortex_m_scratch;
pub mod readers;
pub mod selection;
pub mod shims;
pub mod signatures;
pub mod sources;
pub mod temp;

pub use readers::reader;
pub use selection::{render_unit, unit_file, Dtypes};
pub use shims::{render_shims, Capacities};
pub use signatures::{signature, Signature};
pub use sources::{
    bridge_headers, need_cmsis_nn, support_file_names, ExecuTorchSources, BRIDGE_SOURCE, DEFINES,
    ENV_EXECUTORCH_PATH, EXECUTORCH_FETCH, FLAGS,
};

/// The operators of `program` that run on ExecuTorch's kernels, each once, in order of first
/// call: those ExecuTorch implements that the firmware does not implement itself
/// (`firmware_has`: its own `#[kernel]`s and the kernels it links from C).
pub fn program_operators(
    program: &crate::model::Program,
    firmware_has: impl Fn(&str) -> bool,
) -> Vec<&'static Signature> {
    let mut out: Vec<&'static Signature> = Vec::new();
    for (_, instruction) in program.flat_instructions() {
        if let crate::model::Instruction::Kernel(call) = instruction {
            if firmware_has(&call.op) {
                continue;
            }
            if let Implementation::ExecuTorch(sig) = implementation(&call.op) {
                if !out.iter().any(|s| s.op == sig.op) {
                    out.push(sig);
                }
            }
        }
    }
    out
}

/// The C++ files binding `ops`, operators of `program`, for the build named `name`: the shims
/// (`NAME_kernels.cpp`), then one unit per kernel file ([`selection::render_unit`], compiled
/// for the dtypes the program uses unless `all_dtypes`); none when `ops` is empty.
pub fn program_files(
    program: &crate::model::Program,
    ops: &[&'static Signature],
    name: &str,
    all_dtypes: bool,
) -> Result<Vec<(String, String)>, String> {
    if ops.is_empty() {
        return Ok(Vec::new());
    }
    let caps = Capacities::of(program, |op| ops.iter().any(|s| s.op == op));
    caps.check()?;
    let mut files = vec![(shims_file(name), render_shims(ops, caps)?)];
    let dtypes = (!all_dtypes).then(|| Dtypes::of(program, ops));
    for file in kernel_files(ops) {
        files.push((
            unit_file(name, file),
            render_unit(file, ops, dtypes.as_ref()),
        ));
    }
    files.push((cmake_file(name), render_cmake_list(name, ops)));
    Ok(files)
}

/// The file listing, for CMake (`arenaplan_add_model`), what compiles the build named
/// `name`'s kernels.
pub fn cmake_file(name: &str) -> String {
    format!("{name}_kernels.cmake")
}

/// `NAME_kernels.cmake`: data for CMake, the same lists and flags `Generated::executorch_build`
/// compiles with: the generated files (in the output folder), ExecuTorch's files they link
/// (relative to its checkout), the compile flags and defines, and whether CMSIS-NN's headers
/// are needed. Only names from arenaplan's own tables: nothing a model says reaches it.
///
/// ```
/// use arenaplan_build::executorch::{render_cmake_list, signature};
/// let cmake = render_cmake_list("kws", &[signature("aten::add.out").unwrap()]);
/// assert!(cmake.contains("\"kws_et_portable_cpu_op_add.cpp\""));
/// assert!(cmake.contains("set(ARENAPLAN_KERNELS_NEED_CMSIS_NN OFF)"));
/// ```
pub fn render_cmake_list(name: &str, ops: &[&'static Signature]) -> String {
    let quoted =
        |items: Vec<String>| -> String { items.iter().map(|i| format!("\n  \"{i}\"")).collect() };
    let mut generated = vec![shims_file(name)];
    generated.extend(kernel_files(ops).into_iter().map(|f| unit_file(name, f)));
    let mut out = String::from(
        "# Generated by arenaplan-build: what compiles this program's ExecuTorch kernels, read \
         by\n# arenaplan_add_model (runtime-c/cmake). Do not edit.\n",
    );
    let lists = [
        ("ARENAPLAN_KERNEL_UNITS", generated),
        (
            "ARENAPLAN_EXECUTORCH_SOURCES",
            support_file_names(ops)
                .into_iter()
                .map(String::from)
                .collect(),
        ),
        (
            "ARENAPLAN_KERNEL_FLAGS",
            FLAGS.iter().map(|f| f.to_string()).collect(),
        ),
        (
            "ARENAPLAN_KERNEL_DEFINES",
            DEFINES.iter().map(|d| d.to_string()).collect(),
        ),
    ];
    for (var, items) in lists {
        out.push_str(&format!("set({var}{})\n", quoted(items)));
    }
    out.push_str(&format!(
        "set(ARENAPLAN_KERNEL_BRIDGE_SOURCE \"{BRIDGE_SOURCE}\")\n\
         set(ARENAPLAN_KERNELS_NEED_CMSIS_NN {})\n",
        if need_cmsis_nn(ops) { "ON" } else { "OFF" }
    ));
    out
}

/// The file of the build named `name`'s shims.
pub fn shims_file(name: &str) -> String {
    format!("{name}_kernels.cpp")
}

/// The kernel files defining `ops`, each once, in order of first operator.
pub fn kernel_files(ops: &[&'static Signature]) -> Vec<&'static str> {
    let mut files: Vec<&'static str> = Vec::new();
    for sig in ops {
        if !files.contains(&sig.file) {
            files.push(sig.file);
        }
    }
    files
}

/// Makes `program`'s Cortex-M operator calls right for `isa`'s CMSIS-NN kernels: their
/// buffers sized for it, their fully connected constant term in the form it reads.
pub fn for_core(program: &mut crate::model::Program, isa: crate::model::Isa) {
    cortex_m_scratch::size_scratch_for(program, isa);
    cortex_m_linear::linear_for(program, isa);
}

/// Who implements an ExecuTorch operator in a build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Implementation {
    /// arenaplan-kernels, in Rust (ExecuTorch's prim ops, which have no C++ schema to bind,
    /// and the operators it has kept: each is tested against ExecuTorch's C++ kernel).
    Rust,
    /// ExecuTorch's own kernel, through a generated shim.
    ExecuTorch(&'static Signature),
    /// Neither.
    None,
}

/// Who implements `op`: arenaplan-kernels if it has it (one implementation per operator),
/// else ExecuTorch's kernel if its signature is bindable.
///
/// ```
/// use arenaplan_build::executorch::{implementation, Implementation};
/// assert_eq!(implementation("executorch_prim::add.Scalar"), Implementation::Rust);
/// assert!(matches!(implementation("aten::convolution.out"), Implementation::ExecuTorch(_)));
/// assert_eq!(implementation("aten::no_such_op.out"), Implementation::None);
/// ```
pub fn implementation(op: &str) -> Implementation {
    if arenaplan_syntax::kernels::RUST_KERNELS.contains(&op) {
        return Implementation::Rust;
    }
    match signature(op) {
        Some(sig)
            if sig
                .args
                .iter()
                .all(|(cxx, name)| reader(cxx, name).is_some()) =>
        {
            Implementation::ExecuTorch(sig)
        }
        _ => Implementation::None,
    }
}
