//! Values: tensors (dtype, shape, bytes, quantization), constants and the non-tensor values a
//! program carries, and what each is (input, output, state, planned, constant, scratch).

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use super::{Origin, PoolChoice, ScratchOwner, ScratchRole};

/// Index into [`Program::values`](super::Program::values).
pub type ValueId = usize;

/// A tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Value {
    /// Its name (unique in the program).
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Dimensions.
    pub shape: Vec<u64>,
    /// Size in bytes.
    pub bytes: u64,
    /// Where its memory comes from.
    pub kind: ValueKind,
    /// The pool it must live in, when the model says so (else the target's default pool).
    pub pool: Option<PoolChoice>,
    /// A constant's bytes, when the model carries them (the generated program puts them in
    /// flash). `None` for every other kind, and for a constant whose data the model keeps
    /// elsewhere.
    pub data: Option<ConstantData>,
    /// What it is: a tensor, or one of ExecuTorch's non-tensor values (a constant whose bytes
    /// are the value, as [`EValue`] says).
    pub evalue: EValue,
    /// A tensor's dim order as the model gives it (ExecuTorch's `dim_order`: the dimensions from
    /// outermost to innermost in memory). Empty: the default, contiguous order (`0, 1, …`).
    pub dim_order: Vec<u8>,
    /// How its integers stand for real numbers, when the model says (a TFLite tensor's
    /// quantization parameters); `None` otherwise.
    pub quant: Option<Quantization>,
}

/// A quantized tensor's parameters: `real = scale × (q − zero_point)`, one pair for the whole
/// tensor or one per channel of dimension `axis`. Scales are kept as their IEEE-754 bits, so
/// values compare exactly and every consumer reads the same number.
///
/// ```
/// use arenaplan_build::model::Quantization;
/// let q = Quantization { scale_bits: vec![0.5f32.to_bits()], zero_point: vec![-128], axis: 0 };
/// assert_eq!(q.per_tensor(), Some((0.5, -128)));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Quantization {
    /// Each scale's `f32::to_bits`.
    pub scale_bits: Vec<u32>,
    /// Each zero point.
    pub zero_point: Vec<i64>,
    /// The channel dimension when there is more than one pair.
    pub axis: i32,
}

impl Quantization {
    /// The scale and zero point of a tensor quantized as a whole (one finite scale, one zero
    /// point), else `None` (per channel, or a scale that is not a finite number).
    pub fn per_tensor(&self) -> Option<(f32, i64)> {
        let zero = match self.zero_point.as_slice() {
            [] => 0,
            [zero] => *zero,
            _ => return None,
        };
        match self.scale_bits.as_slice() {
            [bits] => Some((f32::from_bits(*bits), zero)).filter(|(s, _)| s.is_finite()),
            _ => None,
        }
    }
}

/// What kind of value a [`Value`] is. Every kind but a tensor is a constant in flash whose
/// bytes are the value, and reaches kernels by value: an int or a double as 8 little-endian
/// bytes, a bool as one byte, a string as its UTF-8 bytes, a list as its elements (int64,
/// double, one byte per bool), `None` as no bytes. The runtime's `AP_VALUE_*` codes are the
/// variants' discriminants: generated C names them ([`EValue::c_name`]), so the C compiler
/// holds the two together, and the host runner's tests check each.
///
/// ```
/// use arenaplan_build::model::EValue;
/// assert_eq!(EValue::IntList as u8, 6);
/// assert_eq!(EValue::default(), EValue::Tensor);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EValue {
    /// A tensor.
    #[default]
    Tensor = 0,
    /// `None` (an optional argument left out).
    None = 1,
    /// An int (int64).
    Int = 2,
    /// A double.
    Double = 3,
    /// A bool.
    Bool = 4,
    /// A string.
    String = 5,
    /// A list of ints.
    IntList = 6,
    /// A list of doubles.
    DoubleList = 7,
    /// A list of bools.
    BoolList = 8,
    /// A list of tensors, as a call's argument: this value holds the count (8 little-endian
    /// bytes) and the call's next arguments are the elements (`None` for an optional one left
    /// out), each an argument of its own, so every element has its own memory and lifetime.
    TensorList = 9,
}

