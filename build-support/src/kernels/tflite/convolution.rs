//! What CONV_2D and DEPTHWISE_CONV_2D share: int8 with per-channel (or per-tensor) symmetric
//! weights and an int32 bias, or 16x8 (int16 activations, zero point 0, an int64 bias); both
//! read `ap_tflite_conv_params_t`, then each output channel's multiplier, then its shift, as
//! TFLM's `PopulateConvolutionQuantizationParams` computes them.

use super::cmsis_nn::{Conv, Dims};
use super::layout::Params;
use super::layouts::ConvParams;
use super::padding::padded;
use super::quant::{activation_range_in, per_channel};
use super::tensors::{activations, dense_constant, dims4, is_int8, Activations, MAX_DIM};
use crate::model::{DType, Program, ValueKind};

/// Which of the two convolutions.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// Filter `[out_c, h, w, in_c]`, quantized along axis 0.
    Regular,
    /// Filter `[1, h, w, out_c]`, quantized along axis 3, `depth_multiplier` outputs per input
    /// channel.
    Depthwise { ch_mult: i32 },
}

/// The options both share, read from their tables.
pub(super) struct Options {
    pub(super) padding: i8,
    pub(super) stride: (i64, i64),
    pub(super) dilation: (i64, i64),
    pub(super) activation: i8,
}

/// A convolution one of the kernels runs.
pub(super) struct Prepared {
    /// The parameters' words: `ap_tflite_conv_params_t`, the multipliers, the shifts.
    pub(super) params: Vec<i32>,
    /// int8, or 16x8.
    pub(super) activations: Activations,
    /// CMSIS-NN's view of it, for the scratch its kernel asks for.
    pub(super) geometry: Conv,
    pub(super) input: Dims,
    pub(super) output: Dims,
    /// The filter's height and width.
    pub(super) kernel: (i64, i64),
}

/// The call's convolution, when a kernel runs it.
pub(super) fn prepare(
    program: &Program,
    kind: Kind,
    o: &Options,
    inputs: &[usize],
    outputs: &[usize],
) -> Option<Prepared> {
    let (&[input, filter, bias], &[output]) = (inputs, outputs) else {
        return None;
    };
    let v = |t: usize| &program.values[t];
    let [batches, in_h, in_w, in_c] = dims4(program, input)?;
    let [f0, k_h, k_w, f3] = dims4(program, filter)?;
    let [ob, out_h, out_w, out_c] = dims4(program, output)?;
    let (ch_mult, axis) = match kind {
        Kind::Regular => (1, 0),
        Kind::Depthwise { ch_mult } => (ch_mult, 3),
    };
    let filter_fits = match kind {
        Kind::Regular => f0 == out_c && f3 == in_c,
        Kind::Depthwise { .. } => f0 == 1 && f3 == out_c && in_c * i64::from(ch_mult) == out_c,
    };
    if !filter_fits
        || ob != batches
        || ch_mult <= 0
        || o.stride.0 <= 0
        || o.stride.1 <= 0
        || o.dilation.0 <= 0
        || o.dilation.1 <= 0
        || !is_int8(program, filter)
        || !dense_constant(program, filter)
        || !dense_constant(program, bias)
        || o.stride.0 > MAX_DIM as i64
        || o.stride.1 > MAX_DIM as i64
        || o.dilation.0 > MAX_DIM as i64
        || o.dilation.1 > MAX_DIM as i64
        || v(bias).kind != ValueKind::Constant
    {
        return None;
    }
    // int8 activations with an int32 bias; int16 (16x8) with an int64 one.
    let (in_kind, in_scale, in_zero) = activations(program, input)?;
    let (out_kind, out_scale, out_zero) = activations(program, output)?;
    let (bias_type, bias_width) = match in_kind {
        Activations::S8 => (DType::Int32, 4),
        Activations::S16 => (DType::Int64, 8),
    };
    if out_kind != in_kind
        || v(bias).dtype != bias_type
        || v(bias).bytes != bias_width * out_c as u64
    {
        return None;
    }
    let (oh, pad_h) = padded(o.padding, in_h, k_h, o.stride.1, o.dilation.1)?;
    let (ow, pad_w) = padded(o.padding, in_w, k_w, o.stride.0, o.dilation.0)?;
    if (oh, ow) != (out_h, out_w) || pad_h > MAX_DIM as i64 || pad_w > MAX_DIM as i64 {
        return None;
    }
    let fq = v(filter).quant.as_ref()?;
    let scales: Vec<f32> = fq.scale_bits.iter().map(|&b| f32::from_bits(b)).collect();
    // CMSIS-NN's int8 convolutions take symmetric weights: every zero point 0.
    if !(scales.len() == 1 || (scales.len() == out_c as usize && fq.axis == axis))
        || fq.zero_point.iter().any(|&z| z != 0)
    {
        return None;
    }
    let (activation_min, activation_max) =
        activation_range_in(o.activation, out_scale, out_zero, out_kind.range())?;
    let mut params = ConvParams {
        input_offset: -in_zero,
        output_offset: out_zero,
        ch_mult,
        stride_w: o.stride.0 as i32,
        stride_h: o.stride.1 as i32,
        pad_w: pad_w as i32,
        pad_h: pad_h as i32,
        dilation_w: o.dilation.0 as i32,
        dilation_h: o.dilation.1 as i32,
        activation_min,
        activation_max,
        batches: batches as i32,
        input_h: in_h as i32,
        input_w: in_w as i32,
        input_c: in_c as i32,
        filter_h: k_h as i32,
        filter_w: k_w as i32,
        output_h: out_h as i32,
        output_w: out_w as i32,
        output_c: out_c as i32,
    }
    .words();
    params.extend(per_channel(&scales, in_scale, out_scale, out_c as usize)?);
    // TFLM's 64-bit requantization (16x8) takes shifts up to 7 (it asserts), CMSIS-NN's too.
    if in_kind == Activations::S16
        && params[params.len() - out_c as usize..]
            .iter()
            .any(|&s| s > 7)
    {
        return None;
    }
    let dims = |n, h, w, c| Dims { n, h, w, c };
    Some(Prepared {
        params,
        activations: in_kind,
        geometry: Conv {
            stride: o.stride,
            padding: (pad_w, pad_h),
            dilation: o.dilation,
        },
        input: dims(batches, in_h, in_w, in_c),
        output: dims(batches, out_h, out_w, out_c),
        kernel: (k_h, k_w),
    })
}
