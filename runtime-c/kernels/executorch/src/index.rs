//! Writing through indices: `index_put` (what a KV cache's `cache[:, pos] = v` becomes) and
//! the in-place `copy_` that writes a result back into a mutable buffer. In-place operators
//! take `self` as their output (see arenaplan-build's `import::in_place`): its memory holds
//! the current contents when the kernel runs.

use arenaplan::{Call, Error, Result};

use crate::shape::MAX_RANK;
use crate::tensor::{
    boolean, broadcast_index, broadcasts, input, optional_input, output_meta, output_tensor,
    tensor_list, DType, Tensor, TensorMut,
};

/// `aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking)`, in place: inputs `[src,
/// non_blocking]`, output `self`; `src` broadcast to `self`'s shape, converted to its type.
pub fn copy_(call: &mut Call<'_>) -> Result {
    let src = input(call, 0)?;
    let mut out = output_tensor(call)?;
    let dims = out.dims;
    if !broadcasts(dims, src.dims) {
        return Err(Error::BadArguments);
    }
    for i in 0..out.numel() {
        out.set_from(i, &src, broadcast_index(dims, src.dims, i));
    }
    Ok(())
}

/// The indices of an `index_put`: up to [`MAX_RANK`] optional int64 tensors, and the shape
/// they broadcast to.
struct Indices<'a> {
    each: [Option<Tensor<'a>>; MAX_RANK],
    count: usize,
    /// The first and one past the last indexed dimension (the indexed ones are adjacent).
    first: usize,
    end: usize,
    shape: [u32; MAX_RANK],
    rank: usize,
}

fn indices<'a>(
    call: &Call<'a>,
    at: usize,
    self_rank: usize,
) -> core::result::Result<Indices<'a>, Error> {
    let count = tensor_list(call, at)?;
    if count == 0 || count > self_rank || self_rank > MAX_RANK {
        return Err(Error::BadArguments);
    }
    let mut each: [Option<Tensor<'a>>; MAX_RANK] = [None; MAX_RANK];
    let (mut first, mut end) = (usize::MAX, 0);
    let mut shape = [1u32; MAX_RANK];
    let mut rank = 0;
    for (k, slot) in each.iter_mut().enumerate().take(count) {
        let Some(t) = optional_input(call, at + 1 + k)? else {
            continue;
        };
        if !matches!(t.dtype, DType::I64 | DType::I32) || t.dims.len() > MAX_RANK {
            return Err(Error::BadArguments); // boolean masks are not handled
        }
        if first != usize::MAX && end != k {
            return Err(Error::BadArguments); // indexed dimensions apart: not handled
        }
        first = first.min(k);
        end = k + 1;
        // Broadcast the index shapes together.
        let r = t.dims.len();
        if r > rank {
            shape.copy_within(0..rank, r - rank);
            shape[..r - rank].iter_mut().for_each(|d| *d = 1);
            rank = r;
        }
        for (j, &d) in t.dims.iter().enumerate() {
            let slot = &mut shape[rank - r + j];
            if *slot == 1 {
                *slot = d;
            } else if d != 1 && d != *slot {
                return Err(Error::BadArguments);
            }
        }
        *slot = Some(t);
    }
    if first == usize::MAX {
        return Err(Error::BadArguments);
    }
    Ok(Indices {
        each,
        count,
        first,
        end,
        shape,
        rank,
    })
}

