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
