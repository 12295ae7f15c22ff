//! TFLite's builtin operators as the runtime's CPU kernels run them (`arenaplan/tflite.h`):
//! the kernel's operator name (`tflite:FULLY_CONNECTED`), and the parameters TFLite Micro
//! computes when it prepares the operator — quantized multipliers and shifts, offsets,
//! activation ranges — computed here, at build time, the same way, as a constant the call
//! reads last among its inputs (in flash, in firmware). The layouts are the header's, field by
//! field, int32 little-endian.
//!
//! An operator arenaplan has no kernel for, or a variant its kernel does not run (another
//! type, per-channel weights), stays the call it was, `builtin:N`, which no kernel implements.

use super::flatbuf::Table;
use super::ImportError;
use crate::model::{ConstantData, DType, Instruction, KernelCall, Program, Value, ValueKind};

/// `BuiltinOperator` codes.
const DEPTHWISE_CONV_2D: i32 = 4;
const FULLY_CONNECTED: i32 = 9;
const RESHAPE: i32 = 22;
const SOFTMAX: i32 = 25;
/// `BuiltinOptions` union types.
const DEPTHWISE_CONV_2D_OPTIONS: u8 = 2;
const FULLY_CONNECTED_OPTIONS: u8 = 8;
const SOFTMAX_OPTIONS: u8 = 9;

