//! FULLY_CONNECTED on `arm_fully_connected_s8` (int8, per-tensor weights), and on the runtime's
//! port of TFLM's FullyConnectedPerChannel for per-channel weights and for 16x8 (int16
//! activations, zero point 0, an int64 bias): `fully_connected_per_channel.rs`. Beside it, the
//! scratch `arm_fully_connected_s8` asks for.

use super::cmsis_nn::need;
use super::fully_connected_per_channel::per_channel_fc;
use super::layout::Params;
use super::layouts::FcParams;
use super::quant::{activation_range_in, multiplier};
use super::registry::Kernel;
use super::row_sums::row_sums;
use super::tensors::{activations, dense_constant, per_tensor, MAX_DIM};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program, ScratchByIsa, ValueKind};

/// FULLY_CONNECTED, int8 with per-tensor weights: the weights' row sums, then
/// `ap_tflite_fc_params_t`; or `None` for a variant the kernel does not run.
///
/// Helium's kernel starts each output from its row's sum (`arm_vector_sum_s8`: the bias plus
/// the input offset times the row's weights and filter offset), which CMSIS-NN expects in the
/// call's scratch and TFLM computes into its arena. Its inputs are all constants, so here it is
/// a constant computed at build time, in flash: no RAM, no work per call.
pub(super) fn lower(
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
    let s16 = v(*input).dtype == DType::Int16;
    // 16x8: int16 activations with an int64 bias, on the per-channel kernel.
    let bias_type = if s16 { DType::Int64 } else { DType::Int32 };
    if weights_format != 0
        || rest.len() > 1
        || !int8(*filter)
        || v(*filter).kind != ValueKind::Constant
        || bias.is_some_and(|b| v(b).dtype != bias_type || v(b).kind != ValueKind::Constant)
    {
        return Ok(None);
    }
    let (Some((in_kind, in_scale, in_zero)), Some((out_kind, out_scale, out_zero))) =
        (activations(program, *input), activations(program, output))
    else {
        return Ok(None);
    };
    if in_kind != out_kind {
        return Ok(None);
    }
    // Per-channel weights (symmetric, along the output channels), as recent converters write
    // them: TFLM's FullyConnectedPerChannel.
    // 16x8 with per-tensor weights too: one scale for every channel is the same arithmetic.
    if let Some(q) = v(*filter)
        .quant
        .as_ref()
        .filter(|q| q.scale_bits.len() > 1 || s16)
    {
        let mut scales: Vec<f32> = q.scale_bits.iter().map(|&b| f32::from_bits(b)).collect();
        if let (&[one], Some(&depth)) = (&scales[..], v(*filter).shape.first()) {
            scales = vec![one; usize::try_from(depth).unwrap_or(0).min(MAX_DIM as usize)];
        }
        return Ok(per_channel_fc(
            program,
            *input,
            *filter,
            bias,
            output,
            activation,
            &scales,
            q.axis,
            (in_kind, in_scale, in_zero),
            (out_scale, out_zero),
        ));
    }
    let Some((f_scale, f_zero)) = per_tensor(program, *filter) else {
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
        || bias.is_some_and(|b| {
            !dense_constant(program, b) || v(b).bytes != bias_type.size() * depth as u64
        })
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
    let Some((activation_min, activation_max)) =
        activation_range_in(activation, out_scale, out_zero, out_kind.range())
    else {
        return Ok(None);
    };
    let params = FcParams {
        input_offset: -in_zero,
        filter_offset: -f_zero,
        output_offset: out_zero,
        multiplier,
        shift,
        activation_min,
        activation_max,
        output_depth: depth,
    }
    .words();
    let Some(sums) = row_sums(program, *filter, bias, depth as usize, -in_zero, -f_zero) else {
        return Ok(None);
    };
    Ok(Some(Lowered {
        kernel: Kernel::FULLY_CONNECTED,
        constants: vec![("row_sums", sums)],
        params: Some(params),
        scratch: None,
    }))
}

/// `arm_fully_connected_s8_get_buffer_size` and its `_dsp` and `_mve` variants
/// (FULLY_CONNECTED): Helium keeps one int32 sum of the weights per output.
pub fn fully_connected_s8(output_depth: i64) -> ScratchByIsa {
    need(
        "arm_fully_connected_s8_get_buffer_size",
        0,
        0,
        output_depth * 4,
    )
}
