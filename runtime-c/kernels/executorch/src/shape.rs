//! Operators that move elements without arithmetic (copies, views, permutations, selections,
//! concatenation) and the reductions over dimensions.

use arenaplan::{Call, Error, Result};

use crate::tensor::{boolean, input, int, int_list, numel, output_meta, output_tensor, DType};

/// The most dimensions these kernels handle.
pub const MAX_RANK: usize = 8;

/// A dimension argument (negative counts from the end) within `rank`.
fn dim(d: i64, rank: usize) -> core::result::Result<usize, Error> {
    let r = rank.max(1) as i64;
    let d = if d < 0 { d + r } else { d };
    if (0..r).contains(&d) {
        Ok(d as usize)
    } else {
        Err(Error::BadArguments)
    }
}

/// Row-major strides of `dims`.
fn strides(dims: &[u32]) -> [usize; MAX_RANK] {
    let mut s = [0usize; MAX_RANK];
    let mut acc = 1;
    for d in (0..dims.len()).rev() {
        s[d] = acc;
        acc = acc.saturating_mul(dims[d] as usize);
    }
    s
}

/// Copies input 0 into output 0 element by element (converting type): the same elements in
/// the same order, whatever the shapes say (a view or reshape, a clone, a dim-order copy of a
/// contiguous tensor).
fn copy_elements(call: &mut Call<'_>) -> Result {
    let a = input(call, 0)?;
    let mut out = output_tensor(call)?;
    if out.numel() != a.numel() {
        return Err(Error::BadArguments);
    }
    if out.dtype == a.dtype {
        let n = a.numel() * a.dtype.size();
        out.data[..n].copy_from_slice(&a.data[..n]);
        return Ok(());
    }
    for i in 0..out.numel() {
        out.set_from(i, &a, i);
    }
    Ok(())
}

/// `aten::view_copy.out(Tensor self, SymInt[] size, *, Tensor(a!) out)`.
pub fn view_copy(call: &mut Call<'_>) -> Result {
    copy_elements(call)
}

/// `aten::clone.out(Tensor self, *, MemoryFormat? memory_format, Tensor(a!) out)`.
pub fn clone(call: &mut Call<'_>) -> Result {
    copy_elements(call)
}

/// `dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking, int[]?
/// dim_order, Tensor(a!) out)`: a type conversion; only the contiguous dim order.
pub fn to_dim_order_copy(call: &mut Call<'_>) -> Result {
    let rank = input(call, 0)?.dims.len();
    if call.input_count() > 2 {
        if let Some((order, n)) = int_list::<MAX_RANK>(call, 2)? {
            if n != rank || order[..n].iter().enumerate().any(|(k, &d)| d != k as i64) {
                return Err(Error::BadArguments);
            }
        }
    }
    copy_elements(call)
}

/// `aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)`.
pub fn permute_copy(call: &mut Call<'_>) -> Result {
    let a = input(call, 0)?;
    let rank = a.dims.len();
    let (order, n) = int_list::<MAX_RANK>(call, 1)?.ok_or(Error::BadArguments)?;
    if n != rank || rank > MAX_RANK {
        return Err(Error::BadArguments);
    }
    let mut perm = [0usize; MAX_RANK];
    let mut seen = [false; MAX_RANK];
    for k in 0..n {
        let d = dim(order[k], rank)?;
        if seen[d] {
            return Err(Error::BadArguments);
        }
        seen[d] = true;
        perm[k] = d;
    }
    let mut out = output_tensor(call)?;
    if out.dims.len() != rank || (0..rank).any(|k| out.dims[k] != a.dims[perm[k]]) {
        return Err(Error::BadArguments);
    }
    let from = strides(a.dims);
    let to_dims = out.dims;
    for i in 0..out.numel() {
        let (mut rest, mut at) = (i, 0);
        for k in (0..rank).rev() {
            let extent = to_dims[k] as usize;
            at += (rest % extent) * from[perm[k]];
            rest /= extent;
        }
        out.set_from(i, &a, at);
    }
    Ok(())
}

/// `aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out)`.
pub fn select_copy(call: &mut Call<'_>) -> Result {
    let a = input(call, 0)?;
    let rank = a.dims.len();
    if rank == 0 || rank > MAX_RANK {
        return Err(Error::BadArguments);
    }
    let d = dim(int(call, 1)?, rank)?;
    let extent = a.dims[d] as i64;
    let index = int(call, 2)?;
    let index = if index < 0 { index + extent } else { index };
    if !(0..extent).contains(&index) {
        return Err(Error::BadArguments);
    }
    let mut out = output_tensor(call)?;
    let outer: usize = crate::tensor::numel(&a.dims[..d]);
    let inner: usize = crate::tensor::numel(&a.dims[d + 1..]);
    if out.numel() != outer * inner {
        return Err(Error::BadArguments);
    }
    for o in 0..outer {
        for i in 0..inner {
            let at = (o * extent as usize + index as usize) * inner + i;
            out.set_from(o * inner + i, &a, at);
        }
    }
    Ok(())
}

