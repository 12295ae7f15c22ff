//! Operators no kernel implements, refused at build time, before generated tables that call
//! them fail to link on an undefined `ap_kernel_...`:
//! - a TFLite operator the importer left as `builtin:N` or `custom:NAME` (arenaplan's runtime
//!   has no kernel for it);
//! - an ExecuTorch operator (`namespace::name.overload`) that neither ExecuTorch's kernel
//!   libraries bound here (portable, quantized, Cortex-M) nor arenaplan-kernels implement.
//!
//! The build names each, with what to do: write the kernel (`#[kernel(op = "...")]`, which
//! the scan finds), or say a C one is linked ([`Build::external_kernel`](super::Build::external_kernel),
//! `arenaplan plan --kernel`).

use std::fmt;

use crate::model::{Instruction, Program};
use crate::pipeline::Declarations;

/// An operator of the model that no kernel implements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingKernel {
    /// The operator as the program calls it (`builtin:53`).
    pub op: String,
    /// What it is ("TFLite's CAST", "an ExecuTorch operator").
    pub operator: String,
    /// The first call's flat instruction index.
    pub first_call: usize,
    /// How many calls there are.
    pub calls: usize,
}

impl fmt::Display for MissingKernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "operator `{}` ({}), instruction {}{}, has no kernel: arenaplan's runtime has none \
             for it; write one with #[kernel(op = \"{}\")], or, if C firmware links one, say so \
             with Build::external_kernel(\"{}\") (arenaplan plan --kernel {})",
            self.op,
            self.operator,
            self.first_call,
            match self.calls {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            },
            self.op,
            self.op,
            self.op
        )
    }
}

/// The operators of `program` (TFLite's, ExecuTorch's) that no kernel implements: not the
/// runtime's, not ExecuTorch's or arenaplan-kernels', not a `#[kernel]` of `declared`, not one
/// of `external`; in order of first call.
pub fn missing_kernels(
    program: &Program,
    declared: &Declarations,
    external: &[String],
) -> Vec<MissingKernel> {
    let mut missing: Vec<MissingKernel> = Vec::new();
    for (at, instruction) in program.flat_instructions() {
        let Instruction::Kernel(call) = instruction else {
            continue;
        };
        let Some(operator) = crate::import::tflite_operator(&call.op).or_else(|| {
            use crate::kernels::executorch::{implementation, Implementation};
            (call.op.contains("::") && implementation(&call.op) == Implementation::None).then(
                || {
                    "an ExecuTorch operator that none of ExecuTorch's kernel libraries arenaplan \
                     binds (portable, quantized, Cortex-M) nor arenaplan-kernels implements"
                        .to_string()
                },
            )
        }) else {
            continue;
        };
        if declared.kernels.iter().any(|k| k.op == call.op) || external.contains(&call.op) {
            continue;
        }
        match missing.iter_mut().find(|m| m.op == call.op) {
            Some(m) => m.calls += 1,
            None => missing.push(MissingKernel {
                op: call.op.clone(),
                operator,
                first_call: at,
                calls: 1,
            }),
        }
    }
    missing
}

/// Where the firmware's runtime says whether it has its TFLite kernels: the `arenaplan` crate's
/// build script, seen by the build script of a crate that depends on it (`links`).
const RUNTIME_TFLITE_KERNELS: &str = "DEP_ARENAPLAN_RUNTIME_TFLITE_KERNELS";

/// The TFLite operators of `program` that run on the runtime's TFLite kernels when the firmware's
/// `arenaplan` was built without them (its feature `tflite-kernels` off), as a refusal that says
/// how to turn it on; `None` when it has them, or outside such a build script (nothing to know).
pub fn tflite_kernels_left_out(program: &Program) -> Option<String> {
    if std::env::var(RUNTIME_TFLITE_KERNELS).ok()? != "0" {
        return None;
    }
    let mut ops: Vec<&str> = Vec::new();
    for (_, instruction) in program.flat_instructions() {
        if let Instruction::Kernel(call) = instruction {
            if call.op.starts_with("tflite:") && !ops.contains(&call.op.as_str()) {
                ops.push(&call.op);
            }
        }
    }
    if ops.is_empty() {
        return None;
    }
    Some(format!(
        "the model's operator{} {} run{} on the runtime's TFLite kernels, which this firmware's \
         `arenaplan` leaves out: turn on its feature `tflite-kernels` (arenaplan = {{ version = \
         \"0.1\", features = [\"tflite-kernels\"] }}) and set CMSIS_NN_PATH to Arm's CMSIS-NN",
        if ops.len() > 1 { "s" } else { "" },
        ops.iter()
            .map(|op| format!("`{op}`"))
            .collect::<Vec<_>>()
            .join(", "),
        if ops.len() > 1 { "" } else { "s" },
    ))
}
