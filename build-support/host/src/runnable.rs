//! Whether the host runner can run a program, and if not, why.

use std::string::String;
use std::vec::Vec;

use arenaplan_build::executorch::{implementation, Implementation};
use arenaplan_build::model::{Instruction, Program};

use crate::kernels;

/// Why `program` cannot run on the host runner, if it cannot: operators neither a kernel of
/// [`kernels`] nor one of ExecuTorch's implements (each named), or a call taking a value
/// without memory.
pub fn why_not_runnable(program: &Program) -> Option<String> {
    // What a runner registers ([`kernels`]), by name.
    let registered = kernels();
    let known_op = |op: &str| {
        registered.iter().any(|k| {
            // SAFETY: every registered kernel's name is a static C string.
            unsafe { core::ffi::CStr::from_ptr(k.name) }.to_bytes() == op.as_bytes()
        })
    };
    let mut missing: Vec<&str> = Vec::new();
    for (_, instruction) in program.flat_instructions() {
        if let Instruction::Kernel(k) = instruction {
            let known =
                known_op(&k.op) || matches!(implementation(&k.op), Implementation::ExecuTorch(_));
            if !known && !missing.contains(&k.op.as_str()) {
                missing.push(&k.op);
            }
        }
    }
    // TFLite's operators run on the runtime's TFLite kernels: when this build left them out,
    // that is the reason, and the fix is a rebuild, not a kernel to write.
    let tflite_built_in = arenaplan::tflite_kernels().next().is_some();
    let left_out: Vec<String> = missing
        .iter()
        .filter(|op| op.starts_with("tflite:") && !tflite_built_in)
        .map(|op| format!("`{op}`"))
        .collect();
    if !left_out.is_empty() {
        return Some(format!(
            "{} run{} on the runtime's TFLite kernels, which this build of arenaplan leaves out \
             (feature `tflite-kernels`, on Arm's CMSIS-NN): rebuild with it, CMSIS_NN_PATH set \
             (`cargo install arenaplan-cli --features tflite-kernels`)",
            left_out.join(", "),
            if left_out.len() > 1 { "" } else { "s" }
        ));
    }
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
        return Some(format!(
            "no kernel for {} {}: neither ExecuTorch's kernel libraries (portable, quantized, \
             Cortex-M) nor arenaplan-kernels implement {}",
            if missing.len() > 1 {
                "operators"
            } else {
                "operator"
            },
            names.join(", "),
            if missing.len() > 1 { "them" } else { "it" }
        ));
    }
    program.unplaced_argument().map(|(at, value)| {
        format!(
            "instruction {at} takes `{}`, which has no memory ({})",
            program.values[value].name,
            arenaplan_build::model::UNPLACED
        )
    })
}