/// The call of builtin operator `builtin`, with its options (union type and table).
pub(super) fn kernel_call(
    program: &mut Program,
    builtin: i32,
    options: Option<(u8, Table<'_>)>,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
) -> Result<Instruction, ImportError> {
    let table = |kind: u8| options.filter(|(t, _)| *t == kind).map(|(_, t)| t);
    // Each lowering: the kernel's operator after `tflite:`, and the parameters constant it
    // reads last (none: it reads only the data input, as RESHAPE, whose shape is the output's).
    let lowered: Option<(&str, Option<Vec<i32>>)> = match builtin {
        FULLY_CONNECTED => {
            fully_connected(program, table(FULLY_CONNECTED_OPTIONS), &inputs, &outputs)?
                .map(|p| ("FULLY_CONNECTED", Some(p.to_vec())))
        }
        DEPTHWISE_CONV_2D => {
            depthwise_conv(program, table(DEPTHWISE_CONV_2D_OPTIONS), &inputs, &outputs)?
                .map(|p| ("DEPTHWISE_CONV_2D", Some(p)))
        }
        SOFTMAX => softmax(program, table(SOFTMAX_OPTIONS), &inputs, &outputs)?
            .map(|p| ("SOFTMAX", Some(p.to_vec()))),
        RESHAPE => reshape(program, &inputs, &outputs).map(|()| ("RESHAPE", None)),
        _ => None,
    };
    if let Some((op, params)) = lowered {
        let mut inputs = inputs;
        match params {
            Some(params) => {
                let name = format!("{}:{op}_params", program.values[outputs[0]].name);
                inputs.push(program.add_value(constant_i32s(name, &params)));
            }
            None => inputs.truncate(1),
        }
        return Ok(Instruction::Kernel(KernelCall::new(
            format!("tflite:{op}"),
            inputs,
            outputs,
        )));
    }
    Ok(Instruction::Kernel(KernelCall::new(
        format!("builtin:{builtin}"),
        inputs,
        outputs,
    )))
}

/// An int32 constant holding `words`.
fn constant_i32s(name: String, words: &[i32]) -> Value {
    let mut v = Value::planned(name, DType::Int32, vec![words.len() as u64]);
    v.kind = ValueKind::Constant;
    v.data = Some(ConstantData::new(
        words.iter().flat_map(|w| w.to_le_bytes()).collect(),
    ));
    v
}

/// A tensor's scale and zero point, when it is quantized as a whole with a zero point an int8
/// kernel can take (TFLM requires one in int8's range; a file may say anything).
fn per_tensor(program: &Program, t: usize) -> Option<(f32, i32)> {
    let (scale, zero) = program.values[t].quant.as_ref()?.per_tensor()?;
    let zero = i8::try_from(zero).ok()?;
    Some((scale, i32::from(zero)))
}

/// FULLY_CONNECTED, int8 with per-tensor weights: `ap_tflite_fc_params_t`, or `None` for a
/// variant the kernel does not run.
fn fully_connected(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<[i32; 8]>, ImportError> {
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
        Some(&d) if d > 0 && d <= i32::MAX as u64 => d as i32,
        _ => return Ok(None),
    };
    // TFLM's GetQuantizedConvolutionMultipler: in double, input × filter over output.
    let real = f64::from(in_scale) * f64::from(f_scale) / f64::from(out_scale);
    let (multiplier, shift) = quantize_multiplier(real);
    let Some((act_min, act_max)) = activation_range(activation, out_scale, out_zero) else {
        return Ok(None);
    };
    Ok(Some([
        -in_zero, -f_zero, out_zero, multiplier, shift, act_min, act_max, depth,
    ]))
}

/// RESHAPE: the same bytes under another shape (TFLM copies them when the buffers differ).
fn reshape(program: &Program, inputs: &[usize], outputs: &[usize]) -> Option<()> {
    let (&[input, ..], &[output]) = (inputs, outputs) else {
        return None;
    };
    (program.values[input].bytes == program.values[output].bytes).then_some(())
}

/// SOFTMAX, int8 in and out (the output quantized as TFLM requires, scale 1/256 and zero point
/// −128): `ap_tflite_softmax_params_t`.
fn softmax(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<[i32; 4]>, ImportError> {
    let beta = match options {
        Some(t) => f32::from_bits(t.u32(0, 0)?),
        None => 0.0,
    };
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let (Some((in_scale, _)), Some((out_scale, out_zero))) =
        (per_tensor(program, input), per_tensor(program, output))
    else {
        return Ok(None);
    };
    let row = match v(input).shape.last() {
        Some(&r) if r > 0 && r <= i32::MAX as u64 => r as i32,
        _ => return Ok(None),
    };
    if v(input).dtype != DType::Int8
        || v(output).dtype != DType::Int8
        || out_zero != -128
        || out_scale != 1.0 / 256.0
    {
        return Ok(None);
    }
    // TFLM's PreprocessSoftmaxScaling with 5 integer bits for the scaled difference, then the
    // input radius: the most negative difference that still counts.
    const SCALED_DIFF_INTEGER_BITS: i32 = 5;
    let real = (f64::from(beta)
        * f64::from(in_scale)
        * f64::from(1u32 << (31 - SCALED_DIFF_INTEGER_BITS)))
    .min((1u64 << 31) as f64 - 1.0);
    let (multiplier, shift) = quantize_multiplier(real);
    if shift < 0 {
        return Ok(None); // QuantizeMultiplierGreaterThanOne's precondition
    }
    let radius = f64::from((1 << SCALED_DIFF_INTEGER_BITS) - 1)
        * (1u64 << (31 - SCALED_DIFF_INTEGER_BITS)) as f64
        / (1u64 << shift) as f64;
    let diff_min = -(radius.floor() as i32);
    Ok(Some([multiplier, shift, diff_min, row]))
}

/// TFLite's output size and the padding before the first row or column (`ComputeOutSize`,
/// `ComputePaddingWithOffset`), for padding SAME (0) or VALID (1).
fn padded(padding: i8, size: i64, filter: i64, stride: i64, dilation: i64) -> Option<(i64, i64)> {
    let effective = (filter - 1) * dilation + 1;
    let out = match padding {
        0 => (size + stride - 1) / stride,
        1 => (size + stride - effective) / stride,
        _ => return None,
    };
    let total = ((out - 1) * stride + effective - size).max(0);
    Some((out, total / 2))
}

/// DEPTHWISE_CONV_2D, int8 with per-channel (or per-tensor) weights:
/// `ap_tflite_dw_conv_params_t`, then each output channel's multiplier, then its shift.
fn depthwise_conv(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Vec<i32>>, ImportError> {
    let Some(t) = options else {
        return Ok(None);
    };
    let padding = t.i8(0, 0)?;
    let (stride_w, stride_h) = (i64::from(t.i32(1, 0)?), i64::from(t.i32(2, 0)?));
    let ch_mult = t.i32(3, 0)?;
    let activation = t.i8(4, 0)?;
    let (dil_w, dil_h) = (i64::from(t.i32(5, 1)?), i64::from(t.i32(6, 1)?));
    let (&[input, filter, bias], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let dims4 = |t: usize| -> Option<[i64; 4]> {
        let s = &v(t).shape;
        (s.len() == 4 && s.iter().all(|&d| d > 0 && d <= i32::MAX as u64))
            .then(|| [s[0] as i64, s[1] as i64, s[2] as i64, s[3] as i64])
    };
    let (
        Some([batches, in_h, in_w, in_c]),
        Some([1, k_h, k_w, out_c]),
        Some([ob, out_h, out_w, oc]),
    ) = (dims4(input), dims4(filter), dims4(output))
    else {
        return Ok(None);
    };
    if ob != batches
        || oc != out_c
        || ch_mult <= 0
        || in_c * i64::from(ch_mult) != out_c
        || stride_w <= 0
        || stride_h <= 0
        || dil_w <= 0
        || dil_h <= 0
        || v(input).dtype != DType::Int8
        || v(filter).dtype != DType::Int8
        || v(output).dtype != DType::Int8
        || v(filter).kind != ValueKind::Constant
        || v(bias).dtype != DType::Int32
        || v(bias).kind != ValueKind::Constant
        || v(bias).bytes != 4 * out_c as u64
    {
        return Ok(None);
    }
    let (Some((oh, pad_h)), Some((ow, pad_w))) = (
        padded(padding, in_h, k_h, stride_h, dil_h),
        padded(padding, in_w, k_w, stride_w, dil_w),
    ) else {
        return Ok(None);
    };
    if (oh, ow) != (out_h, out_w) {
        return Ok(None);
    }
    let (Some((in_scale, in_zero)), Some((out_scale, out_zero)), Some(fq)) = (
        per_tensor(program, input),
        per_tensor(program, output),
        v(filter).quant.as_ref(),
    ) else {
        return Ok(None);
    };
    let scales: Vec<f32> = fq.scale_bits.iter().map(|&b| f32::from_bits(b)).collect();
    if !(scales.len() == 1 || (scales.len() == out_c as usize && fq.axis == 3)) {
        return Ok(None);
    }
    let Some((act_min, act_max)) = activation_range(activation, out_scale, out_zero) else {
        return Ok(None);
    };
    let mut params = vec![
        -in_zero,
        out_zero,
        ch_mult,
        stride_w as i32,
        stride_h as i32,
        pad_w as i32,
        pad_h as i32,
        dil_w as i32,
        dil_h as i32,
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
    // TFLM's PopulateConvolutionQuantizationParams: per channel, in double.
    let per_channel: Vec<(i32, i32)> = (0..out_c as usize)
        .map(|c| {
            let filter_scale = scales[if scales.len() == 1 { 0 } else { c }];
            quantize_multiplier(
                f64::from(in_scale) * f64::from(filter_scale) / f64::from(out_scale),
            )
        })
        .collect();
    params.extend(per_channel.iter().map(|&(m, _)| m));
    params.extend(per_channel.iter().map(|&(_, s)| s));
    Ok(Some(params))
}

/// `x = m × 2^e` with `0.5 ≤ |m| < 1` (C's `frexp`), for finite `x`; `(0, 0)` for zero.
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7FF) as i32;
    if exponent == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(x * f64::from_bits(0x43F0_0000_0000_0000)); // 2^64
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7FF << 52)) | (1022 << 52));
    (m, exponent - 1022)
}

