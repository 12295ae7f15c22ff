//! The view a backend written in Rust gets of one delegate call: its flat argument list,
//! split into inputs, outputs and scratch by the counts the plan recorded.

use core::fmt;

/// What a backend returns.
pub type Result = core::result::Result<(), Error>;

/// Why a backend call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The argument list does not have the shape the backend needs.
    BadArguments,
    /// A scratch buffer is missing or smaller than the backend needs.
    ScratchTooSmall,
    /// The backend's own failure, with its code.
    Backend(i32),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadArguments => f.write_str("the call's arguments do not match the backend"),
            Error::ScratchTooSmall => f.write_str("a scratch buffer is missing or too small"),
            Error::Backend(code) => write!(f, "backend error {code}"),
        }
    }
}

/// One delegate or kernel call's arguments: `[inputs…, outputs…, scratch…]`. Inputs are
/// read-only (they may be constants in flash, and one value may be passed twice); outputs and
/// scratch are the call's own memory.
///
/// ```
/// let (a, mut b, mut s) = ([1u8; 4], [0u8; 4], [0u8; 16]);
/// let inputs: [&[u8]; 1] = [&a];
/// let mut rest: [&mut [u8]; 2] = [&mut b, &mut s];
/// let mut call = arenaplan::Call::new(&inputs, &mut rest, 1).unwrap();
/// assert_eq!(call.scratch_count(), 1);
/// let (inputs, outputs, scratch) = call.split();
/// outputs[0].copy_from_slice(inputs[0]);
/// assert_eq!(scratch[0].len(), 16);
/// ```
pub struct Call<'a> {
    inputs: &'a [&'a [u8]],
    rest: &'a mut [&'a mut [u8]],
    outputs: usize,
    meta: &'a [Meta<'a>],
}

/// What kind of value an argument is: a tensor, or one of the non-tensor values an ExecuTorch
/// program hands its kernels, whose bytes are the value (see [`Meta`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// A tensor: [`Meta::dtype`] and [`Meta::dims`] say its type and shape.
    Tensor,
    /// `None`: no bytes.
    None,
    /// An int: 8 little-endian bytes.
    Int,
    /// A double: 8 little-endian bytes.
    Double,
    /// A bool: one byte, 0 or 1.
    Bool,
    /// A string: its UTF-8 bytes.
    String,
    /// A list of ints: 8 little-endian bytes each.
    IntList,
    /// A list of doubles: 8 little-endian bytes each.
    DoubleList,
    /// A list of bools: one byte each.
    BoolList,
    /// A list of tensors: its count (8 little-endian bytes); the call's next arguments are
    /// the elements, [`Kind::None`] for an optional one left out.
    TensorList,
}

impl Kind {
    /// The kind with the runtime's code (`AP_VALUE_*`, from `runtime.h`), if there is one.
    pub const fn from_code(code: u8) -> Option<Kind> {
        use crate::sys;
        Some(match code as u32 {
            sys::AP_VALUE_TENSOR => Kind::Tensor,
            sys::AP_VALUE_NONE => Kind::None,
            sys::AP_VALUE_INT => Kind::Int,
            sys::AP_VALUE_DOUBLE => Kind::Double,
            sys::AP_VALUE_BOOL => Kind::Bool,
            sys::AP_VALUE_STRING => Kind::String,
            sys::AP_VALUE_INT_LIST => Kind::IntList,
            sys::AP_VALUE_DOUBLE_LIST => Kind::DoubleList,
            sys::AP_VALUE_BOOL_LIST => Kind::BoolList,
            sys::AP_VALUE_TENSOR_LIST => Kind::TensorList,
            _ => return None,
        })
    }
}

/// What one argument is, as the program records it: its kind and, for a tensor, its element
/// type (ExecuTorch's `ScalarType` code: 6 is float32, 1 int8, 11 bool, …) and dimensions.
///
/// ```
/// use arenaplan::{Kind, Meta};
/// let m = Meta { kind: Kind::Tensor, dtype: 6, dims: &[2, 3], dim_order: &[] };
/// assert_eq!(m.elements(), 6);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Meta<'a> {
    /// The value's kind.
    pub kind: Kind,
    /// A tensor's `ScalarType` code (0 for other kinds).
    pub dtype: u8,
    /// A tensor's dimensions (empty for a 0-d tensor and for other kinds).
    pub dims: &'a [u32],
    /// A tensor's dim order, its dimensions from the outermost in memory to the innermost
    /// (`[0, 2, 3, 1]`: channels-last); empty when contiguous.
    pub dim_order: &'a [u8],
}

