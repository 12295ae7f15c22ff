//! What the lowerings read of a tensor: its quantization as a kernel takes it, its activation
//! type, its dimensions within the kernels' limits, its constant data.

use crate::model::{DType, Program, ValueKind};

/// The dimensions the reference kernels walk (MEAN, INT_BINARY, PAD, STRIDED_SLICE): shapes of
/// fewer get leading extents of 1, as TFLM's kernels extend them.
pub(super) const RANK: usize = 5;

/// A tensor's scale and zero point, when it is quantized as a whole with a zero point an int8
/// kernel can take (TFLM requires one in int8's range; a file may say anything).
pub(super) fn per_tensor(program: &Program, t: usize) -> Option<(f32, i32)> {
    let (scale, zero) = program.values[t].quant.as_ref()?.per_tensor()?;
    let zero = i8::try_from(zero).ok()?;
    Some((scale, i32::from(zero)))
}

/// A tensor's scale and zero point, when it is quantized as a whole (any zero point: an int16
/// or int32 tensor's may lie outside int8).
pub(super) fn scale_and_zero(program: &Program, t: usize) -> Option<(f32, i64)> {
    program.values[t].quant.as_ref()?.per_tensor()
}

/// The largest extent of one dimension the kernels take: CMSIS-NN keeps some in 16 bits, and
/// the runtime's kernels refuse larger ones, so every product of a few stays far from overflow.
pub(super) const MAX_DIM: u64 = 65535;

/// Whether every extent of `shape` is one the kernels take (positive, at most [`MAX_DIM`]).
pub(super) fn dims_ok(shape: &[u64]) -> bool {
    shape.iter().all(|&d| (1..=MAX_DIM).contains(&d))
}

/// A tensor's four dimensions (NHWC), each positive and at most [`MAX_DIM`], as CMSIS-NN's
/// `cmsis_nn_dims` takes them.
pub(super) fn dims4(program: &Program, t: usize) -> Option<[i64; 4]> {
    let s = &program.values[t].shape;
    (s.len() == 4 && dims_ok(s)).then(|| [s[0] as i64, s[1] as i64, s[2] as i64, s[3] as i64])
}

/// Whether constant `t` carries all its bytes (a sparse tensor's buffer holds fewer).
pub(super) fn dense_constant(program: &Program, t: usize) -> bool {
    let v = &program.values[t];
    v.kind == ValueKind::Constant
        && v.data
            .as_ref()
            .is_some_and(|d| d.bytes().len() as u64 == v.bytes)
}

/// The integer type of a quantized activation tensor: int8, or int16 as TFLM's 16x8 kernels
/// take it (zero point 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Activations {
    /// int8.
    S8,
    /// int16, zero point 0.
    S16,
}

impl Activations {
    /// The type's range, which a fused activation clamps within.
    pub(super) fn range(self) -> (i32, i32) {
        match self {
            Activations::S8 => (i32::from(i8::MIN), i32::from(i8::MAX)),
            Activations::S16 => (i32::from(i16::MIN), i32::from(i16::MAX)),
        }
    }
}

/// Tensor `t`'s activation type, scale and zero point, when it is int8 quantized as a whole
/// with a zero point int8 holds, or int16 with zero point 0.
pub(super) fn activations(program: &Program, t: usize) -> Option<(Activations, f32, i32)> {
    match program.values[t].dtype {
        DType::Int8 => per_tensor(program, t).map(|(s, z)| (Activations::S8, s, z)),
        DType::Int16 => match scale_and_zero(program, t)? {
            (s, 0) => Some((Activations::S16, s, 0)),
            _ => None,
        },
        _ => None,
    }
}

/// Whether tensor `t` is int8.
pub(super) fn is_int8(program: &Program, t: usize) -> bool {
    program.values[t].dtype == DType::Int8
}

/// Bytes per element of the types the data-movement kernels (PAD, CONCATENATION,
/// STRIDED_SLICE) move.
pub(super) fn moved_width(dtype: DType) -> Option<i32> {
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