/// Writes `values` into `out` (already holding `self`) at `indices`: the result shape is
/// `self.dims[..first] ++ index shape ++ self.dims[end..]`, `values` broadcast to it.
fn put(
    out: &mut TensorMut<'_, '_>,
    ix: &Indices<'_>,
    values: &Tensor<'_>,
    accumulate: bool,
) -> Result {
    let dims = out.dims;
    let (first, end) = (ix.first, ix.end);
    let rank = first + ix.rank + (dims.len() - end);
    if rank > 3 * MAX_RANK {
        return Err(Error::BadArguments);
    }
    let mut result = [0u32; 3 * MAX_RANK];
    result[..first].copy_from_slice(&dims[..first]);
    result[first..first + ix.rank].copy_from_slice(&ix.shape[..ix.rank]);
    result[first + ix.rank..rank].copy_from_slice(&dims[end..]);
    let result = &result[..rank];
    if !broadcasts(result, values.dims) {
        return Err(Error::BadArguments);
    }
    let total: usize = crate::tensor::numel(result);
    let _ = ix.count;
    for r in 0..total {
        // The coordinates of r in the result shape.
        let mut coords = [0usize; 3 * MAX_RANK];
        let mut rest = r;
        for d in (0..rank).rev() {
            let e = result[d] as usize;
            coords[d] = rest % e.max(1);
            rest /= e.max(1);
        }
        // The position in self: leading dims, indexed dims from the index tensors, trailing.
        let mut at = 0usize;
        for d in 0..dims.len() {
            let extent = dims[d] as usize;
            let c = if d < first {
                coords[d]
            } else if d < end {
                let Some(t) = &ix.each[d] else {
                    return Err(Error::BadArguments);
                };
                let index_coords = &coords[first..first + ix.rank];
                // The index tensor's element at these (broadcast) coordinates.
                let mut linear = 0;
                for (k, _) in index_coords.iter().enumerate() {
                    linear = linear * ix.shape[k] as usize + index_coords[k];
                }
                let v = t.i64(broadcast_index(&ix.shape[..ix.rank], t.dims, linear));
                let v = if v < 0 { v + extent as i64 } else { v };
                if !(0..extent as i64).contains(&v) {
                    return Err(Error::BadArguments);
                }
                v as usize
            } else {
                coords[d - end + first + ix.rank]
            };
            at = at * extent + c;
        }
        let from = broadcast_index(result, values.dims, r);
        if accumulate {
            match out.dtype {
                DType::F32 => {
                    let now = f32::from_le_bytes(
                        out.data[4 * at..4 * at + 4].try_into().unwrap_or([0; 4]),
                    );
                    out.set_f32(at, now + values.f32(from));
                }
                _ => return Err(Error::BadArguments),
            }
        } else {
            out.set_from(at, values, from);
        }
    }
    Ok(())
}

/// An `index_put`'s `values` (input `at`, after the indices) and `accumulate` (after them,
/// false when the program leaves it out).
fn values_and_accumulate<'a>(
    call: &Call<'a>,
    at: usize,
) -> core::result::Result<(Tensor<'a>, bool), Error> {
    let values = input(call, at)?;
    let accumulate = if call.input_count() > at + 1 {
        boolean(call, at + 1)?
    } else {
        false
    };
    Ok((values, accumulate))
}

/// `aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate)`,
/// in place: inputs `[indices…, values, accumulate]`, output `self`. Integer index tensors on
/// adjacent dimensions (`None` for the others); accumulation in float32 only.
pub fn index_put_(call: &mut Call<'_>) -> Result {
    let meta = output_meta(call)?;
    let rank = meta.dims.len();
    let ix = indices(call, 0, rank)?;
    let (values, accumulate) = values_and_accumulate(call, ix.count + 1)?;
    let mut out = output_tensor(call)?;
    put(&mut out, &ix, &values, accumulate)
}

/// `aten::index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate, *,
/// Tensor(a!) out)`: `self` copied to `out`, then written as `index_put_` writes.
pub fn index_put(call: &mut Call<'_>) -> Result {
    let this = input(call, 0)?;
    let ix = indices(call, 1, this.dims.len())?;
    let (values, accumulate) = values_and_accumulate(call, ix.count + 2)?;
    let mut out = output_tensor(call)?;
    if out.dims != this.dims {
        return Err(Error::BadArguments);
    }
    for i in 0..out.numel() {
        out.set_from(i, &this, i);
    }
    put(&mut out, &ix, &values, accumulate)
}
