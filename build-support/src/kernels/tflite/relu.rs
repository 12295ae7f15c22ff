//! RELU and RELU6 of int8 or int16 tensors, ported from TFLM's reference kernels: RELU
//! requantizes into the output's scale and clamps at its zero point (`CalculateReluOpData`,
//! whose scale ratio is a float division), RELU6 clamps in the input's own quantization
//! between its zero and six; both into `ap_tflite_relu_params_t`.

use super::layout::Params;
use super::layouts::ReluParams;
use super::quant::multiplier;
use super::registry::Kernel;
use super::tensors::{activations, Activations};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::Program;

/// Which activation.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Relu {
    Relu,
    Relu6,
}

/// RELU or RELU6 (no options).
pub(super) fn lower(
    kind: Relu,
    program: &Program,
    _options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    // int8, or int16 with zero point 0 (TFLM's int16 activations are symmetric).
    let (Some((act, in_scale, in_zero)), Some((out_kind, out_scale, out_zero))) =
        (activations(program, input), activations(program, output))
    else {
        return Ok(None);
    };
    let width = if act == Activations::S16 { 2 } else { 1 };
    let (min, max) = act.range();
    let (min, max) = (i64::from(min), i64::from(max));
    let (in_zero, out_zero) = (i64::from(in_zero), i64::from(out_zero));
    if out_kind != act
        || v(output).shape != v(input).shape
        || in_scale <= 0.0
        || out_scale <= 0.0
        || in_scale.is_nan()
        || out_scale.is_nan()
    {
        return Ok(None);
    }
    let Ok(count) = i32::try_from(v(input).bytes / v(input).dtype.size()) else {
        return Ok(None);
    };
    let params = match kind {
        Relu::Relu => {
            let Some((mult, shift)) = multiplier(f64::from(in_scale / out_scale)) else {
                return Ok(None);
            };
            ReluParams {
                width,
                requantize: 1,
                input_zero_point: in_zero as i32,
                output_zero_point: out_zero as i32,
                multiplier: mult,
                shift,
                activation_min: out_zero.max(min) as i32,
                activation_max: max as i32,
                count,
            }
        }
        Relu::Relu6 => {
            // FloatToQuantizedType(6): round(6 / scale) in float, half away from zero, plus the
            // zero point, clamped to the type.
            let six = ((6.0f32 / in_scale).round() as i64 + in_zero).clamp(min, max);
            ReluParams {
                width,
                requantize: 0,
                input_zero_point: in_zero as i32,
                output_zero_point: out_zero as i32,
                multiplier: 0,
                shift: 0,
                activation_min: in_zero as i32,
                activation_max: six as i32,
                count,
            }
        }
    };
    Ok(Some(Lowered {
        kernel: Kernel::RELU,
        constants: Vec::new(),
        params: Some(params.words()),
        scratch: None,
    }))
}
