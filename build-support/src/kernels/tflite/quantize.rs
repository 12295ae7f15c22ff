//! QUANTIZE between integer types (int8, int16, int32) and from float32, and DEQUANTIZE to
//! float32: TFLM's `Requantize`, `AffineQuantize` and `Dequantize`, ported (CMSIS-NN has no
//! kernels for them): `ap_tflite_quantize_params_t`.

use super::quant::multiplier;
use super::{scale_and_zero, Lowered};
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program};

/// QUANTIZE of an int8, int16 or int32 tensor into another of those (the pairs TFLM's
/// `PrepareQuantizeReference` takes); floating-point input stays unlowered.
pub(super) fn quantize(
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
        op: "QUANTIZE",
        constants: Vec::new(),
        params: Some(vec![
            in_zero as i32,
            out_zero as i32,
            multiplier,
            shift,
            in_width as i32,
            out_width as i32,
            0,
        ]),
        scratch: None,
    }))
}

/// A zero point type `bytes` wide can hold.
fn fits(zero: i64, bytes: u32) -> bool {
    let bits = 8 * bytes - 1;
    (-(1i64 << bits)..(1i64 << bits)).contains(&zero)
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
        op: "QUANTIZE",
        constants: Vec::new(),
        params: Some(vec![
            0,
            zero as i32,
            scale.to_bits() as i32,
            0,
            4,
            out_width as i32,
            1,
        ]),
        scratch: None,
    })
}

/// DEQUANTIZE of an int8 or int16 tensor to float32 (TFLM's `Dequantize`: the scale in double
/// times the value less the zero point, then float): `ap_tflite_dequantize_params_t`.
pub(super) fn dequantize(
    program: &Program,
    _options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let in_width = match v(input).dtype {
        DType::Int8 => 1,
        DType::Int16 => 2,
        _ => return Ok(None),
    };
    let Some((scale, zero)) = scale_and_zero(program, input) else {
        return Ok(None);
    };
    if v(output).dtype != DType::Float32
        || v(input).shape != v(output).shape
        || !fits(zero, in_width)
    {
        return Ok(None);
    }
    Ok(Some(Lowered {
        op: "DEQUANTIZE",
        constants: Vec::new(),
        params: Some(vec![zero as i32, scale.to_bits() as i32, in_width as i32]),
        scratch: None,
    }))
}
