//! Temp memory ExecuTorch's kernels ask their context for (`ctx.allocate_temp`), planned: a
//! call of such an operator gets one scratch buffer, sized here from the call's shapes, which
//! the bridge hands the kernel as its temp allocator (`ap_et_call.h`). No heap, no guess: a
//! kernel asking more than was planned fails its call (`MemoryAllocationFailed`).
//!
//! Of the kernels bound here only the portable `topk` asks (its priority queue). The Cortex-M
//! kernels' CMSIS-NN buffers are not temp memory: the exporter passes them as tensors
//! (`cortex_m_scratch`).

use crate::model::{EValue, Instruction, KernelCall, Program, ScratchByIsa, ValueId};

/// Whether the kernel of `op` asks its context for temp memory (its shim passes the call's
/// scratch as the temp allocator).
pub fn uses_temp(op: &str) -> bool {
    op == "aten::topk.values"
}

/// The temp bytes a call of `topk.values` needs: one `std::pair<value, int64_t>` (16 bytes for
/// every dtype, 8-byte aligned) per element along `dim`. At least one pair, so every call has
/// its buffer (an empty input returns before asking).
fn topk_bytes(program: &Program, call: &KernelCall) -> Option<u64> {
    let input = &program.values[*call.inputs.first()?];
    let dim = constant_int(program, *call.inputs.get(2)?)?;
    let rank = input.shape.len() as i64;
    let d = if dim < 0 { dim + rank.max(1) } else { dim };
    let along = if rank == 0 {
        1
    } else {
        *input.shape.get(usize::try_from(d).ok()?)?
    };
    along.max(1).checked_mul(16)
}

/// Gives each call of an operator that asks for temp memory its need, as the scratch the
/// pipeline plans (the same on every instruction set). A call whose need cannot be computed
/// (a `dim` that is not a constant, out of range) keeps none: the kernel then fails the call.
pub fn add_temp_needs(program: &mut Program) {
    let mut needs: Vec<(usize, u64)> = Vec::new();
    for (at, instruction) in program.flat_instructions() {
        if let Instruction::Kernel(call) = instruction {
            if uses_temp(&call.op) && call.scratch_need.is_none() {
                if let Some(bytes) = topk_bytes(program, call) {
                    needs.push((at, bytes));
                }
            }
        }
    }
    program.for_each_instruction_mut(|at, instruction| {
        let Instruction::Kernel(call) = instruction else {
            return;
        };
        if let Some(&(_, bytes)) = needs.iter().find(|(i, _)| *i == at) {
            call.scratch_need = Some(ScratchByIsa {
                plain: bytes,
                dsp: bytes,
                mve: bytes,
                function: "topk.values' queue",
                optional: false,
            });
        }
    });
}

/// A constant int's value.
fn constant_int(program: &Program, v: ValueId) -> Option<i64> {
    let value = &program.values[v];
    if value.evalue != EValue::Int {
        return None;
    }
    let bytes: [u8; 8] = value.data.as_ref()?.bytes().try_into().ok()?;
    Some(i64::from_le_bytes(bytes))
}
