//! STRIDED_SLICE, ported from TFLM's reference kernel, its indices resolved at build time:
//! `ap_tflite_strided_slice_params_t`.

use super::layout::Params;
use super::layouts::StridedSliceParams;
use super::registry::Kernel;
use super::tensors::{ints, moved_width, MAX_DIM, RANK};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program, ValueKind};

/// STRIDED_SLICE (`StridedSliceOptions`: begin, end, ellipsis, new-axis and shrink-axis
/// masks; TFLM ignores the ellipsis and new-axis masks and the offset): constant int32 begin,
/// end and strides, resolved at build time as TFLM's reference kernel resolves them over five
/// dimensions (`StridedSlicePadIndices`, `StridedSliceStartForAxis`, `StridedSliceEndForAxis`)
/// into each dimension's first index, count and step: `ap_tflite_strided_slice_params_t`.
pub(super) fn lower(
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
    let Some(w) = moved_width(v(input).dtype).or((v(input).dtype == DType::Bool).then_some(1))
    else {
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
    let pad = RANK - rank;
    let mut dims = [1i64; RANK];
    let (mut start, mut stop, mut stride) = ([0i64; RANK], [1i64; RANK], [1i64; RANK]);
    for k in 0..rank {
        dims[pad + k] = v(input).shape[k] as i64;
        (start[pad + k], stop[pad + k], stride[pad + k]) = (b[k], e[k], s[k]);
    }
    let fill = (1i64 << pad) - 1;
    let begin_mask = (i64::from(begin_mask) << pad) | fill;
    let end_mask = (i64::from(end_mask) << pad) | fill;
    let shrink_mask = i64::from(shrink_mask) << pad;
    let mut elements = 1i128;
    let mut resolved = Vec::with_capacity(RANK);
    for d in 0..RANK {
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
    // One array per part of the resolved dimensions.
    let part = |i: usize| {
        let mut out = [0i32; RANK];
        for (x, r) in out.iter_mut().zip(&resolved) {
            *x = r[i] as i32;
        }
        out
    };
    let params = StridedSliceParams {
        width: w,
        first: part(0),
        count: part(1),
        step: part(2),
        extent: part(3),
    };
    Ok(Some(Lowered {
        kernel: Kernel::STRIDED_SLICE,
        constants: Vec::new(),
        params: Some(params.words()),
        scratch: None,
    }))
}
