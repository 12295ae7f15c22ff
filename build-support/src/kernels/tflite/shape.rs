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
pub(super) fn ints(program: &Program, t: usize) -> Option<Vec<i64>> {
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

/// STRIDED_SLICE (`StridedSliceOptions`: begin, end, ellipsis, new-axis and shrink-axis
/// masks; TFLM ignores the ellipsis and new-axis masks and the offset): constant int32 begin,
/// end and strides, resolved at build time as TFLM's reference kernel resolves them over five
/// dimensions (`StridedSlicePadIndices`, `StridedSliceStartForAxis`, `StridedSliceEndForAxis`)
/// into each dimension's first index, count and step: `ap_tflite_strided_slice_params_t`.
pub(super) fn strided_slice(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, begin, end, strides], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let (begin_mask, end_mask, shrink_mask) = match options {
        Some(t) => (t.i32(0, 0)?, t.i32(1, 0)?, t.i32(4, 0)?),
        None => (0, 0, 0),
    };
    let v = |t: usize| &program.values[t];
    let rank = v(input).shape.len();
    let Some(w) = width(v(input).dtype).or((v(input).dtype == DType::Bool).then_some(1)) else {
        return Ok(None);
    };
    // TFLM's kernel takes one to four dimensions, and reads its indices as int32.
    let int32 = |t: usize| v(t).dtype == DType::Int32 && v(t).kind == ValueKind::Constant;
    if !(1..=4).contains(&rank)
        || v(output).dtype != v(input).dtype
        || ![begin, end, strides].into_iter().all(int32)
        || v(input).shape.iter().any(|&d| d > MAX_DIM)
    {
        return Ok(None);
    }
    let (Some(b), Some(e), Some(s)) = (
        ints(program, begin).filter(|x| x.len() == rank),
        ints(program, end).filter(|x| x.len() == rank),
        ints(program, strides).filter(|x| x.len() == rank),
    ) else {
        return Ok(None);
    };
    if s.contains(&0) {
        return Ok(None);
    }
    // Padded to five dimensions at the front: whole extents of 1, their mask bits set.
    let pad = PAD_RANK - rank;
    let mut dims = [1i64; PAD_RANK];
    let (mut start, mut stop, mut stride) = ([0i64; PAD_RANK], [1i64; PAD_RANK], [1i64; PAD_RANK]);
    for k in 0..rank {
        dims[pad + k] = v(input).shape[k] as i64;
        (start[pad + k], stop[pad + k], stride[pad + k]) = (b[k], e[k], s[k]);
    }
    let fill = (1i64 << pad) - 1;
    let begin_mask = (i64::from(begin_mask) << pad) | fill;
    let end_mask = (i64::from(end_mask) << pad) | fill;
    let shrink_mask = i64::from(shrink_mask) << pad;
    let mut words = vec![w];
    let mut elements = 1i128;
    let mut resolved = Vec::with_capacity(PAD_RANK);
    for d in 0..PAD_RANK {
        let (size, step, bit) = (dims[d], stride[d], 1i64 << d);
        let clamp = |x: i64| {
            if step > 0 {
                x.clamp(0, size)
            } else {
                x.clamp(-1, size - 1)
            }
        };
        let mut first = start[d];
        if first < 0 {
            first += size;
        }
        first = clamp(first);
        if begin_mask & bit != 0 {
            first = if step > 0 { 0 } else { size - 1 };
        }
        let last = if shrink_mask & bit != 0 {
            if first >= size {
                first
            } else {
                first + 1
            }
        } else {
            let mut last = stop[d];
            if last < 0 {
                last += size;
            }
            last = clamp(last);
            if end_mask & bit != 0 {
                last = if step > 0 { size } else { -1 };
            }
            last
        };
        // Steps taken while the index is short of the end (TFLM's loop condition).
        let span = if step > 0 { last - first } else { first - last };
        let count = if span > 0 {
            (span + step.abs() - 1) / step.abs()
        } else {
            0
        };
        // Each count is at most its extent (65535): five multiply to less than 2^80, so in
        // 128 bits.
        elements *= i128::from(count);
        resolved.push([first, count, step, size]);
    }
    let out_elements = v(output).bytes / v(output).dtype.size();
    if elements != i128::from(out_elements) {
        return Ok(None);
    }
    for field in 0..4 {
        words.extend(resolved.iter().map(|r| r[field] as i32));
    }
    Ok(Some(Lowered {
        op: "STRIDED_SLICE",
        constants: Vec::new(),
        params: Some(words),
        scratch: None,
    }))
}
