//! FULLY_CONNECTED_PER_CHANNEL and FULLY_CONNECTED_PER_CHANNEL_S16: FULLY_CONNECTED with
//! per-channel weights, or 16x8, on the runtime's port of TFLM's FullyConnectedPerChannel.

use super::layout::Params;
use super::layouts::FcParams;
use super::quant::{activation_range_in, per_channel};
use super::registry::Kernel;
use super::tensors::{dense_constant, Activations, MAX_DIM};
use super::Lowered;
use crate::model::Program;

/// FULLY_CONNECTED with per-channel weights: `ap_tflite_fc_params_t` (its multiplier and shift
/// unused) then each output channel's multiplier, then its shift; the runtime's direct kernel,
/// int8 or 16x8.
#[allow(clippy::too_many_arguments)]
pub(super) fn per_channel_fc(
    program: &Program,
    input: usize,
    filter: usize,
    bias: Option<usize>,
    output: usize,
    activation: i8,
    scales: &[f32],
    axis: i32,
    (kind, in_scale, in_zero): (Activations, f32, i32),
    (out_scale, out_zero): (f32, i32),
) -> Option<Lowered> {
    let v = |t: usize| &program.values[t];
    let depth = *v(filter).shape.first()?;
    let zeros = v(filter).quant.as_ref()?.zero_point.iter().all(|&z| z == 0);
    if !(1..=MAX_DIM).contains(&depth) || scales.len() as u64 != depth || axis != 0 || !zeros {
        return None;
    }
    let accum = v(filter).bytes / depth;
    let rows = v(output).bytes / (depth * v(output).dtype.size());
    let in_elements = v(input).bytes / v(input).dtype.size();
    if accum == 0
        || accum * depth != v(filter).bytes
        || rows * depth * v(output).dtype.size() != v(output).bytes
        || rows.checked_mul(accum) != Some(in_elements)
        || accum > i32::MAX as u64
        || rows > i32::MAX as u64
        || !dense_constant(program, filter)
        || bias
            .is_some_and(|b| !dense_constant(program, b) || v(b).bytes != v(b).dtype.size() * depth)
    {
        return None;
    }
    let (activation_min, activation_max) =
        activation_range_in(activation, out_scale, out_zero, kind.range())?;
    let mut params = FcParams {
        input_offset: -in_zero,
        filter_offset: 0,
        output_offset: out_zero,
        multiplier: 0,
        shift: 0,
        activation_min,
        activation_max,
        output_depth: depth as i32,
    }
    .words();
    params.extend(per_channel(scales, in_scale, out_scale, depth as usize)?);
    // TFLM's 64-bit requantization (16x8) takes shifts up to 7.
    if kind == Activations::S16
        && params[params.len() - depth as usize..]
            .iter()
            .any(|&s| s > 7)
    {
        return None;
    }
    Some(Lowered {
        kernel: match kind {
            Activations::S8 => Kernel::FULLY_CONNECTED_PER_CHANNEL,
            Activations::S16 => Kernel::FULLY_CONNECTED_PER_CHANNEL_S16,
        },
        constants: Vec::new(),
        params: Some(params),
        scratch: None,
    })
}