impl EValue {
    /// The runtime's name for it (`runtime.h`), as generated C writes it.
    pub fn c_name(self) -> &'static str {
        match self {
            EValue::Tensor => "AP_VALUE_TENSOR",
            EValue::None => "AP_VALUE_NONE",
            EValue::Int => "AP_VALUE_INT",
            EValue::Double => "AP_VALUE_DOUBLE",
            EValue::Bool => "AP_VALUE_BOOL",
            EValue::String => "AP_VALUE_STRING",
            EValue::IntList => "AP_VALUE_INT_LIST",
            EValue::DoubleList => "AP_VALUE_DOUBLE_LIST",
            EValue::BoolList => "AP_VALUE_BOOL_LIST",
            EValue::TensorList => "AP_VALUE_TENSOR_LIST",
        }
    }

    /// Its name in messages, as ExecuTorch's schema writes the type.
    pub fn name(self) -> &'static str {
        match self {
            EValue::Tensor => "Tensor",
            EValue::None => "None",
            EValue::Int => "int",
            EValue::Double => "float",
            EValue::Bool => "bool",
            EValue::String => "str",
            EValue::IntList => "int[]",
            EValue::DoubleList => "float[]",
            EValue::BoolList => "bool[]",
            EValue::TensorList => "Tensor[]",
        }
    }
}

/// A constant's bytes: a range of the bytes they were read from, shared by every constant of
/// one file, so a model's weights are held once however many tensors use them.
///
/// ```
/// use arenaplan_build::model::ConstantData;
/// let file = std::sync::Arc::new(vec![1u8, 2, 3, 4, 5]);
/// let weights = ConstantData::range(&file, 1..4).unwrap();
/// assert_eq!(weights.bytes(), &[2, 3, 4]);
/// assert!(ConstantData::range(&file, 3..9).is_none());
/// assert_eq!(ConstantData::new(vec![7u8; 8]).bytes().len(), 8);
/// ```
#[derive(Clone)]
pub struct ConstantData {
    source: Arc<Vec<u8>>,
    start: usize,
    len: usize,
}

impl ConstantData {
    /// Bytes of their own (a scalar's, a test's).
    pub fn new(bytes: Vec<u8>) -> Self {
        let len = bytes.len();
        ConstantData {
            source: Arc::new(bytes),
            start: 0,
            len,
        }
    }

    /// `range` of `source`, or `None` when it does not lie within it.
    pub fn range(source: &Arc<Vec<u8>>, range: Range<usize>) -> Option<Self> {
        (range.start <= range.end && range.end <= source.len()).then(|| ConstantData {
            source: Arc::clone(source),
            start: range.start,
            len: range.end - range.start,
        })
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.source[self.start..self.start + self.len]
    }
}

impl PartialEq for ConstantData {
    fn eq(&self, other: &Self) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for ConstantData {}

impl fmt::Debug for ConstantData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ConstantData({} bytes)", self.len)
    }
}

/// Where a value's memory comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// Data in the program (weights): not planned.
    Constant,
    /// A tensor the planner places.
    Planned,
    /// Memory the runtime or the caller owns (persistent state, non-tensor values, tensors
    /// the file leaves unplanned): not planned.
    Unmanaged,
    /// A delegate or kernel call's scratch buffer, inserted by the scratch pass. One of zero
    /// bytes is an empty slot: not planned, the backend gets no memory there.
    Scratch {
        /// Flat index of the call it belongs to.
        call: usize,
        /// The delegate or kernel that call runs.
        owner: ScratchOwner,
        /// Its position among the call's scratch arguments (a role's slot, or the
        /// declaration's index).
        slot: usize,
        /// Its name among the call's buffers, a C identifier (the declaration's label, the
        /// role's, else `scratch<slot>`): what generated `#define`s and constants are named by.
        label: String,
        /// The backend role it fills, when a blob or the target decided it.
        role: Option<ScratchRole>,
        /// Where its size came from (a declaration, the blob, the target).
        origin: Origin,
    },
}

