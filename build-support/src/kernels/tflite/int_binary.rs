//! INT_BINARY: unquantized integer arithmetic, ported from TFLM's reference kernels (no
//! CMSIS-NN kernel exists for them): ADD, MUL and DIV of int32 tensors, MAXIMUM and MINIMUM of
//! int8, int16 or int32 ones, each broadcasting its inputs up to five dimensions as TFLM's
//! `Broadcast*Slow` does (`ap_tflite_int_binary_params_t`).
//!
//! The arithmetic wraps where TFLM's would overflow (two's complement, as its builds behave),
//! and a division by zero gives 0 and `INT32_MIN / -1` gives `INT32_MIN`, as Cortex-M's `SDIV`
//! does (TFLM's C++ leaves both undefined).

use super::layout::Params;
use super::layouts::IntBinaryParams;
use super::registry::Kernel;
use super::tensors::{MAX_DIM, RANK};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program};

/// The operations of `ap_tflite_int_binary_params_t`, by code.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Binary {
    Add = 0,
    Mul = 1,
    Div = 2,
    Maximum = 3,
    Minimum = 4,
}

/// `op` of two integer tensors into a third of the same type, broadcast; `None` where TFLM has
/// no integer kernel for it (or the shapes do not broadcast).
pub(super) fn lower(
    op: Binary,
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[a, b], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let dtype = v(output).dtype;
    if v(a).dtype != dtype || v(b).dtype != dtype {
        return Ok(None);
    }
    let width = match (op, dtype) {
        (_, DType::Int32) => 4,
        (Binary::Maximum | Binary::Minimum, DType::Int16) => 2,
        (Binary::Maximum | Binary::Minimum, DType::Int8) => 1,
        _ => return Ok(None),
    };
    // TFLM's int32 ADD and DIV take unquantized tensors only.
    if matches!(op, Binary::Add | Binary::Div)
        && [a, b, output].iter().any(|&t| v(t).quant.is_some())
    {
        return Ok(None);
    }
    // ADD's int32 kernel clamps to int32's range whatever the fused activation; MUL and DIV
    // clamp to the activation's range (`CalculateActivationRange`); MAXIMUM and MINIMUM have none.
    let activation = match (op, options) {
        (Binary::Mul | Binary::Div, Some(t)) => t.i8(0, 0)?,
        _ => 0,
    };
    let (min, max) = match activation {
        1 => (0, i32::MAX),
        2 => (-1, 1),
        3 => (0, 6),
        _ => (i32::MIN, i32::MAX),
    };
    let Some(shape) = broadcast(&v(a).shape, &v(b).shape, &v(output).shape) else {
        return Ok(None);
    };
    let [extent, a_stride, b_stride] = shape;
    let params = IntBinaryParams {
        op: op as i32,
        width,
        activation_min: min,
        activation_max: max,
        extent,
        a_stride,
        b_stride,
    };
    Ok(Some(Lowered {
        kernel: Kernel::INT_BINARY,
        constants: Vec::new(),
        params: Some(params.words()),
        scratch: None,
    }))
}

/// The output's extents and each input's element strides (0 where it broadcasts), over five
/// dimensions, when both inputs broadcast to the output's shape.
fn broadcast(a: &[u64], b: &[u64], out: &[u64]) -> Option<[[i32; RANK]; 3]> {
    if [a, b, out]
        .iter()
        .any(|s| s.len() > RANK || s.iter().any(|&d| d > MAX_DIM))
    {
        return None;
    }
    let extend = |s: &[u64]| {
        let mut e = [1u64; RANK];
        e[RANK - s.len()..].copy_from_slice(s);
        e
    };
    let (a, b, out) = (extend(a), extend(b), extend(out));
    let strides = |s: &[u64; RANK]| -> Option<[i32; RANK]> {
        let mut st = [0i32; RANK];
        let mut acc = 1u64;
        for d in (0..RANK).rev() {
            if s[d] != out[d] && s[d] != 1 {
                return None;
            }
            st[d] = if s[d] == 1 {
                0
            } else {
                i32::try_from(acc).ok()?
            };
            acc = acc.checked_mul(s[d])?;
        }
        i32::try_from(acc).ok().map(|_| st)
    };
    let elements = out.iter().try_fold(1u64, |acc, &d| acc.checked_mul(d))?;
    i32::try_from(elements).ok()?;
    let mut extents = [0i32; RANK];
    for (e, &d) in extents.iter_mut().zip(&out) {
        *e = d as i32;
    }
    Some([extents, strides(&a)?, strides(&b)?])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scalar_broadcasts_with_stride_zero() {
        let [ext, a, b] = broadcast(&[40], &[], &[40]).unwrap();
        assert_eq!(ext, [1, 1, 1, 1, 40]);
        assert_eq!(a, [0, 0, 0, 0, 1]);
        assert_eq!(b, [0; 5]);
        let [ext, a, b] = broadcast(&[2, 1, 3], &[4, 1], &[2, 4, 3]).unwrap();
        assert_eq!(ext, [1, 1, 2, 4, 3]);
        assert_eq!(a, [0, 0, 3, 0, 1]);
        assert_eq!(b, [0, 0, 0, 1, 0]);
        assert!(broadcast(&[3], &[2], &[3]).is_none());
    }
}
