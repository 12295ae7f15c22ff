//! CONV_2D and DEPTHWISE_CONV_2D on `arm_convolve_wrapper_s8` and
//! `arm_depthwise_conv_wrapper_s8`: int8 with per-channel (or per-tensor) symmetric weights
//! and an int32 bias; 16x8 (int16 activations, zero point 0, an int64 bias) on a direct
//! convolution and `arm_depthwise_conv_s16`. Both read `ap_tflite_conv_params_t`, then each output channel's
//! multiplier, then its shift, as TFLM's `PopulateConvolutionQuantizationParams` computes
//! them.

use super::quant::{activation_range, activation_range_in, per_channel};
use super::{
    activations, dense_constant, dims4, is_int8, per_tensor, Activations, Lowered, MAX_DIM,
};
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::kernels::tflite::cmsis_nn::{self, Conv, Dims};
use crate::model::ScratchByIsa;
use crate::model::{DType, Program, ValueKind};

/// Which of the two convolutions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Filter `[out_c, h, w, in_c]`, quantized along axis 0.
    Regular,
    /// Filter `[1, h, w, out_c]`, quantized along axis 3, `depth_multiplier` outputs per input
    /// channel.
    Depthwise { ch_mult: i32 },
}

/// The options both share, read from their tables.
struct Options {
    padding: i8,
    stride: (i64, i64),
    dilation: (i64, i64),
    activation: i8,
}

/// CONV_2D (`Conv2DOptions`: padding, stride w and h, activation, dilation w and h).
pub(super) fn conv_2d(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(t) = options else {
        return Ok(None);
    };
    let options = Options {
        padding: t.i8(0, 0)?,
        stride: (i64::from(t.i32(1, 0)?), i64::from(t.i32(2, 0)?)),
        activation: t.i8(3, 0)?,
        dilation: (i64::from(t.i32(4, 1)?), i64::from(t.i32(5, 1)?)),
    };
    Ok(convolution(
        program,
        Kind::Regular,
        &options,
        inputs,
        outputs,
    ))
}

/// DEPTHWISE_CONV_2D (`DepthwiseConv2DOptions`: padding, stride w and h, depth multiplier,
/// activation, dilation w and h).
pub(super) fn depthwise_conv(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(t) = options else {
        return Ok(None);
    };
    let ch_mult = t.i32(3, 0)?;
    let options = Options {
        padding: t.i8(0, 0)?,
        stride: (i64::from(t.i32(1, 0)?), i64::from(t.i32(2, 0)?)),
        activation: t.i8(4, 0)?,
        dilation: (i64::from(t.i32(5, 1)?), i64::from(t.i32(6, 1)?)),
    };
    Ok(convolution(
        program,
        Kind::Depthwise { ch_mult },
        &options,
        inputs,
        outputs,
    ))
}

/// TFLite's output size and the padding before the first row or column (`ComputeOutSize`,
/// `ComputePaddingWithOffset`), for padding SAME (0) or VALID (1).
pub(super) fn padded(
    padding: i8,
    size: i64,
    filter: i64,
    stride: i64,
    dilation: i64,
) -> Option<(i64, i64)> {
    let effective = (filter - 1) * dilation + 1;
    let out = match padding {
        0 => (size + stride - 1) / stride,
        1 => (size + stride - effective) / stride,
        _ => return None,
    };
    let total = ((out - 1) * stride + effective - size).max(0);
    Some((out, total / 2))
}

