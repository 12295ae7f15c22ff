//! `.npy` files hold a tensor's elements in the order of its dimensions (C order); a program
//! may lay a tensor out in another order (its dim order: channels-last, `[0, 2, 3, 1]`). `run`
//! moves elements between the two as ExecuTorch's runtime does with the tensors it is given,
//! so a file means the same tensor whatever the program's layout.

/// Where each element in C order lives in memory laid out in `dim_order` (outermost first),
/// in elements; `None` when the order is the identity (or empty: contiguous).
fn memory_index(shape: &[u64], dim_order: &[u8]) -> Option<Vec<usize>> {
    let rank = shape.len();
    let permutation = dim_order.len() == rank
        && (0..rank).all(|d| dim_order.iter().filter(|&&o| usize::from(o) == d).count() == 1);
    // Not a permutation (the runtime refuses such a table at init): the bytes as they are.
    if !permutation
        || dim_order
            .iter()
            .enumerate()
            .all(|(k, &d)| usize::from(d) == k)
    {
        return None;
    }
    let sizes: Vec<usize> = shape
        .iter()
        .map(|&s| usize::try_from(s).unwrap_or(0))
        .collect();
    // Each dimension's stride in memory: the product of the sizes laid out inside it.
    let mut stride = vec![0usize; rank];
    let mut inner = 1usize;
    for &d in dim_order.iter().rev() {
        let d = usize::from(d);
        stride[d] = inner;
        inner = inner.saturating_mul(sizes[d]);
    }
    let count: usize = sizes.iter().product();
    let mut out = Vec::with_capacity(count);
    let mut coord = vec![0usize; rank];
    for _ in 0..count {
        out.push(coord.iter().zip(&stride).map(|(c, s)| c * s).sum());
        // The next coordinate in C order.
        for d in (0..rank).rev() {
            coord[d] += 1;
            if coord[d] < sizes[d] {
                break;
            }
            coord[d] = 0;
        }
    }
    Some(out)
}

/// `data`, elements of `width` bytes in C order, laid out in `dim_order`.
pub fn to_memory(data: Vec<u8>, width: usize, shape: &[u64], dim_order: &[u8]) -> Vec<u8> {
    let Some(index) = memory_index(shape, dim_order) else {
        return data;
    };
    let mut out = vec![0u8; data.len()];
    for (i, &m) in index.iter().enumerate() {
        out[m * width..(m + 1) * width].copy_from_slice(&data[i * width..(i + 1) * width]);
    }
    out
}

/// `data`, laid out in `dim_order`, in C order.
pub fn from_memory(data: Vec<u8>, width: usize, shape: &[u64], dim_order: &[u8]) -> Vec<u8> {
    let Some(index) = memory_index(shape, dim_order) else {
        return data;
    };
    let mut out = vec![0u8; data.len()];
    for (i, &m) in index.iter().enumerate() {
        out[i * width..(i + 1) * width].copy_from_slice(&data[m * width..(m + 1) * width]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn channels_last_moves_channels_innermost_and_back() {
        // N=1, C=2, H=1, W=3: C order is c0: 0 1 2, c1: 3 4 5.
        let data: Vec<u8> = (0..6).collect();
        let nhwc = to_memory(data.clone(), 1, &[1, 2, 1, 3], &[0, 2, 3, 1]);
        assert_eq!(nhwc, [0, 3, 1, 4, 2, 5]);
        assert_eq!(from_memory(nhwc, 1, &[1, 2, 1, 3], &[0, 2, 3, 1]), data);
    }

    #[test]
    fn contiguous_orders_leave_the_bytes() {
        let data: Vec<u8> = (0..8).collect();
        assert_eq!(to_memory(data.clone(), 2, &[2, 2], &[0, 1]), data);
        assert_eq!(to_memory(data.clone(), 2, &[2, 2], &[]), data);
        // Not a permutation: nothing moved, nothing out of range.
        assert_eq!(to_memory(data.clone(), 2, &[2, 2], &[1, 1]), data);
        assert_eq!(from_memory(data.clone(), 2, &[2, 2], &[0, 7]), data);
    }
}
