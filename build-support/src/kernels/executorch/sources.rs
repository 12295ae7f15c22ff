//! What compiles a program's ExecuTorch kernels, and how: the files (each operator's own file,
//! the utilities they share, the two runtime-core files a kernel links, the bridge) and the
//! flags ExecuTorch's own embedded build uses. One list for the firmware's `cc::Build` and
//! for the host runner's compile, so both run the same code.

use std::path::{Path, PathBuf};

use super::signatures::Signature;

/// The environment variable naming a checkout of ExecuTorch's sources (a folder named
/// `executorch`, whose parent is where `<executorch/...>` includes resolve).
pub const ENV_EXECUTORCH_PATH: &str = "EXECUTORCH_PATH";

/// How to get the sources arenaplan is tested against, for the messages that ask for them: the
/// commit of `pytorch/executorch` and the one command that fetches it.
pub const EXECUTORCH_FETCH: &str = "ExecuTorch commit cff6f4dd32e630945b7188512c1f2b4f102b05ad: \
    `git clone https://github.com/pytorch/executorch && git -C executorch checkout \
    cff6f4dd32e630945b7188512c1f2b4f102b05ad`, then EXECUTORCH_PATH=$PWD/executorch";

/// ExecuTorch's sources, checked to be what the kernels need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExecuTorchSources {
    root: PathBuf,
}

impl ExecuTorchSources {
    /// `root` if it holds ExecuTorch's kernels and runtime headers, in a folder named
    /// `executorch` (ExecuTorch's sources include each other as `<executorch/...>`).
    pub fn at(root: impl Into<PathBuf>) -> Result<Self, String> {
        let root = root.into();
        let probe = root.join("kernels/portable/cpu/op_add.cpp");
        if !probe.is_file()
            || !root
                .join("runtime/kernel/kernel_runtime_context.h")
                .is_file()
        {
            return Err(format!(
                "{} is not a checkout of ExecuTorch's sources (no kernels/portable/cpu/op_add.cpp \
                 or runtime/kernel/kernel_runtime_context.h there); point {ENV_EXECUTORCH_PATH} \
                 at one",
                root.display()
            ));
        }
        if root.file_name().and_then(|n| n.to_str()) != Some("executorch") {
            return Err(format!(
                "{} holds ExecuTorch's sources but is not named `executorch`: its files include \
                 each other as <executorch/...>; use a folder of that name",
                root.display()
            ));
        }
        Ok(ExecuTorchSources { root })
    }

    /// The sources `EXECUTORCH_PATH` names, if it is set.
    pub fn from_env() -> Option<Result<Self, String>> {
        std::env::var_os(ENV_EXECUTORCH_PATH).map(|p| Self::at(PathBuf::from(p)))
    }

    /// The checkout's root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The include folders a kernel compiles with (before the bridge's and the runtime's).
    pub fn includes(&self) -> Vec<PathBuf> {
        let parent = self
            .root
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        vec![parent, self.root.join("runtime/core/portable_type/c10")]
    }

    /// What `kernels` link beside their own files (which compile through generated units,
    /// `selection::render_unit`): the helpers a kernel file needs, each once, then what every
    /// kernel may link (shared utilities, TensorImpl, the tensor checks). Unused functions cost
    /// nothing in firmware: it links with section garbage collection.
    pub fn support_files(&self, kernels: &[&Signature]) -> Vec<PathBuf> {
        support_file_names(kernels)
            .into_iter()
            .map(|f| self.root.join(f))
            .collect()
    }
}

/// [`ExecuTorchSources::support_files`], as paths in ExecuTorch's sources.
pub fn support_file_names(kernels: &[&Signature]) -> Vec<&'static str> {
    let mut files: Vec<&'static str> = Vec::new();
    for k in kernels {
        for (_, helper) in HELPERS.iter().filter(|(of, _)| *of == k.file) {
            if !files.contains(helper) {
                files.push(helper);
            }
        }
    }
    files.extend(SHARED);
    files
}

/// The bridge's one C++ file (in arenaplan-kernels' `bridge/`), compiled with every program's
/// kernels.
pub const BRIDGE_SOURCE: &str = "ap_et_platform.cpp";

