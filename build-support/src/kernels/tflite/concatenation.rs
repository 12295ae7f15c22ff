//! CONCATENATION, ported from TFLM's reference kernel (no arithmetic on the values; int8
//! inputs share the output's quantization, as TFLM requires): `ap_tflite_concat_params_t`, then
//! each input's bytes per outer index.

use super::layout::Params;
use super::layouts::ConcatParams;
use super::registry::Kernel;
use super::tensors::{moved_width, scale_and_zero};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program};

/// CONCATENATION (`ConcatenationOptions`: axis, activation — which TFLM requires be none):
/// `ap_tflite_concat_params_t`, then each input's bytes per outer index.
pub(super) fn lower(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (axis, activation) = match options {
        Some(t) => (t.i32(0, 0)?, t.i8(1, 0)?),
        None => (0, 0),
    };
    let &[output] = outputs else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let rank = v(output).shape.len() as i64;
    let axis = if axis < 0 {
        i64::from(axis) + rank
    } else {
        i64::from(axis)
    };
    let Some(w) = moved_width(v(output).dtype) else {
        return Ok(None);
    };
    if inputs.is_empty() || activation != 0 || !(0..rank).contains(&axis) {
        return Ok(None);
    }
    let axis = axis as usize;
    let out_shape = &v(output).shape;
    let outer: u64 = out_shape[..axis].iter().product();
    let mut inner = Vec::with_capacity(inputs.len());
    let mut axis_total = 0u64;
    for &i in inputs {
        let s = &v(i).shape;
        let same_elsewhere = s.len() == out_shape.len()
            && s.iter()
                .zip(out_shape)
                .enumerate()
                .all(|(d, (a, b))| d == axis || a == b);
        let quant_ok = v(i).dtype != DType::Int8
            || scale_and_zero(program, i) == scale_and_zero(program, output);
        if v(i).dtype != v(output).dtype || !same_elsewhere || !quant_ok {
            return Ok(None);
        }
        axis_total += s[axis];
        let bytes = s[axis..]
            .iter()
            .try_fold(w as u64, |acc, &d| acc.checked_mul(d));
        match bytes.and_then(|b| i32::try_from(b).ok()) {
            Some(b) => inner.push(b),
            None => return Ok(None),
        }
    }
    let (Ok(outer), Ok(n)) = (i32::try_from(outer), i32::try_from(inputs.len())) else {
        return Ok(None);
    };
    if axis_total != out_shape[axis] {
        return Ok(None);
    }
    let mut params = ConcatParams { inputs: n, outer }.words();
    params.extend(inner);
    Ok(Some(Lowered {
        kernel: Kernel::CONCATENATION,
        constants: Vec::new(),
        params: Some(params),
        scratch: None,
    }))
}
