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

/// `BuiltinOperator.FULLY_CONNECTED`.
const FULLY_CONNECTED: i32 = 9;
/// `BuiltinOptions.FullyConnectedOptions`.
const FULLY_CONNECTED_OPTIONS: u8 = 8;

/// The call of builtin operator `builtin`, with its options (union type and table).
pub(super) fn kernel_call(
    program: &mut Program,
    builtin: i32,
    options: Option<(u8, Table<'_>)>,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
) -> Result<Instruction, ImportError> {
    if builtin == FULLY_CONNECTED {
        let options = options.filter(|(t, _)| *t == FULLY_CONNECTED_OPTIONS);
        if let Some(params) = fully_connected(program, options.map(|(_, t)| t), &inputs, &outputs)?
        {
            let name = format!("{}:fc_params", program.values[outputs[0]].name);
            let p = program.add_value(constant_i32s(name, &params));
            let mut inputs = inputs;
            inputs.push(p);
            return Ok(Instruction::Kernel(KernelCall::new(
                "tflite:FULLY_CONNECTED",
                inputs,
                outputs,
            )));
        }
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

/// A tensor's scale and zero point, when it is quantized as a whole.
fn per_tensor(program: &Program, t: usize) -> Option<(f32, i64)> {
    program.values[t].quant.as_ref()?.per_tensor()
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
        -(in_zero as i32),
        -(f_zero as i32),
        out_zero as i32,
        multiplier,
        shift,
        act_min,
        act_max,
        depth,
    ]))
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
fn activation_range(activation: i8, scale: f32, zero: i64) -> Option<(i32, i32)> {
    let (qmin, qmax) = (i32::from(i8::MIN), i32::from(i8::MAX));
    let zero = i32::try_from(zero).ok()?;
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
