//! Typed views of a call's arguments: a tensor's element type and shape come from the value
//! table the program records ([`arenaplan::Meta`]), its bytes from the argument itself.
//! Elements are read and written little-endian, one at a time, so nothing depends on the
//! alignment of a buffer (a constant in flash, an arena slot).

use arenaplan::{Call, Error, Kind, Meta};

/// An element type kernels handle, by ExecuTorch's `ScalarType` code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    /// `Byte`.
    U8,
    /// `Char`.
    I8,
    /// `Short`.
    I16,
    /// `Int`.
    I32,
    /// `Long`.
    I64,
    /// `Float`.
    F32,
    /// `Double`.
    F64,
    /// `Bool`.
    Bool,
}

impl DType {
    /// The type with `ScalarType` code `code`, if kernels handle it.
    pub fn from_code(code: u8) -> Option<DType> {
        Some(match code {
            0 => DType::U8,
            1 => DType::I8,
            2 => DType::I16,
            3 => DType::I32,
            4 => DType::I64,
            6 => DType::F32,
            7 => DType::F64,
            11 => DType::Bool,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::U8 | DType::I8 | DType::Bool => 1,
            DType::I16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    /// Whether it is a floating-point type.
    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }
}

/// A tensor argument, read-only.
#[derive(Clone, Copy, Debug)]
pub struct Tensor<'a> {
    /// Element type.
    pub dtype: DType,
    /// Dimensions (empty for a 0-d tensor).
    pub dims: &'a [u32],
    /// Its bytes (at least its elements').
    pub data: &'a [u8],
}

fn bytes<const N: usize>(data: &[u8], i: usize) -> [u8; N] {
    let mut b = [0u8; N];
    if let Some(s) = data.get(i * N..i * N + N) {
        b.copy_from_slice(s);
    }
    b
}

/// The number of elements of a shape (1 for 0-d).
pub fn numel(dims: &[u32]) -> usize {
    dims.iter()
        .fold(1usize, |n, &d| n.saturating_mul(d as usize))
}

macro_rules! read_as {
    ($name:ident, $t:ty) => {
        /// Element `i` converted to the type, as C's conversion does (floats to integers
        /// truncate toward zero, saturating).
        pub fn $name(&self, i: usize) -> $t {
            let d = self.data;
            match self.dtype {
                DType::U8 => d.get(i).copied().unwrap_or(0) as $t,
                DType::I8 => d.get(i).copied().unwrap_or(0) as i8 as $t,
                DType::Bool => u8::from(d.get(i).copied().unwrap_or(0) != 0) as $t,
                DType::I16 => i16::from_le_bytes(bytes(d, i)) as $t,
                DType::I32 => i32::from_le_bytes(bytes(d, i)) as $t,
                DType::I64 => i64::from_le_bytes(bytes(d, i)) as $t,
                DType::F32 => f32::from_le_bytes(bytes(d, i)) as $t,
                DType::F64 => f64::from_le_bytes(bytes(d, i)) as $t,
            }
        }
    };
}

impl Tensor<'_> {
    /// Its number of elements.
    pub fn numel(&self) -> usize {
        numel(self.dims)
    }
    read_as!(f64, f64);
    read_as!(i64, i64);

    /// Element `i` as a truth value (non-zero).
    pub fn truth(&self, i: usize) -> bool {
        if self.dtype.is_float() {
            self.f64(i) != 0.0
        } else {
            self.i64(i) != 0
        }
    }
}

/// Whether `data` holds every element of a `dtype` tensor of shape `dims`, and every index
/// into it fits a `usize` (the strides of the dimensions other than 0 included).
fn holds(data: &[u8], dims: &[u32], dtype: DType) -> bool {
    let extent = dims
        .iter()
        .filter(|&&d| d != 0)
        .try_fold(dtype.size(), |n, &d| n.checked_mul(d as usize));
    match extent {
        Some(_) if dims.contains(&0) => true,
        Some(bytes) => data.len() >= bytes,
        None => false,
    }
}

/// The meta of flat argument `i`, which the kernels need: a program without meta is refused.
fn meta<'a>(call: &Call<'a>, i: usize) -> Result<Meta<'a>, Error> {
    call.meta(i).ok_or(Error::BadArguments)
}

/// Input `i` as a tensor whose bytes hold its elements. These kernels index memory in the
/// order of the dimensions: a tensor with another dim order (channels-last) is refused, never
/// read in the wrong order.
pub fn input<'a>(call: &Call<'a>, i: usize) -> Result<Tensor<'a>, Error> {
    let m = meta(call, i)?;
    let dtype = DType::from_code(m.dtype).ok_or(Error::BadArguments)?;
    let data = call.input(i).unwrap_or(&[]);
    if m.kind != Kind::Tensor || !m.is_contiguous() || !holds(data, m.dims, dtype) {
        return Err(Error::BadArguments);
    }
    Ok(Tensor {
        dtype,
        dims: m.dims,
        data,
    })
}

/// Input `i` as an int (an int, or a bool).
pub fn int(call: &Call<'_>, i: usize) -> Result<i64, Error> {
    let data = call.input(i).unwrap_or(&[]);
    match meta(call, i)?.kind {
        Kind::Int if data.len() == 8 => Ok(i64::from_le_bytes(bytes(data, 0))),
        Kind::Bool if data.len() == 1 => Ok(i64::from(data[0] != 0)),
        _ => Err(Error::BadArguments),
    }
}

/// Input `i` as a bool.
pub fn boolean(call: &Call<'_>, i: usize) -> Result<bool, Error> {
    int(call, i).map(|v| v != 0)
}

/// Input `i` as a number: an int or a double (a `Scalar` argument), as f64.
pub fn scalar(call: &Call<'_>, i: usize) -> Result<Scalar, Error> {
    let data = call.input(i).unwrap_or(&[]);
    match meta(call, i)?.kind {
        Kind::Double if data.len() == 8 => Ok(Scalar::Float(f64::from_le_bytes(bytes(data, 0)))),
        Kind::Int | Kind::Bool => int(call, i).map(Scalar::Int),
        _ => Err(Error::BadArguments),
    }
}

/// A `Scalar` argument: ExecuTorch keeps an int and a double apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// An int.
    Int(i64),
    /// A double.
    Float(f64),
}
