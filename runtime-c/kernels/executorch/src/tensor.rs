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

/// A tensor argument the call writes.
pub struct TensorMut<'a, 'b> {
    /// Element type.
    pub dtype: DType,
    /// Dimensions.
    pub dims: &'a [u32],
    /// Its bytes.
    pub data: &'b mut [u8],
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
    read_as!(f32, f32);
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

impl TensorMut<'_, '_> {
    /// Its number of elements.
    pub fn numel(&self) -> usize {
        numel(self.dims)
    }

    fn put(&mut self, i: usize, b: &[u8]) {
        if let Some(s) = self.data.get_mut(i * b.len()..(i + 1) * b.len()) {
            s.copy_from_slice(b);
        }
    }

    /// Writes element `i` from an f32 (converted as C converts).
    pub fn set_f32(&mut self, i: usize, v: f32) {
        match self.dtype {
            DType::F32 => self.put(i, &v.to_le_bytes()),
            DType::F64 => self.put(i, &(v as f64).to_le_bytes()),
            DType::Bool => self.put(i, &[u8::from(v != 0.0)]),
            _ => self.set_i64(i, v as i64),
        }
    }

    /// Writes element `i` from an f64.
    pub fn set_f64(&mut self, i: usize, v: f64) {
        match self.dtype {
            DType::F32 => self.put(i, &(v as f32).to_le_bytes()),
            DType::F64 => self.put(i, &v.to_le_bytes()),
            DType::Bool => self.put(i, &[u8::from(v != 0.0)]),
            _ => self.set_i64(i, v as i64),
        }
    }

    /// Writes element `i` from an i64 (integers wrap to the type's width).
    pub fn set_i64(&mut self, i: usize, v: i64) {
        match self.dtype {
            DType::U8 | DType::I8 => self.put(i, &[v as u8]),
            DType::Bool => self.put(i, &[u8::from(v != 0)]),
            DType::I16 => self.put(i, &(v as i16).to_le_bytes()),
            DType::I32 => self.put(i, &(v as i32).to_le_bytes()),
            DType::I64 => self.put(i, &v.to_le_bytes()),
            DType::F32 => self.put(i, &(v as f32).to_le_bytes()),
            DType::F64 => self.put(i, &(v as f64).to_le_bytes()),
        }
    }