/// Element types and their sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum DType {
    /// 8-bit signed integer.
    Int8,
    /// 8-bit unsigned integer.
    UInt8,
    /// 16-bit signed integer.
    Int16,
    /// 32-bit signed integer.
    Int32,
    /// 64-bit signed integer.
    Int64,
    /// 16-bit unsigned integer.
    UInt16,
    /// 32-bit unsigned integer.
    UInt32,
    /// 64-bit unsigned integer.
    UInt64,
    /// IEEE half precision.
    Float16,
    /// bfloat16.
    BFloat16,
    /// IEEE single precision.
    Float32,
    /// IEEE double precision.
    Float64,
    /// Boolean, one byte.
    Bool,
    /// Untyped bytes (scratch, opaque data).
    Bytes,
}

impl DType {
    /// Every type, with its name in model files.
    pub const ALL: [(DType, &'static str); 14] = [
        (DType::Int8, "int8"),
        (DType::UInt8, "uint8"),
        (DType::Int16, "int16"),
        (DType::Int32, "int32"),
        (DType::Int64, "int64"),
        (DType::UInt16, "uint16"),
        (DType::UInt32, "uint32"),
        (DType::UInt64, "uint64"),
        (DType::Float16, "float16"),
        (DType::BFloat16, "bfloat16"),
        (DType::Float32, "float32"),
        (DType::Float64, "float64"),
        (DType::Bool, "bool"),
        (DType::Bytes, "bytes"),
    ];

    /// Bytes per element.
    pub fn size(self) -> u64 {
        match self {
            DType::Int8 | DType::UInt8 | DType::Bool | DType::Bytes => 1,
            DType::Int16 | DType::UInt16 | DType::Float16 | DType::BFloat16 => 2,
            DType::Int32 | DType::UInt32 | DType::Float32 => 4,
            DType::Int64 | DType::UInt64 | DType::Float64 => 8,
        }
    }

    /// The C type of one element, where C has one (`int8_t`, `float`); `None` for half
    /// precision and bfloat16.
    pub fn c_type(self) -> Option<&'static str> {
        Some(match self {
            DType::Int8 => "int8_t",
            DType::UInt8 | DType::Bool | DType::Bytes => "uint8_t",
            DType::Int16 => "int16_t",
            DType::Int32 => "int32_t",
            DType::Int64 => "int64_t",
            DType::UInt16 => "uint16_t",
            DType::UInt32 => "uint32_t",
            DType::UInt64 => "uint64_t",
            DType::Float32 => "float",
            DType::Float64 => "double",
            DType::Float16 | DType::BFloat16 => return None,
        })
    }

    /// The type called `name` in model files.
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.iter().find(|(_, n)| *n == name).map(|&(t, _)| t)
    }

    /// Its ExecuTorch `ScalarType` code, as the runtime's value table records it (untyped
    /// bytes as `Byte`, 0).
    pub fn scalar_type(self) -> u8 {
        match self {
            DType::UInt8 | DType::Bytes => 0,
            DType::Int8 => 1,
            DType::Int16 => 2,
            DType::Int32 => 3,
            DType::Int64 => 4,
            DType::Float16 => 5,
            DType::Float32 => 6,
            DType::Float64 => 7,
            DType::Bool => 11,
            DType::BFloat16 => 15,
            DType::UInt16 => 27,
            DType::UInt32 => 28,
            DType::UInt64 => 29,
        }
    }

    /// Its name in model files.
    pub fn name(self) -> &'static str {
        DType::ALL
            .iter()
            .find(|(t, _)| *t == self)
            .map_or("bytes", |&(_, n)| n)
    }
}

impl Value {
    /// A non-tensor constant the program carries (an int, a double, a bool, a list): its
    /// bytes as the runtime reads them (`int` and `double` 8 little-endian bytes, `bool` one).
    ///
    /// ```
    /// use arenaplan_build::model::{DType, EValue, Value};
    /// let alpha = Value::constant("alpha", EValue::Int, DType::Int64, 1i64.to_le_bytes().to_vec());
    /// assert_eq!(alpha.bytes, 8);
    /// ```
    pub fn constant(name: impl Into<String>, evalue: EValue, dtype: DType, bytes: Vec<u8>) -> Self {
        Value {
            name: name.into(),
            dtype,
            shape: Vec::new(),
            bytes: bytes.len() as u64,
            kind: ValueKind::Constant,
            pool: None,
            data: Some(ConstantData::new(bytes)),
            evalue,
            dim_order: Vec::new(),
            quant: None,
        }
    }