/// The bytes of every header in the bridge's folder `bridge`, in name order: part of the
/// cache key of every object that includes them (a unit, the shims), so a changed bridge
/// recompiles what depends on it.
pub fn bridge_headers(bridge: &Path) -> Result<Vec<u8>, String> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(bridge)
        .map_err(|e| format!("reading {}: {e}", bridge.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "h"))
        .collect();
    names.sort();
    let mut bytes = Vec::new();
    for n in names {
        bytes.extend(std::fs::read(&n).map_err(|e| format!("reading {}: {e}", n.display()))?);
    }
    Ok(bytes)
}

/// Files a kernel's own file needs beside the shared ones: (kernel file, helper file).
const HELPERS: &[(&str, &str)] = &[
    (
        "kernels/quantized/cpu/op_embedding2b.cpp",
        "kernels/quantized/cpu/embeddingxb.cpp",
    ),
    (
        "kernels/quantized/cpu/op_embedding4b.cpp",
        "kernels/quantized/cpu/embeddingxb.cpp",
    ),
];

/// Whether `kernels` include the Cortex-M backend's, which call CMSIS-NN (its headers to
/// compile, its functions to link: the runtime's CMSIS-NN build has them).
pub fn need_cmsis_nn(kernels: &[&Signature]) -> bool {
    kernels
        .iter()
        .any(|k| k.file.starts_with("backends/cortex_m/"))
}

/// What every kernel may link: the portable kernels' utilities and patterns (the elementwise
/// loops the unary kernels share), the tensor type and the tensor checks. (Not ExecuTorch's platform layer: the bridge's `ap_et_platform.cpp` stands in.)
const SHARED: &[&str] = &[
    "kernels/portable/cpu/pattern/unary_ufunc_realhbbf16_to_bool.cpp",
    "kernels/portable/cpu/pattern/unary_ufunc_realhbbf16_to_floathbf16.cpp",
    "kernels/portable/cpu/pattern/unary_ufunc_realhbf16.cpp",
    "kernels/portable/cpu/util/activation_ops_util.cpp",
    "kernels/portable/cpu/util/advanced_index_util.cpp",
    "kernels/portable/cpu/util/arange_util.cpp",
    "kernels/portable/cpu/util/broadcast_util.cpp",
    "kernels/portable/cpu/util/copy_ops_util.cpp",
    "kernels/portable/cpu/util/delinearize_index.cpp",
    "kernels/portable/cpu/util/distance_util.cpp",
    "kernels/portable/cpu/util/dtype_util.cpp",
    "kernels/portable/cpu/util/grid_sampler_2d_util.cpp",
    "kernels/portable/cpu/util/index_util.cpp",
    "kernels/portable/cpu/util/kernel_ops_util.cpp",
    "kernels/portable/cpu/util/matmul_ops_util.cpp",
    "kernels/portable/cpu/util/normalization_ops_util.cpp",
    "kernels/portable/cpu/util/padding_util.cpp",
    "kernels/portable/cpu/util/reduce_util.cpp",
    "kernels/portable/cpu/util/repeat_util.cpp",
    "kernels/portable/cpu/util/select_copy_util.cpp",
    "kernels/portable/cpu/util/slice_util.cpp",
    "kernels/portable/cpu/util/stack_util.cpp",
    "kernels/portable/cpu/util/upsample_util.cpp",
    "runtime/core/portable_type/tensor_impl.cpp",
    "runtime/core/exec_aten/util/tensor_util_portable.cpp",
    "runtime/core/exec_aten/util/tensor_shape_to_c_string.cpp",
];

/// The flags every file compiles with, as ExecuTorch's embedded builds use them: C++17, no
/// exceptions or RTTI (firmware has neither).
pub const FLAGS: &[&str] = &[
    "-std=c++17",
    "-fno-exceptions",
    "-fno-rtti",
    "-Wno-deprecated-declarations",
    // No guard variables for function statics: firmware links no C++ runtime library.
    "-fno-threadsafe-statics",
];

/// The defines every file compiles with (`NAME` or `NAME=VALUE`).
pub const DEFINES: &[&str] = &[
    "C10_USING_CUSTOM_GENERATED_MACROS",
    "ET_LOG_ENABLED=0",
    "NDEBUG",
    // The Cortex-M kernels check the CMSIS-NN buffer they are given against what CMSIS-NN
    // asks for its variant: a wrong size fails the call rather than overrun the buffer.
    "CORTEX_M_ENABLE_RUNTIME_CHECKS",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_without_the_kernels_is_refused_naming_the_variable() {
        let err = ExecuTorchSources::at("/nonexistent/executorch").unwrap_err();
        assert!(err.contains("EXECUTORCH_PATH"), "{err}");
    }
}
