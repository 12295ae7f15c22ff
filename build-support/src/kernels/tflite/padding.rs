//! TFLite's SAME and VALID padding (convolutions, TRANSPOSE_CONV, pooling).

/// TFLite's output size and the padding before the first row or column (`ComputeOutSize`,
/// `ComputePaddingWithOffset`), for padding SAME (0) or VALID (1).
pub(super) fn padded(
    padding: i8,
    size: i64,
    filter: i64,
    stride: i64,
    dilation: i64,
) -> Option<(i64, i64)> {
    let effective = (filter - 1) * dilation + 1;
    let out = match padding {
        0 => (size + stride - 1) / stride,
        1 => (size + stride - effective) / stride,
        _ => return None,
    };
    let total = ((out - 1) * stride + effective - size).max(0);
    Some((out, total / 2))
}
