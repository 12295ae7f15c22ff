//! SOFTMAX on `arm_softmax_s8` and `arm_softmax_s8_s16`.

use super::layout::Params;
use super::layouts::SoftmaxParams;
use super::quant::quantize_multiplier;
use super::registry::Kernel;
use super::tensors::{per_tensor, scale_and_zero};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program};

/// SOFTMAX, int8 in, int8 or int16 out (the output quantized as TFLM requires: scale 1/256
/// and zero point −128, or about 1/65536 and −32768): `ap_tflite_softmax_params_t`.
pub(super) fn lower(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let beta = match options {
        Some(t) => f32::from_bits(t.u32(0, 0)?),
        None => 0.0,
    };
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let (Some((in_scale, _)), Some((out_scale, out_zero))) =
        (per_tensor(program, input), scale_and_zero(program, output))
    else {
        return Ok(None);
    };
    let row = match v(input).shape.last() {
        Some(&r) if r > 0 && r <= i32::MAX as u64 => r as i32,
        _ => return Ok(None),
    };
    // TFLM's CalculateSoftmaxParams: exactly 1/256 for int8, within a thousandth of 1/65536
    // for int16.
    let output_fits = match v(output).dtype {
        DType::Int8 => out_zero == -128 && out_scale == 1.0 / 256.0,
        DType::Int16 => {
            out_zero == -32768 && (out_scale - 1.0 / 65536.0).abs() <= 0.001 * (1.0 / 65536.0)
        }
        _ => false,
    };
    if v(input).dtype != DType::Int8 || !output_fits {
        return Ok(None);
    }
    // TFLM's PreprocessSoftmaxScaling with 5 integer bits for the scaled difference, then the
    // input radius: the most negative difference that still counts.
    const SCALED_DIFF_INTEGER_BITS: i32 = 5;
    let real = (f64::from(beta)
        * f64::from(in_scale)
        * f64::from(1u32 << (31 - SCALED_DIFF_INTEGER_BITS)))
    .min((1u64 << 31) as f64 - 1.0);
    // QuantizeMultiplierGreaterThanOne's precondition, and a shift the radius can take.
    if !(real.is_finite() && real > 0.0) {
        return Ok(None);
    }
    let (multiplier, shift) = quantize_multiplier(real);
    if !(0..=31).contains(&shift) {
        return Ok(None);
    }
    let radius = f64::from((1 << SCALED_DIFF_INTEGER_BITS) - 1)
        * (1u64 << (31 - SCALED_DIFF_INTEGER_BITS)) as f64
        / (1u64 << shift) as f64;
    let diff_min = -(radius.floor() as i32);
    Ok(Some(Lowered {
        kernel: Kernel::SOFTMAX,
        constants: Vec::new(),
        params: Some(
            SoftmaxParams {
                multiplier,
                shift,
                diff_min,
                row_size: row,
            }
            .words(),
        ),
        scratch: None,
    }))
}