impl Meta<'_> {
    /// A meta that says nothing (a program that records none): a tensor of no known type.
    pub const UNKNOWN: Meta<'static> = Meta {
        kind: Kind::Tensor,
        dtype: u8::MAX,
        dims: &[],
        dim_order: &[],
    };

    /// Whether a tensor's elements lie in the order of its dimensions (no dim order, or the
    /// identity).
    ///
    /// ```
    /// use arenaplan::{Kind, Meta};
    /// let nhwc = Meta { kind: Kind::Tensor, dtype: 6, dims: &[1, 4, 4, 3], dim_order: &[0, 2, 3, 1] };
    /// assert!(!nhwc.is_contiguous());
    /// assert!(Meta { dim_order: &[], ..nhwc }.is_contiguous());
    /// ```
    pub fn is_contiguous(&self) -> bool {
        self.dim_order
            .iter()
            .enumerate()
            .all(|(k, &d)| usize::from(d) == k)
    }

    /// The number of elements of a tensor (1 for a 0-d one), saturating.
    pub fn elements(&self) -> usize {
        self.dims
            .iter()
            .fold(1usize, |n, &d| n.saturating_mul(d as usize))
    }
}

impl<'a> Call<'a> {
    /// A call reading `inputs` and writing `rest`, the first `outputs` of which are outputs;
    /// the others are scratch. `None` when `outputs` exceeds `rest`.
    pub fn new(
        inputs: &'a [&'a [u8]],
        rest: &'a mut [&'a mut [u8]],
        outputs: usize,
    ) -> Option<Self> {
        if outputs > rest.len() {
            return None;
        }
        Some(Call {
            inputs,
            rest,
            outputs,
            meta: &[],
        })
    }

    /// The same call with what each argument is (`meta[i]` for flat argument `i`: inputs,
    /// outputs, then scratch). `None` unless there is one entry per argument.
    ///
    /// ```
    /// use arenaplan::{Call, Kind, Meta};
    /// let (x, mut y) = ([0u8; 8], [0u8; 8]);
    /// let inputs: [&[u8]; 1] = [&x];
    /// let mut rest: [&mut [u8]; 1] = [&mut y];
    /// let meta = [Meta { kind: Kind::Tensor, dtype: 6, dims: &[2], dim_order: &[] }; 2];
    /// let call = Call::new(&inputs, &mut rest, 1).unwrap().with_meta(&meta).unwrap();
    /// assert_eq!(call.meta(1).unwrap().dims, &[2]);
    /// ```
    pub fn with_meta(mut self, meta: &'a [Meta<'a>]) -> Option<Self> {
        if meta.len() != self.inputs.len() + self.rest.len() {
            return None;
        }
        self.meta = meta;
        Some(self)
    }

    /// What flat argument `i` is (inputs, outputs, then scratch), when the program records it.
    pub fn meta(&self, i: usize) -> Option<Meta<'a>> {
        self.meta.get(i).copied()
    }

    /// Number of inputs.
    pub fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// Number of outputs.
    pub fn output_count(&self) -> usize {
        self.outputs
    }

    /// Number of scratch buffers (0 under a plan made before scratch was planned).
    pub fn scratch_count(&self) -> usize {
        self.rest.len() - self.outputs
    }

    /// Input `i`, if there is one.
    pub fn input(&self, i: usize) -> Option<&'a [u8]> {
        self.inputs.get(i).copied()
    }

    /// Inputs (read-only), outputs and scratch, borrowed at once.
    #[allow(clippy::type_complexity)]
    pub fn split(&mut self) -> (&'a [&'a [u8]], &mut [&'a mut [u8]], &mut [&'a mut [u8]]) {
        let (outputs, scratch) = self.rest.split_at_mut(self.outputs);
        (self.inputs, outputs, scratch)
    }

    /// Scratch buffer `i`, if the plan provided it and it holds at least `min_len` bytes.
    pub fn scratch(&mut self, i: usize, min_len: usize) -> core::result::Result<&mut [u8], Error> {
        match self.rest.get_mut(self.outputs + i) {
            Some(buffer) if buffer.len() >= min_len => Ok(buffer),
            _ => Err(Error::ScratchTooSmall),
        }
    }
}
