//! ADD on `arm_elementwise_add_s8` (int8) and ADD_S16 on `arm_elementwise_add_s16` (int16, zero
//! point 0), with the rescaling TFLM's `PrepareGeneralSubOrAdd` computes:
//! `ap_tflite_add_params_t`. Other ADDs (int32, broadcast) are `int_binary.rs`'s.

use super::elementwise::{operands, Operands};
use super::int_binary::{self, Binary};
use super::layout::Params;
use super::layouts::AddParams;
use super::quant::multiplier;
use super::registry::Kernel;
use super::tensors::Activations;
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::Program;

/// The left shift inputs get before rescaling (TFLM's `PrepareGeneralSubOrAdd`): 20 for int8
/// outputs, 15 for int16.
fn left_shift(kind: Activations) -> i32 {
    match kind {
        Activations::S8 => 20,
        Activations::S16 => 15,
    }
}

/// ADD (`AddOptions`: activation).
pub(super) fn lower(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(Operands {
        kind,
        a: (a_scale, a_zero),
        b: (b_scale, b_zero),
        output: (out_scale, out_zero),
        activation: (activation_min, activation_max),
    }) = operands(program, options, inputs, outputs)?
    else {
        return int_binary::lower(Binary::Add, program, options, inputs, outputs);
    };
    let shift_up = left_shift(kind);
    // In double, as TFLM: each input over twice the larger scale, and that over the output's
    // scale after the left shift.
    let twice_max = 2.0 * f64::from(a_scale.max(b_scale));
    let (Some((a_mult, a_shift)), Some((b_mult, b_shift)), Some((out_mult, out_shift))) = (
        multiplier(f64::from(a_scale) / twice_max),
        multiplier(f64::from(b_scale) / twice_max),
        multiplier(twice_max / (f64::from(1 << shift_up) * f64::from(out_scale))),
    ) else {
        return Ok(None);
    };
    // QuantizeMultiplierSmallerThanOneExp's precondition: right shifts only.
    if a_shift > 0 || b_shift > 0 || out_shift > 0 {
        return Ok(None);
    }
    let params = AddParams {
        input1_offset: -a_zero,
        input1_multiplier: a_mult,
        input1_shift: a_shift,
        input2_offset: -b_zero,
        input2_multiplier: b_mult,
        input2_shift: b_shift,
        left_shift: shift_up,
        output_offset: out_zero,
        output_multiplier: out_mult,
        output_shift: out_shift,
        activation_min,
        activation_max,
    };
    Ok(Some(Lowered {
        kernel: match kind {
            Activations::S8 => Kernel::ADD,
            Activations::S16 => Kernel::ADD_S16,
        },
        constants: Vec::new(),
        params: Some(params.words()),
        scratch: None,
    }))
}
