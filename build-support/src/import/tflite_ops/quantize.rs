//! QUANTIZE between integer types (int8, int16, int32): TFLM's `Requantize`, ported (CMSIS-NN
//! has no kernel for it): `ap_tflite_quantize_params_t`.

use super::quant::quantize_multiplier;
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
    let (Some(in_width), Some(out_width)) = (width(input), width(output)) else {
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
    let fits = |zero: i64, bytes: u32| {
        let bits = 8 * bytes - 1;
        (-(1i64 << bits)..(1i64 << bits)).contains(&zero)
    };
    if !fits(in_zero, in_width) || !fits(out_zero, out_width) {
        return Ok(None);
    }
    let (multiplier, shift) = quantize_multiplier(f64::from(in_scale) / f64::from(out_scale));
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
        ]),
        scratch: None,
    }))
}
