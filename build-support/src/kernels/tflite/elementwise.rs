//! ADD and MUL on `arm_elementwise_add_s8` and `arm_elementwise_mul_s8` (int8) or their `_s16`
//! counterparts (int16, zero point 0), both inputs of
//! the output's shape (TFLM broadcasts other shapes in its reference kernels, which these do
//! not run), with the rescaling TFLM's `PrepareGeneralSubOrAdd` and `CalculateOpDataMul`
//! compute: `ap_tflite_add_params_t`, `ap_tflite_mul_params_t`.

use super::quant::{activation_range_in, multiplier};
use super::{activations, integer, Activations, Lowered};
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::Program;

/// The left shift inputs get before rescaling (TFLM's `PrepareGeneralSubOrAdd`): 20 for int8
/// outputs, 15 for int16.
fn left_shift(kind: Activations) -> i32 {
    match kind {
        Activations::S8 => 20,
        Activations::S16 => 15,
    }
}

/// Both operations' operands: two inputs of the output's shape and type (int8, or int16 with
/// zero point 0), each quantized as a whole, and the fused activation (the options' first
/// field) as a clamp in the output type's range.
struct Operands {
    kind: Activations,
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
    if v(a).shape != v(output).shape || v(b).shape != v(output).shape {
        return Ok(None);
    }
    let (Some((ka, sa, za)), Some((kb, sb, zb)), Some((kind, so, zo))) = (
        activations(program, a),
        activations(program, b),
        activations(program, output),
    ) else {
        return Ok(None);
    };
    if ka != kind || kb != kind {
        return Ok(None);
    }
    Ok(
        activation_range_in(activation, so, zo, kind.range()).map(|activation| Operands {
            kind,
            a: (sa, za),
            b: (sb, zb),
            output: (so, zo),
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
        kind,
        a: (a_scale, a_zero),
        b: (b_scale, b_zero),
        output: (out_scale, out_zero),
        activation: (act_min, act_max),
    }) = operands(program, options, inputs, outputs)?
    else {
        return integer::binary(integer::Binary::Add, program, options, inputs, outputs);
    };
    let shift_up = left_shift(kind);
    // In double, as TFLM: each input over twice the larger scale, and that over the output's
    // scale after the left shift.
    let twice_max = 2.0 * f64::from(a_scale.max(b_scale));
    let (Some((a_mult, a_shift)), Some((b_mult, b_shift)), Some((out_mult, out_shift))) = (
        multiplier(f64::from(a_scale) / twice_max),
        multiplier(f64::from(b_scale) / twice_max),
        multiplier(twice_max / (f64::from(1 << shift_up) * f64::from(out_scale))),
    ) else {
        return Ok(None);
    };
    // QuantizeMultiplierSmallerThanOneExp's precondition: right shifts only.
    if a_shift > 0 || b_shift > 0 || out_shift > 0 {
        return Ok(None);
    }
    Ok(Some(Lowered {
        constants: Vec::new(),
        op: match kind {
            Activations::S8 => "ADD",
            Activations::S16 => "ADD_S16",
        },
        params: Some(vec![
            -a_zero, a_mult, a_shift, -b_zero, b_mult, b_shift, shift_up, out_zero, out_mult,
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
        kind,
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
        op: match kind {
            Activations::S8 => "MUL",
            Activations::S16 => "MUL_S16",
        },
        constants: Vec::new(),
        params: Some(vec![
            -a_zero, -b_zero, out_zero, multiplier, shift, act_min, act_max,
        ]),
        scratch: None,
    }))
}
