//! ADD and MUL on `arm_elementwise_add_s8` and `arm_elementwise_mul_s8`: int8, both inputs of
//! the output's shape (TFLM broadcasts other shapes in its reference kernels, which these do
//! not run), with the rescaling TFLM's `PrepareGeneralSubOrAdd` and `CalculateOpDataMul`
//! compute: `ap_tflite_add_params_t`, `ap_tflite_mul_params_t`.

use super::quant::{activation_range, multiplier};
use super::{integer, is_int8, per_tensor, Lowered};
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::Program;

/// The left shift int8 inputs get before rescaling (TFLM's, for int8 outputs).
const LEFT_SHIFT: i32 = 20;

/// Both operations' operands: two int8 inputs of the output's shape, each quantized as a whole,
/// and the fused activation (the options' first field) as a clamp.
struct Operands {
    a: (f32, i32),
    b: (f32, i32),
    output: (f32, i32),
    activation: (i32, i32),
}

fn operands(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Operands>, ImportError> {
    let activation = match options {
        Some(t) => t.i8(0, 0)?,
        None => 0,
    };
    let (&[a, b], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let same_shape = v(a).shape == v(output).shape && v(b).shape == v(output).shape;
    if !same_shape || ![a, b, output].iter().all(|&t| is_int8(program, t)) {
        return Ok(None);
    }
    let (Some(a), Some(b), Some(output)) = (
        per_tensor(program, a),
        per_tensor(program, b),
        per_tensor(program, output),
    ) else {
        return Ok(None);
    };
    Ok(
        activation_range(activation, output.0, output.1).map(|activation| Operands {
            a,
            b,
            output,
            activation,
        }),
    )
}

/// ADD (`AddOptions`: activation).
pub(super) fn add(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(Operands {
        a: (a_scale, a_zero),
        b: (b_scale, b_zero),
        output: (out_scale, out_zero),
        activation: (act_min, act_max),
    }) = operands(program, options, inputs, outputs)?
    else {
        return integer::binary(integer::Binary::Add, program, options, inputs, outputs);
    };
    // In double, as TFLM: each input over twice the larger scale, and that over the output's
    // scale after the left shift.
    let twice_max = 2.0 * f64::from(a_scale.max(b_scale));
    let (Some((a_mult, a_shift)), Some((b_mult, b_shift)), Some((out_mult, out_shift))) = (
        multiplier(f64::from(a_scale) / twice_max),
        multiplier(f64::from(b_scale) / twice_max),
        multiplier(twice_max / (f64::from(1 << LEFT_SHIFT) * f64::from(out_scale))),
    ) else {
        return Ok(None);
    };
    // QuantizeMultiplierSmallerThanOneExp's precondition: right shifts only.
    if a_shift > 0 || b_shift > 0 || out_shift > 0 {
        return Ok(None);
    }
    Ok(Some(Lowered {
        constants: Vec::new(),
        op: "ADD",
        params: Some(vec![
            -a_zero, a_mult, a_shift, -b_zero, b_mult, b_shift, LEFT_SHIFT, out_zero, out_mult,
            out_shift, act_min, act_max,
        ]),
        scratch: None,
    }))
}

/// MUL (`MulOptions`: activation): the product's scale over the output's, in double.
pub(super) fn mul(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(Operands {
        a: (a_scale, a_zero),
        b: (b_scale, b_zero),
        output: (out_scale, out_zero),
        activation: (act_min, act_max),
    }) = operands(program, options, inputs, outputs)?
    else {
        return integer::binary(integer::Binary::Mul, program, options, inputs, outputs);
    };
    let Some((multiplier, shift)) =
        multiplier(f64::from(a_scale) * f64::from(b_scale) / f64::from(out_scale))
    else {
        return Ok(None);
    };
    Ok(Some(Lowered {
        op: "MUL",
        constants: Vec::new(),
        params: Some(vec![
            -a_zero, -b_zero, out_zero, multiplier, shift, act_min, act_max,
        ]),
        scratch: None,
    }))
}
