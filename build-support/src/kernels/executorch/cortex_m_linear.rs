//! `cortex_m::quantized_linear` for the core the build runs it on.
//!
//! CMSIS-NN's fully connected kernel reads its constant term from two different places by
//! instruction set: the Helium build from a precomputed kernel sum (`input_offset × Σ weights +
//! bias`, passed as the context's buffer), the DSP and plain-C builds from the bias (and they
//! ignore the buffer). ExecuTorch's exporter writes one or the other for the core it lowered for
//! (`aten_to_cortex_m_pass.py`), so a program lowered for a Cortex-M55 would, on the host's
//! plain-C kernels, run without its bias. The build rewrites each call for its own core: the
//! bias recovered from the kernel sum (`kernel_sum − input_offset × Σ weights`, exact in int32)
//! for plain C and DSP, the kernel sum computed from the bias for Helium, each a new constant.

use crate::model::{ConstantData, DType, EValue, Instruction, Isa, Program, Value, ValueKind};

use super::signature;

const OP: &str = "cortex_m::quantized_linear.out";

/// Rewrites every `cortex_m::quantized_linear` call of `program` whose constant term is in the
/// form another instruction set reads into the form `isa`'s kernel reads. A call whose weights,
/// kernel sum or offsets are not constants of the expected shapes is left as it is.
pub fn linear_for(program: &mut Program, isa: Isa) {
    let Some(sig) = signature(OP) else { return };
    let at = |name: &str| sig.args.iter().position(|(_, n)| *n == name);
    let (Some(bias_at), Some(sum_at), Some(weights_at), Some(in_off_at), Some(w_off_at)) = (
        at("bias"),
        at("kernel_sum"),
        at("weights"),
        at("input_offset"),
        at("filter_offset"),
    ) else {
        return;
    };
    let mut rewrites: Vec<(usize, Value, bool)> = Vec::new();
    for (flat, instruction) in program.flat_instructions() {
        let Instruction::Kernel(call) = instruction else {
            continue;
        };
        let last = [bias_at, sum_at, weights_at, in_off_at, w_off_at]
            .into_iter()
            .max()
            .unwrap_or(0);
        if call.op != OP || call.inputs.len() <= last {
            continue;
        }
        let value = |i: usize| &program.values[call.inputs[i]];
        let (bias, sum) = (value(bias_at), value(sum_at));
        let helium = isa == Isa::Mve;
        let wrong_form = if helium {
            sum.evalue == EValue::None
        } else {
            bias.evalue == EValue::None && sum.evalue == EValue::Tensor
        };
        if !wrong_form || int(value(w_off_at)) != Some(0) {
            continue;
        }
        let (Some(weights), Some(input_offset)) =
            (weights(value(weights_at)), int(value(in_off_at)))
        else {
            continue;
        };
        let sums: Vec<i32> = weights
            .iter()
            .map(|row| row.iter().fold(0i32, |s, &w| s.wrapping_add(i32::from(w))))
            .collect();
        let offset = i32::try_from(input_offset).unwrap_or(0);
        let known = if helium { bias } else { sum };
        let terms: Vec<i32> = match known.evalue {
            EValue::None => vec![0; sums.len()],
            _ => match int32s(known) {
                Some(t) if t.len() == sums.len() => t,
                _ => continue,
            },
        };
        let words: Vec<i32> = terms
            .iter()
            .zip(&sums)
            .map(|(&t, &s)| {
                let scaled = offset.wrapping_mul(s);
                if helium {
                    t.wrapping_add(scaled)
                } else {
                    t.wrapping_sub(scaled)
                }
            })
            .collect();
        let name = format!(
            "{}_{}",
            call.outputs
                .first()
                .map_or("linear", |&o| program.values[o].name.as_str()),
            if helium { "kernel_sum" } else { "bias" }
        );
        let shape = if helium {
            vec![1, words.len() as u64]
        } else {
            vec![words.len() as u64]
        };
        let mut v = Value::planned(name, DType::Int32, shape);
        v.kind = ValueKind::Constant;
        v.data = Some(ConstantData::new(
            words.iter().flat_map(|w| w.to_le_bytes()).collect(),
        ));
        rewrites.push((flat, v, helium));
    }
    for (flat, value, helium) in rewrites {
        let id = program.values.len();
        program.values.push(value);
        program.for_each_instruction_mut(|at, instruction| {
            if at != flat {
                return;
            }
            if let Instruction::Kernel(call) = instruction {
                // The slot the other form used becomes None (the one the new form leaves).
                let (fill, clear) = if helium {
                    (sum_at, bias_at)
                } else {
                    (bias_at, sum_at)
                };
                let none = call.inputs[fill];
                call.inputs[clear] = none;
                call.inputs[fill] = id;
            }
        });
    }
}

/// An int constant's value.
fn int(value: &Value) -> Option<i64> {
    if value.evalue != EValue::Int {
        return None;
    }
    let b = value.data.as_ref()?.bytes();
    Some(i64::from_le_bytes(b.get(..8)?.try_into().ok()?))
}

/// A constant int32 tensor's elements.
fn int32s(value: &Value) -> Option<Vec<i32>> {
    if value.dtype != DType::Int32 {
        return None;
    }
    let b = value.data.as_ref()?.bytes();
    Some(
        b.chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
    )
}

/// A constant int8 `[out, in]` tensor's rows.
fn weights(value: &Value) -> Option<Vec<Vec<i8>>> {
    let [rows, cols] = value.shape[..] else {
        return None;
    };
    if value.dtype != DType::Int8 {
        return None;
    }
    let b = value.data.as_ref()?.bytes();
    let (rows, cols) = (usize::try_from(rows).ok()?, usize::try_from(cols).ok()?);
    if b.len() != rows.checked_mul(cols)? || cols == 0 {
        return None;
    }
    Some(
        b.chunks_exact(cols)
            .map(|row| row.iter().map(|&x| x as i8).collect())
            .collect(),
    )
}
