//! CAST between integer types and to float32, ported from TFLM's reference kernel (no
//! CMSIS-NN kernel): `ap_tflite_cast_params_t`.

use super::layout::Params;
use super::layouts::CastParams;
use super::registry::Kernel;
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program};

/// The element types of `ap_tflite_cast_params_t`, by code: TFLM's CAST inputs but float32
/// (whose conversion of an out-of-range value C leaves undefined), and its outputs.
fn cast_type(dtype: DType, output: bool) -> Option<i32> {
    Some(match dtype {
        DType::Int8 => 1,
        DType::Int16 => 2,
        DType::Int32 => 3,
        DType::UInt32 => 4,
        DType::Bool if !output => 5,
        DType::Float32 if output => 6,
        _ => return None,
    })
}

/// CAST: each element converted as C's `static_cast` converts it (integers modulo their
/// width, to float32 rounded to nearest).
pub(super) fn lower(
    program: &Program,
    _options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let elements = |t: usize| v(t).bytes / v(t).dtype.size();
    let (Some(from), Some(to)) = (
        cast_type(v(input).dtype, false),
        cast_type(v(output).dtype, true),
    ) else {
        return Ok(None);
    };
    let n = elements(input);
    if n != elements(output) || v(input).shape != v(output).shape {
        return Ok(None);
    }
    let Ok(n) = i32::try_from(n) else {
        return Ok(None);
    };
    Ok(Some(Lowered {
        kernel: Kernel::CAST,
        constants: Vec::new(),
        params: Some(CastParams { from, to, count: n }.words()),
        scratch: None,
    }))
}
