//! FULLY_CONNECTED on `arm_fully_connected_s8`.

use super::quant::{activation_range, multiplier};
use super::{dense_constant, per_tensor, row_sums, Lowered, MAX_DIM};
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program, ValueKind};

/// FULLY_CONNECTED, int8 with per-tensor weights: the weights' row sums, then
/// `ap_tflite_fc_params_t`; or `None` for a variant the kernel does not run.
///
/// Helium's kernel starts each output from its row's sum (`arm_vector_sum_s8`: the bias plus
/// the input offset times the row's weights and filter offset), which CMSIS-NN expects in the
/// call's scratch and TFLM computes into its arena. Its inputs are all constants, so here it is
/// a constant computed at build time, in flash: no RAM, no work per call.
pub(super) fn fully_connected(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (activation, weights_format) = match options {
        Some(t) => (t.i8(0, 0)?, t.i8(1, 0)?),
        None => (0, 0),
    };
    let [input, filter, rest @ ..] = inputs else {
        return Ok(None);
    };
    let &[output] = outputs else {
        return Ok(None);
    };
    let bias = rest.first().copied();
    let v = |t: usize| &program.values[t];
    let int8 = |t: usize| v(t).dtype == DType::Int8;
    if weights_format != 0
        || rest.len() > 1
        || !int8(*input)
        || !int8(*filter)
        || !int8(output)
        || v(*filter).kind != ValueKind::Constant
        || bias.is_some_and(|b| v(b).dtype != DType::Int32 || v(b).kind != ValueKind::Constant)
    {
        return Ok(None);
    }
    let (Some((in_scale, in_zero)), Some((f_scale, f_zero)), Some((out_scale, out_zero))) = (
        per_tensor(program, *input),
        per_tensor(program, *filter),
        per_tensor(program, output),
    ) else {
        return Ok(None);
    };
    let depth = match v(*filter).shape.first() {
        Some(&d) if (1..=MAX_DIM).contains(&d) => d as i32,
        _ => return Ok(None),
    };
    // The input is the output's rows of the filter's columns, as TFLM requires: the kernel's
    // sizes follow from it.
    let accum = v(*filter).bytes / depth as u64;
    let rows = v(output).bytes / depth as u64;
    if !dense_constant(program, *filter)
        || bias.is_some_and(|b| !dense_constant(program, b))
        || accum == 0
        || accum * depth as u64 != v(*filter).bytes
        || rows * depth as u64 != v(output).bytes
        || rows.checked_mul(accum) != Some(v(*input).bytes)
        || accum > i32::MAX as u64
        || rows > i32::MAX as u64
    {
        return Ok(None);
    }
    // TFLM's GetQuantizedConvolutionMultipler: in double, input × filter over output.
    let real = f64::from(in_scale) * f64::from(f_scale) / f64::from(out_scale);
    let Some((multiplier, shift)) = multiplier(real) else {
        return Ok(None);
    };
    let Some((act_min, act_max)) = activation_range(activation, out_scale, out_zero) else {
        return Ok(None);
    };
    let Some(sums) = row_sums(program, *filter, bias, depth as usize, -in_zero, -f_zero) else {
        return Ok(None);
    };
    Ok(Some(Lowered {
        op: "FULLY_CONNECTED",
        constants: vec![("row_sums", sums)],
        params: Some(vec![
            -in_zero, -f_zero, out_zero, multiplier, shift, act_min, act_max, depth,
        ]),
        scratch: None,
    }))
}