    /// The contents a state value starts from in a buffer of `planned` bytes: its initial
    /// contents, or zeros where it has none (an ExecuTorch mutable buffer the exporter did not
    /// serialize starts as the exported module's did, at zero). The one rule for the generated
    /// `NAME_init` and the host's arenas.
    ///
    /// ```
    /// use arenaplan_build::model::{DType, Value};
    /// let state = Value::planned("s", DType::Int8, vec![4]);
    /// assert_eq!(&*state.initial_state(4), &[0, 0, 0, 0]);
    /// ```
    pub fn initial_state(&self, planned: u64) -> std::borrow::Cow<'_, [u8]> {
        match self
            .data
            .as_ref()
            .map(|d| d.bytes())
            .filter(|b| !b.is_empty())
        {
            Some(bytes) => std::borrow::Cow::Borrowed(bytes),
            None => std::borrow::Cow::Owned(vec![0; usize::try_from(planned).unwrap_or(0)]),
        }
    }

    /// A planned tensor; `bytes` from dtype and shape (saturating).
    pub fn planned(name: impl Into<String>, dtype: DType, shape: Vec<u64>) -> Self {
        let bytes = shape
            .iter()
            .try_fold(dtype.size(), |acc, &d| acc.checked_mul(d))
            .unwrap_or(u64::MAX);
        Value {
            name: name.into(),
            dtype,
            shape,
            bytes,
            kind: ValueKind::Planned,
            pool: None,
            data: None,
            evalue: EValue::Tensor,
            dim_order: Vec::new(),
            quant: None,
        }
    }

    /// What the runtime's value table says of it (`ap_value_meta_t`): its kind, a tensor's
    /// ExecuTorch `ScalarType` code and its dimensions. A value without memory at run time
    /// (`has_memory` false: absent, or a constant whose data the program does not carry) is
    /// described as `None`, as the runtime checks a tensor's shape against its memory.
    ///
    /// ```
    /// use arenaplan_build::model::{DType, EValue, Value};
    /// let x = Value::planned("x", DType::Float32, vec![2, 3]);
    /// assert_eq!(x.runtime_meta(true), (EValue::Tensor, 6, vec![2, 3]));
    /// assert_eq!(x.runtime_meta(false), (EValue::None, 0, vec![]));
    /// ```
    pub fn runtime_meta(&self, has_memory: bool) -> (EValue, u8, Vec<u32>) {
        let empty = self.bytes == 0;
        // A tensor whose bytes are not its elements' (TFLite's packed int4, a sparse
        // constant's compressed data) has no element type a kernel could index by: 255, which
        // the runtime does not size and kernels refuse.
        let elements = self
            .shape
            .iter()
            .try_fold(self.dtype.size(), |n, &d| n.checked_mul(d));
        let dtype = if elements == Some(self.bytes) {
            self.dtype.scalar_type()
        } else {
            u8::MAX
        };
        match self.evalue {
            EValue::Tensor if has_memory || empty => (
                EValue::Tensor,
                dtype,
                self.shape
                    .iter()
                    .map(|&d| u32::try_from(d).unwrap_or(u32::MAX))
                    .collect(),
            ),
            EValue::Tensor => (EValue::None, 0, Vec::new()),
            // Fixed-size kinds are checked against their memory, lists and strings only whole.
            kind if has_memory || empty => (kind, 0, Vec::new()),
            _ => (EValue::None, 0, Vec::new()),
        }
    }

    /// Whether the planner places it: a tensor or scratch of at least one byte (a value of
    /// zero bytes, such as an empty scratch slot, needs no memory and gets none).
    pub fn is_planned(&self) -> bool {
        matches!(self.kind, ValueKind::Planned | ValueKind::Scratch { .. }) && self.bytes > 0
    }

    /// Whether it is a planned byte buffer (one dimension of 8-bit or byte elements): the
    /// shape ExecuTorch gives scratch memory passed as an argument (a delegate's trailing
    /// scratch, a Cortex-M kernel's `scratch_buffer`).
    pub fn is_byte_buffer(&self) -> bool {
        self.shape.len() == 1
            && matches!(self.dtype, DType::UInt8 | DType::Int8 | DType::Bytes)
            && self.kind == ValueKind::Planned
    }
}