/// TRANSPOSE_CONV (`TransposeConvOptions`: padding, stride w and h, activation), int8 with
/// symmetric weights `[out_c, h, w, in_c]` and an optional int32 bias: inputs (output shape,
/// filter, input, [bias]) as the model lists them, then `ap_tflite_conv_params_t` with the
/// per-channel multipliers and shifts, as for CONV_2D. Its padding is TFLM's: a convolution's
/// from the output's size. The kernel gathers each output from the inputs that reach it, so it
/// needs none of TFLM's int32 accumulator (one per output element).
pub(super) fn transpose_conv(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(t) = options else {
        return Ok(None);
    };
    let (padding, stride) = (
        t.i8(0, 0)?,
        (i64::from(t.i32(1, 0)?), i64::from(t.i32(2, 0)?)),
    );
    let activation = t.i8(3, 0)?;
    let (&[shape, filter, input, ref bias @ ..], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let (
        Some([batches, in_h, in_w, in_c]),
        Some([out_c, k_h, k_w, f_c]),
        Some([ob, out_h, out_w, oc]),
    ) = (
        dims4(program, input),
        dims4(program, filter),
        dims4(program, output),
    )
    else {
        return Ok(None);
    };
    let bias_ok = match bias {
        [] => true,
        &[b] => {
            v(b).dtype == DType::Int32
                && dense_constant(program, b)
                && v(b).bytes == 4 * out_c as u64
        }
        _ => false,
    };
    if f_c != in_c
        || oc != out_c
        || ob != batches
        || !bias_ok
        || !(1..=MAX_DIM as i64).contains(&stride.0)
        || !(1..=MAX_DIM as i64).contains(&stride.1)
        || v(shape).dtype != DType::Int32
        || ![input, filter, output].iter().all(|&t| is_int8(program, t))
        || !dense_constant(program, filter)
    {
        return Ok(None);
    }
    let (Some((_, pad_h)), Some((_, pad_w))) = (
        padded(padding, out_h, k_h, stride.1, 1),
        padded(padding, out_w, k_w, stride.0, 1),
    ) else {
        return Ok(None);
    };
    let (Some((in_scale, in_zero)), Some((out_scale, out_zero))) =
        (per_tensor(program, input), per_tensor(program, output))
    else {
        return Ok(None);
    };
    let Some(fq) = v(filter).quant.as_ref() else {
        return Ok(None);
    };
    let scales: Vec<f32> = fq.scale_bits.iter().map(|&b| f32::from_bits(b)).collect();
    if !(scales.len() == 1 || (scales.len() == out_c as usize && fq.axis == 0))
        || fq.zero_point.iter().any(|&z| z != 0)
        || pad_h > MAX_DIM as i64
        || pad_w > MAX_DIM as i64
    {
        return Ok(None);
    }
    let (Some((act_min, act_max)), Some(per_channel)) = (
        activation_range(activation, out_scale, out_zero),
        per_channel(&scales, in_scale, out_scale, out_c as usize),
    ) else {
        return Ok(None);
    };
    let mut params = vec![
        -in_zero,
        out_zero,
        1,
        stride.0 as i32,
        stride.1 as i32,
        pad_w as i32,
        pad_h as i32,
        1,
        1,
        act_min,
        act_max,
    ];
    params.extend([batches, in_h, in_w, in_c, k_h, k_w, out_h, out_w, out_c].map(|d| d as i32));
    params.extend(per_channel);
    Ok(Some(Lowered {
        op: "TRANSPOSE_CONV",
        constants: Vec::new(),
        params: Some(params),
        scratch: None,
    }))
}

fn convolution(
    program: &Program,
    kind: Kind,
    o: &Options,
    inputs: &[usize],
    outputs: &[usize],
) -> Option<Lowered> {
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
    let (act_min, act_max) =
        activation_range_in(o.activation, out_scale, out_zero, out_kind.range())?;
    let mut params = vec![
        -in_zero,
        out_zero,
        ch_mult,
        o.stride.0 as i32,
        o.stride.1 as i32,
        pad_w as i32,
        pad_h as i32,
        o.dilation.0 as i32,
        o.dilation.1 as i32,
        act_min,
        act_max,
        batches as i32,
        in_h as i32,
        in_w as i32,
        in_c as i32,
        k_h as i32,
        k_w as i32,
        out_h as i32,
        out_w as i32,
        out_c as i32,
    ];
    params.extend(per_channel(&scales, in_scale, out_scale, out_c as usize)?);
    let geometry = Conv {
        stride: o.stride,
        padding: (pad_w, pad_h),
        dilation: o.dilation,
    };
    let dims = |n, h, w, c| Dims { n, h, w, c };
    let input_dims = dims(batches, in_h, in_w, in_c);
    let output_dims = dims(batches, out_h, out_w, out_c);
    // The 16x8 kernels run without scratch: a direct convolution, CMSIS-NN's generic depthwise
    // kernel.
    if in_kind == Activations::S16 {
        // TFLM's 64-bit requantization takes shifts up to 7 (it asserts), CMSIS-NN's too.
        if params[params.len() - out_c as usize..]
            .iter()
            .any(|&s| s > 7)
        {
            return None;
        }
        return Some(Lowered {
            op: match kind {
                Kind::Regular => "CONV_2D_S16",
                Kind::Depthwise { .. } => "DEPTHWISE_CONV_2D_S16",
            },
            constants: Vec::new(),
            params: Some(params),
            scratch: None,
        });
    }
    let (op, scratch) = match kind {
        Kind::Regular => (
            "CONV_2D",
            cmsis_nn::convolve_wrapper_s8(
                &geometry,
                input_dims,
                dims(out_c, k_h, k_w, in_c),
                output_dims,
            ),
        ),
        Kind::Depthwise { .. } => (
            "DEPTHWISE_CONV_2D",
            cmsis_nn::depthwise_conv_wrapper_s8(
                &geometry,
                input_dims,
                dims(1, k_h, k_w, out_c),
                output_dims,
            ),
        ),
    };
    Some(Lowered {
        op,
        constants: Vec::new(),
        params: Some(params),
        // Without it the kernel runs a direct convolution (CONV_2D) or CMSIS-NN's generic
        // depthwise kernel: the same bytes, slower, in no scratch.
        scratch: Some(ScratchByIsa {
            optional: true,
            ..scratch
        }),
    })
}
