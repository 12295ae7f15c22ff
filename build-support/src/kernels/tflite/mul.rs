//! MUL on `arm_elementwise_mul_s8` (int8) and MUL_S16 on `arm_elementwise_mul_s16` (int16, zero
//! point 0), with the rescaling TFLM's `CalculateOpDataMul` computes: `ap_tflite_mul_params_t`.
//! Other MULs (int32, broadcast) are `int_binary.rs`'s.

use super::elementwise::{operands, Operands};
use super::int_binary::{self, Binary};
use super::layout::Params;
use super::layouts::MulParams;
use super::quant::multiplier;
use super::registry::Kernel;
use super::tensors::Activations;
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::Program;

/// MUL (`MulOptions`: activation): the product's scale over the output's, in double.
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
        return int_binary::lower(Binary::Mul, program, options, inputs, outputs);
    };
    let Some((multiplier, shift)) =
        multiplier(f64::from(a_scale) * f64::from(b_scale) / f64::from(out_scale))
    else {
        return Ok(None);
    };
    Ok(Some(Lowered {
        kernel: match kind {
            Activations::S8 => Kernel::MUL,
            Activations::S16 => Kernel::MUL_S16,
        },
        constants: Vec::new(),
        params: Some(
            MulParams {
                input1_offset: -a_zero,
                input2_offset: -b_zero,
                output_offset: out_zero,
                multiplier,
                shift,
                activation_min,
                activation_max,
            }
            .words(),
        ),
        scratch: None,
    }))
}
