//! QUANTIZE between integer types (int8, int16, int32) and from float32: TFLM's `Requantize`
//! and `AffineQuantize`, ported (CMSIS-NN has no kernels for them):
//! `ap_tflite_quantize_params_t`.

use super::layout::Params;
use super::layouts::QuantizeParams;
use super::quant::{fits, multiplier};
use super::registry::Kernel;
use super::tensors::scale_and_zero;
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program};

/// QUANTIZE of an int8, int16 or int32 tensor into another of those (the pairs TFLM's
/// `PrepareQuantizeReference` takes); floating-point input stays unlowered.
pub(super) fn lower(
    program: &Program,
    _options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let width = |t: usize| match v(t).dtype {
        DType::Int8 => Some(1),
        DType::Int16 => Some(2),
        DType::Int32 => Some(4),
        _ => None,
    };
    let Some(out_width) = width(output) else {
        return Ok(None);
    };
    if v(input).dtype == DType::Float32 {
        return Ok(from_float(program, input, output, out_width));
    }
    let Some(in_width) = width(input) else {
        return Ok(None);
    };
    // TFLM requantizes every pair but int32 to int32.
    if (in_width, out_width) == (4, 4) || v(input).shape != v(output).shape {
        return Ok(None);
    }
    let (Some((in_scale, in_zero)), Some((out_scale, out_zero))) = (
        scale_and_zero(program, input),
        scale_and_zero(program, output),
    ) else {
        return Ok(None);
    };
    // A zero point the tensor's type cannot hold is no quantization TFLM accepts.
    if !fits(in_zero, in_width) || !fits(out_zero, out_width) {
        return Ok(None);
    }
    let Some((multiplier, shift)) = multiplier(f64::from(in_scale) / f64::from(out_scale)) else {
        return Ok(None);
    };
    Ok(Some(Lowered {
        kernel: Kernel::QUANTIZE,
        constants: Vec::new(),
        params: Some(
            QuantizeParams {
                input_zero_point: in_zero as i32,
                output_zero_point: out_zero as i32,
                multiplier,
                shift,
                input_width: in_width as i32,
                output_width: out_width as i32,
                input_float: 0,
            }
            .words(),
        ),
        scratch: None,
    }))
}

/// QUANTIZE from float32 to int8 or int16 (TFLM's `AffineQuantize`: divide by the scale in
/// float, round half away from zero, add the zero point, clamp): the output's scale as float
/// bits where the multiplier goes, and the last field 1.
fn from_float(program: &Program, input: usize, output: usize, out_width: u32) -> Option<Lowered> {
    let (scale, zero) = scale_and_zero(program, output)?;
    if out_width == 4
        || !fits(zero, out_width)
        || program.values[input].shape != program.values[output].shape
    {
        return None;
    }
    Some(Lowered {
        kernel: Kernel::QUANTIZE,
        constants: Vec::new(),
        params: Some(
            QuantizeParams {
                input_zero_point: 0,
                output_zero_point: zero as i32,
                multiplier: scale.to_bits() as i32,
                shift: 0,
                input_width: 4,
                output_width: out_width as i32,
                input_float: 1,
            }
            .words(),
        ),
        scratch: None,
    })
}
