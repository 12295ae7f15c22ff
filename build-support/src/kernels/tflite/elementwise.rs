//! The operands ADD and MUL share on CMSIS-NN's elementwise kernels: both inputs of the
//! output's shape (TFLM broadcasts other shapes in its reference kernels, which these do not
//! run) and type, int8 or int16 with zero point 0.

use super::quant::activation_range_in;
use super::tensors::{activations, Activations};
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::Program;

/// Both operations' operands: two inputs of the output's shape and type (int8, or int16 with
/// zero point 0), each quantized as a whole, and the fused activation (the options' first
/// field) as a clamp in the output type's range.
pub(super) struct Operands {
    /// int8 or int16.
    pub(super) kind: Activations,
    /// The first input's scale and zero point.
    pub(super) a: (f32, i32),
    /// The second's.
    pub(super) b: (f32, i32),
    /// The output's.
    pub(super) output: (f32, i32),
    /// The fused activation's clamp.
    pub(super) activation: (i32, i32),
}

pub(super) fn operands(
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
