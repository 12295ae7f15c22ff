//! TFLite operators no kernel implements, refused at build time: the importer leaves an
//! operator arenaplan has no kernel for as `builtin:N` or `custom:NAME`, and generated tables
//! that call it would fail to link on an undefined `ap_kernel_builtin_3aN`. The build names
//! each instead, with what to do: write the kernel (`#[kernel(op = "builtin:N")]`, which the
//! scan finds), or say a C one is linked ([`Build::external_kernel`](super::Build::external_kernel),
//! `arenaplan plan --kernel`).

use std::fmt;

use crate::model::{Instruction, Program};
use crate::pipeline::Declarations;

/// An operator of the model that no kernel implements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingKernel {
    /// The operator as the program calls it (`builtin:53`).
    pub op: String,
    /// What TFLite calls it ("TFLite's CAST").
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

/// The TFLite operators of `program` that neither a `#[kernel]` of `declared` nor one of
/// `external` implements, in order of first call.
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
        let Some(operator) = crate::import::tflite_operator(&call.op) else {
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
