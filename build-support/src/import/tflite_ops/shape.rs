//! PAD, PADV2 and CONCATENATION: data movement, ported from TFLM's reference kernels (no
//! arithmetic on the values; int8 tensors keep their quantization, as TFLM requires).

use super::{scale_and_zero, Lowered, MAX_DIM};
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program, ValueKind};

/// The most dimensions TFLM's PAD takes.
const PAD_RANK: usize = 5;

/// Bytes per element of the types these kernels move.
fn width(dtype: DType) -> Option<i32> {
    match dtype {
        DType::Int8 => Some(1),
        DType::Int16 => Some(2),
        DType::Int32 | DType::Float32 => Some(4),
        _ => None,
    }
}

/// A constant's int32 (or int64) elements.
fn ints(program: &Program, t: usize) -> Option<Vec<i64>> {
    let v = &program.values[t];
    let bytes = v.data.as_ref()?.bytes();
    match v.dtype {
        DType::Int32 => Some(
            bytes
                .chunks_exact(4)
                .map(|b| i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .collect(),
        ),
        DType::Int64 => Some(
            bytes
                .chunks_exact(8)
                .map(|b| i64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
                .collect(),
        ),
        _ => None,
    }
}

/// PAD and PADV2 (paddings constant `[rank, 2]`; PADV2's constant value): `ap_tflite_pad_params_t`.
/// The value padded with is PADV2's, else TFLM's default — an int8 output's zero point, zero
/// otherwise.
pub(super) fn pad(
    program: &Program,
    _options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, paddings, ref rest @ ..], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let rank = v(input).shape.len();
    let Some(w) = width(v(input).dtype) else {
        return Ok(None);
    };
    if rank == 0
        || rank > PAD_RANK
        || rest.len() > 1
        || v(output).dtype != v(input).dtype
        || v(output).shape.len() != rank
        || v(paddings).kind != ValueKind::Constant
        || (v(input).dtype == DType::Int8
            && scale_and_zero(program, input) != scale_and_zero(program, output))
    {
        return Ok(None);
    }
    let Some(pads) = ints(program, paddings).filter(|p| p.len() == 2 * rank) else {
        return Ok(None);
    };
    let value: i32 = match rest.first() {
        Some(&c) => {
            let Some(bytes) = v(c).data.as_ref().map(|d| d.bytes()) else {
                return Ok(None);
            };
            if v(c).dtype != v(input).dtype || bytes.len() != w as usize {
                return Ok(None);
            }
            let mut word = [0u8; 4];
            word[..bytes.len()].copy_from_slice(bytes);
            match w {
                1 => i32::from(bytes[0] as i8),
                2 => i32::from(i16::from_le_bytes([bytes[0], bytes[1]])),
                _ => i32::from_le_bytes(word),
            }
        }
        None => match (v(output).dtype, scale_and_zero(program, output)) {
            (DType::Int8, Some((_, zero))) => zero as i32,
            _ => 0,
        },
    };
    // Leading dimensions of 1 up to five, as TFLM pads them.
    let mut words = vec![w, value];
    for d in 0..PAD_RANK {
        let Some(k) = (d + rank).checked_sub(PAD_RANK) else {
            words.extend([1, 0, 0]);
            continue;
        };
        let (before, after) = (pads[2 * k], pads[2 * k + 1]);
        let dim = v(input).shape[k];
        let fits = |x: i64| (0..=MAX_DIM as i64).contains(&x);
        if !fits(before) || !fits(after) || !(1..=MAX_DIM).contains(&dim) {
            return Ok(None);
        }
        if dim as i64 + before + after != v(output).shape[k] as i64 {
            return Ok(None);
        }
        words.extend([dim as i32, before as i32, after as i32]);
    }
    Ok(Some(Lowered {
        op: "PAD",
        constants: Vec::new(),
        params: Some(words),
        scratch: None,
    }))
}

/// CONCATENATION (`ConcatenationOptions`: axis, activation — which TFLM requires be none):
/// `ap_tflite_concat_params_t`, then each input's bytes per outer index.
pub(super) fn concatenation(
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
    let Some(w) = width(v(output).dtype) else {
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
    let mut words = vec![n, outer];
    words.extend(inner);
    Ok(Some(Lowered {
        op: "CONCATENATION",
        constants: Vec::new(),
        params: Some(words),
        scratch: None,
    }))
}