/// A real multiplier as TFLite's `QuantizeMultiplier` makes it: a Q31 fraction and a power of
/// two, the fraction rounded half away from zero.
pub(crate) fn quantize_multiplier(real: f64) -> (i32, i32) {
    if real == 0.0 {
        return (0, 0);
    }
    let (q, mut shift) = frexp(real);
    let mut fixed = (q * (1u64 << 31) as f64).round() as i64;
    if fixed == 1 << 31 {
        fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        shift = 0;
        fixed = 0;
    }
    (fixed as i32, shift)
}

/// TFLite's fused activation on an int8 output of scale `scale` and zero point `zero`
/// (`CalculateActivationRangeQuantized`): NONE, RELU, RELU_N1_TO_1, RELU6; `None` for the
/// others.
fn activation_range(activation: i8, scale: f32, zero: i32) -> Option<(i32, i32)> {
    let (qmin, qmax) = (i32::from(i8::MIN), i32::from(i8::MAX));
    // In float, as TFLM divides, rounded half away from zero.
    let quantize = |f: f32| zero.saturating_add((f / scale).round() as i32);
    match activation {
        0 => Some((qmin, qmax)),
        1 => Some((qmin.max(quantize(0.0)), qmax)),
        2 => Some((qmin.max(quantize(-1.0)), qmax.min(quantize(1.0)))),
        3 => Some((qmin.max(quantize(0.0)), qmax.min(quantize(6.0)))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipliers_are_q31_fractions_and_shifts_as_tflite_makes_them() {
        assert_eq!(quantize_multiplier(0.5), (1 << 30, 0));
        assert_eq!(quantize_multiplier(1.0), (1 << 30, 1));
        assert_eq!(quantize_multiplier(0.25), (1 << 30, -1));
        assert_eq!(quantize_multiplier(0.0), (0, 0));
        // A fraction that rounds up to 1 becomes 0.5 one power higher.
        assert_eq!(quantize_multiplier(0.999_999_999_9), (1 << 30, 1));
        // Below 2^-32 the multiplier is 0.
        assert_eq!(quantize_multiplier(1e-12), (0, 0));
        let (m, s) = quantize_multiplier(0.003_921_568_627);
        assert!(
            (f64::from(m) / (1u64 << 31) as f64 * 2f64.powi(s) - 0.003_921_568_627).abs() < 1e-12
        );
    }

    #[test]
    fn frexp_splits_normal_and_subnormal_numbers() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(0.75), (0.75, 0));
        let tiny = f64::from_bits(1); // the smallest subnormal, 2^-1074
        assert_eq!(frexp(tiny), (0.5, -1073));
    }

    #[test]
    fn fused_activations_clamp_in_the_outputs_quantization() {
        assert_eq!(activation_range(0, 0.1, -5), Some((-128, 127)));
        assert_eq!(activation_range(1, 0.1, -5), Some((-5, 127)));
        assert_eq!(activation_range(3, 0.1, -5), Some((-5, 55)));
        assert_eq!(activation_range(2, 0.1, -5), Some((-15, 5)));
        assert_eq!(activation_range(4, 0.1, -5), None); // TANH is an operator of its own
    }
}