    /// Copies `from`'s element `j` into element `i`, converting its type.
    pub fn set_from(&mut self, i: usize, from: &Tensor<'_>, j: usize) {
        match self.dtype {
            DType::F32 => self.set_f32(i, from.f32(j)),
            DType::F64 => self.set_f64(i, from.f64(j)),
            DType::Bool => self.put(i, &[u8::from(from.truth(j))]),
            _ if from.dtype.is_float() => self.set_f64(i, from.f64(j)),
            _ => self.set_i64(i, from.i64(j)),
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

/// Input `i` as a tensor, or `None` when the program passes `None` there.
pub fn optional_input<'a>(call: &Call<'a>, i: usize) -> Result<Option<Tensor<'a>>, Error> {
    match meta(call, i)?.kind {
        Kind::None => Ok(None),
        _ => input(call, i).map(Some),
    }
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

impl Scalar {
    /// As an f64.
    pub fn f64(self) -> f64 {
        match self {
            Scalar::Int(v) => v as f64,
            Scalar::Float(v) => v,
        }
    }

    /// As an i64 (a double truncated).
    pub fn i64(self) -> i64 {
        match self {
            Scalar::Int(v) => v,
            Scalar::Float(v) => v as i64,
        }
    }
}

/// Input `i` as a list of ints: up to `N`, into `out`; how many there are. `None` (the
/// argument is `None`) gives `None`.
pub fn int_list<const N: usize>(
    call: &Call<'_>,
    i: usize,
) -> Result<Option<([i64; N], usize)>, Error> {
    let data = call.input(i).unwrap_or(&[]);
    match meta(call, i)?.kind {
        Kind::None => Ok(None),
        Kind::IntList if data.len().is_multiple_of(8) && data.len() / 8 <= N => {
            let mut out = [0i64; N];
            for (k, o) in out.iter_mut().enumerate().take(data.len() / 8) {
                *o = i64::from_le_bytes(bytes(data, k));
            }
            Ok(Some((out, data.len() / 8)))
        }
        // One int where a list is expected (`int[1]` in a schema).
        Kind::Int if N > 0 => {
            let mut out = [0i64; N];
            out[0] = int(call, i)?;
            Ok(Some((out, 1)))
        }
        _ => Err(Error::BadArguments),
    }
}

/// What the call's first output is.
pub fn output_meta<'a>(call: &Call<'a>) -> Result<Meta<'a>, Error> {
    meta(call, call.input_count())
}

/// The call's first output, as a tensor the kernel writes (every kernel here has one), in the
/// order of its dimensions, as [`input`]'s.
pub fn output_tensor<'a, 'c>(call: &'c mut Call<'a>) -> Result<TensorMut<'a, 'c>, Error> {
    let m = output_meta(call)?;
    let dtype = DType::from_code(m.dtype).ok_or(Error::BadArguments)?;
    let (_, outputs, _) = call.split();
    let data = outputs.first_mut().ok_or(Error::BadArguments)?;
    if m.kind != Kind::Tensor || !m.is_contiguous() || !holds(data, m.dims, dtype) {
        return Err(Error::BadArguments);
    }
    Ok(TensorMut {
        dtype,
        dims: m.dims,
        data,
    })
}

/// The index into a tensor of shape `dims`, broadcast to `out_dims` (aligned at the right, a
/// dimension of 1 repeated), of the output's element `linear`.
pub fn broadcast_index(out_dims: &[u32], dims: &[u32], linear: usize) -> usize {
    let mut rest = linear;
    let mut index = 0;
    let mut stride = 1;
    let shift = out_dims.len().saturating_sub(dims.len());
    for d in (0..out_dims.len()).rev() {
        let extent = out_dims[d] as usize;
        let coordinate = rest.checked_rem(extent).unwrap_or(0);
        rest = rest.checked_div(extent).unwrap_or(0);
        if d >= shift {
            let own = dims[d - shift] as usize;
            if own != 1 {
                index += coordinate * stride;
            }
            stride *= own;
        }
    }
    index
}

/// Whether `out_dims` is exactly the shape `shapes` broadcast together to (aligned at the
/// right; at each place the one size other than 1, or 1), as ExecuTorch requires of an
/// elementwise operator's output.
pub fn is_broadcast_of(out_dims: &[u32], shapes: &[&[u32]]) -> bool {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    if out_dims.len() != rank {
        return false;
    }
    (0..rank).all(|k| {
        let mut size = 1;
        for s in shapes {
            if let Some(&d) = (k + s.len()).checked_sub(rank).and_then(|at| s.get(at)) {
                if d != 1 {
                    if size != 1 && size != d {
                        return false;
                    }
                    size = d;
                }
            }
        }
        out_dims[k] == size
    })
}

/// Whether `dims` broadcasts to `out_dims`.
pub fn broadcasts(out_dims: &[u32], dims: &[u32]) -> bool {
    dims.len() <= out_dims.len()
        && dims
            .iter()
            .rev()
            .zip(out_dims.iter().rev())
            .all(|(&a, &b)| a == b || a == 1)
}

/// The tensor list whose head is input `i`: how many elements it has (they are inputs
/// `i + 1 ..= i + count`).
pub fn tensor_list(call: &Call<'_>, i: usize) -> Result<usize, Error> {
    let data = call.input(i).unwrap_or(&[]);
    match meta(call, i)?.kind {
        Kind::TensorList if data.len() == 8 => {
            let count = u64::from_le_bytes(bytes(data, 0));
            let count = usize::try_from(count).map_err(|_| Error::BadArguments)?;
            if count >= call.input_count().saturating_sub(i) {
                return Err(Error::BadArguments);
            }
            Ok(count)
        }
        _ => Err(Error::BadArguments),
    }
}