/// `aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim, *, ScalarType? dtype,
/// Tensor(a!) out)`: each output element sums its input elements in increasing index order,
/// in the output's type. No `dim` (or an empty list) sums everything.
pub fn sum(call: &mut Call<'_>) -> Result {
    let a = input(call, 0)?;
    let rank = a.dims.len();
    if rank > MAX_RANK {
        return Err(Error::BadArguments);
    }
    let mut reduced = [false; MAX_RANK];
    match int_list::<MAX_RANK>(call, 1)? {
        Some((list, n)) if n > 0 => {
            for &d in &list[..n] {
                let d = dim(d, rank)?;
                if reduced[d] {
                    return Err(Error::BadArguments); // a dimension named twice
                }
                reduced[d] = true;
            }
        }
        _ => reduced[..rank].iter_mut().for_each(|r| *r = true),
    }
    if call.input_count() > 2 {
        boolean(call, 2)?; // keepdim changes only the output's shape, which the plan fixed
    }
    let mut out = output_tensor(call)?;
    // The output's shape with the reduced dimensions kept as 1.
    let mut kept = [1u32; MAX_RANK];
    for d in 0..rank {
        if !reduced[d] {
            kept[d] = a.dims[d];
        }
    }
    if numel(&kept[..rank]) != out.numel() {
        return Err(Error::BadArguments);
    }
    let into = strides(&kept[..rank]);
    let from_dims = a.dims;
    let n = out.numel();
    match out.dtype {
        DType::F32 | DType::F64 => {
            // Accumulate per output element in input order, in the output's precision.
            for o in 0..n {
                let mut acc32 = 0f32;
                let mut acc64 = 0f64;
                for i in 0..a.numel() {
                    if target(i, from_dims, &reduced, &into) == o {
                        acc32 += a.f32(i);
                        acc64 += a.f64(i);
                    }
                }
                if out.dtype == DType::F32 {
                    out.set_f32(o, acc32);
                } else {
                    out.set_f64(o, acc64);
                }
            }
        }
        _ => {
            for o in 0..n {
                let mut acc = 0i64;
                for i in 0..a.numel() {
                    if target(i, from_dims, &reduced, &into) == o {
                        acc = acc.wrapping_add(a.i64(i));
                    }
                }
                out.set_i64(o, acc);
            }
        }
    }
    Ok(())
}

/// The output element input element `i` sums into.
fn target(i: usize, dims: &[u32], reduced: &[bool; MAX_RANK], into: &[usize; MAX_RANK]) -> usize {
    let (mut rest, mut at) = (i, 0);
    for d in (0..dims.len()).rev() {
        let extent = dims[d] as usize;
        if !reduced[d] {
            at += (rest % extent) * into[d];
        }
        rest /= extent.max(1);
    }
    at
}

/// `aten::cat.out(Tensor[] tensors, int dim, *, Tensor(a!) out)`: the list's tensors one after
/// another along `dim` (an empty 1-D tensor, as PyTorch allows, contributes nothing).
pub fn cat(call: &mut Call<'_>) -> Result {
    let count = crate::tensor::tensor_list(call, 0)?;
    let meta = output_meta(call)?;
    let rank = meta.dims.len();
    if rank == 0 || rank > MAX_RANK {
        return Err(Error::BadArguments); // a 0-d tensor cannot be concatenated
    }
    let d = if call.input_count() > count + 1 {
        dim(int(call, count + 1)?, rank)?
    } else {
        0
    };
    let out_dims = meta.dims;
    let outer: usize = crate::tensor::numel(&out_dims[..d]);
    let inner: usize = crate::tensor::numel(&out_dims[d + 1..]);
    let out_extent = out_dims.get(d).copied().unwrap_or(1) as usize;
    let mut parts = [None; MAX_RANK * 4];
    if count > parts.len() {
        return Err(Error::BadArguments);
    }
    let mut total = 0;
    for (k, part) in parts.iter_mut().enumerate().take(count) {
        let t = input(call, 1 + k)?;
        if t.dims.len() == 1 && t.dims[0] == 0 {
            continue;
        }
        if t.dims.len() != rank || (0..rank).any(|j| j != d && t.dims[j] != out_dims[j]) {
            return Err(Error::BadArguments);
        }
        total += t.dims[d] as usize;
        *part = Some(t);
    }
    if total != out_extent {
        return Err(Error::BadArguments);
    }
    let mut out = output_tensor(call)?;
    let mut at = 0;
    for t in parts.iter().take(count).flatten() {
        let extent = t.dims[d] as usize;
        for o in 0..outer {
            for e in 0..extent {
                for i in 0..inner {
                    out.set_from(
                        (o * out_extent + at + e) * inner + i,
                        t,
                        (o * extent + e) * inner + i,
                    );
                }
            }
        }
        at += extent;
    }
    Ok(())
}
