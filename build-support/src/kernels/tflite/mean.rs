//! MEAN of int8 or int16 tensors over constant axes, ported from TFLM's reference
//! `QuantizedMeanOrSum` (CMSIS-NN has no kernel): the input-over-output scale as TFLM's
//! `QuantizeMultiplier` makes it, with the `1 / count` of the reduced elements folded in as
//! TFLM folds it, into `ap_tflite_mean_params_t`. The kernel sums each output's elements
//! directly, so it needs none of TFLM's per-output int32 accumulators.

use super::layout::Params;
use super::layouts::MeanParams;
use super::quant::multiplier;
use super::registry::Kernel;
use super::tensors::{ints, scale_and_zero, MAX_DIM, RANK};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program, ValueKind};

/// MEAN (`ReducerOptions`: keep_dims, which shapes only the output).
pub(super) fn lower(
    program: &Program,
    _options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, axis], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let (width, min, max) = match v(input).dtype {
        DType::Int8 => (1, i64::from(i8::MIN), i64::from(i8::MAX)),
        DType::Int16 => (2, i64::from(i16::MIN), i64::from(i16::MAX)),
        _ => return Ok(None),
    };
    let shape = &v(input).shape;
    let rank = shape.len();
    if v(output).dtype != v(input).dtype
        || !(1..=RANK).contains(&rank)
        || shape.iter().any(|&d| !(1..=MAX_DIM).contains(&d))
        || v(axis).dtype != DType::Int32
        || v(axis).kind != ValueKind::Constant
    {
        return Ok(None);
    }
    let Some(axes) = ints(program, axis) else {
        return Ok(None);
    };
    // TFLM's ResolveAxis: negative axes from the end, duplicates once; any out of range fails.
    let mut reduced = [0i32; RANK];
    let pad = RANK - rank;
    for a in axes {
        let a = if a < 0 { a + rank as i64 } else { a };
        if !(0..rank as i64).contains(&a) {
            return Ok(None);
        }
        reduced[pad + a as usize] = 1;
    }
    let mut extent = [1i32; RANK];
    for (k, &d) in shape.iter().enumerate() {
        extent[pad + k] = d as i32;
    }
    // Five extents of at most 65535 multiply to less than 2^80: in 128 bits.
    let product = |r: i32| -> i128 {
        (0..RANK)
            .filter(|&d| reduced[d] == r)
            .map(|d| i128::from(extent[d]))
            .product()
    };
    let (count, kept) = (product(1), product(0));
    let out_elements = v(output).bytes / v(output).dtype.size();
    let (Some((in_scale, in_zero)), Some((out_scale, out_zero))) = (
        scale_and_zero(program, input),
        scale_and_zero(program, output),
    ) else {
        return Ok(None);
    };
    if kept != i128::from(out_elements)
        || !(min..=max).contains(&in_zero)
        || !(min..=max).contains(&out_zero)
        || count > i128::from(i32::MAX)
    {
        return Ok(None);
    }
    let count = count as i64;
    let Some((mult, shift)) = multiplier(f64::from(in_scale) / f64::from(out_scale)) else {
        return Ok(None);
    };
    // TFLM folds 1 / count into the multiplier: shifted up by log2(count) (at most 32, and so
    // that the shift stays at least -31), divided by count.
    let log2 = 63 - (count as u64).leading_zeros() as i32;
    let up = log2.min(32).min(31 + shift);
    let (mult, shift) = (((i64::from(mult) << up) / count) as i32, shift - up);
    let params = MeanParams {
        width,
        input_zero_point: in_zero as i32,
        output_zero_point: out_zero as i32,
        multiplier: mult,
        shift,
        extent,
        reduced,
    };
    Ok(Some(Lowered {
        kernel: Kernel::MEAN,
        constants: Vec::new(),
        params: Some(params.words()),
        scratch: None,
    }))
}
