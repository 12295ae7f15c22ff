//! The model IR every importer produces: values, a linear instruction list with nested
//! control flow, and delegates with their scratch declarations.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::Arc;

/// Index into [`Program::values`].
pub type ValueId = usize;
/// Index into [`Program::delegates`].
pub type DelegateId = usize;

/// Whose call a scratch buffer belongs to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScratchOwner {
    /// A delegate's call (its backend declared or its blob asked for the buffer).
    Delegate(DelegateId),
    /// A CPU kernel's call: the operator, whose `#[kernel]` declared the buffer.
    Kernel(String),
}

/// A model: what the planner and the emitters work on.
///
/// ```
/// use arenaplan_build::model::{DType, Instruction, KernelCall, Program, Value};
/// let mut p = Program::new("tiny");
/// let x = p.add_value(Value::planned("x", DType::Int8, vec![1, 16]));
/// let y = p.add_value(Value::planned("y", DType::Int8, vec![1, 16]));
/// p.inputs = vec![x];
/// p.outputs = vec![y];
/// p.body.push(Instruction::Kernel(KernelCall::new("relu", vec![x], vec![y])));
/// assert_eq!(p.values[y].bytes, 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The model's name (used for generated file names unless overridden).
    pub name: String,
    /// Every tensor.
    pub values: Vec<Value>,
    /// Delegated partitions.
    pub delegates: Vec<Delegate>,
    /// The instructions, in execution order.
    pub body: Vec<Instruction>,
    /// Values the caller provides.
    pub inputs: Vec<ValueId>,
    /// Values the caller reads back.
    pub outputs: Vec<ValueId>,
    /// The memory plan the file itself carries, kept for comparison (ours replaces it).
    pub source_plan: Option<SourcePlan>,
    /// The entry points of a program with several (an ExecuTorch program's methods), each a
    /// run of top-level instructions of `body`; empty for a program with one, which `body`,
    /// `inputs` and `outputs` describe. With methods, `inputs` and `outputs` are the first's.
    pub methods: Vec<super::Method>,
    /// Values kept between runs (state shared between methods): placed for the whole program,
    /// so nothing else ever shares their memory.
    pub state: Vec<ValueId>,
    /// The name of a program's one entry point, when the file names it (an ExecuTorch
    /// program's only method, usually `forward`); `None` otherwise. A program with several
    /// names each in [`Program::methods`].
    pub entry_name: Option<String>,
}

/// A plan found in an imported file: ExecuTorch's own memory plan, or TFLite's offline plan.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SourcePlan {
    /// Per planned buffer index (ExecuTorch `non_const_buffer_sizes`; index 0 reserved).
    pub buffer_sizes: Vec<u64>,
    /// Per value: (mem_id, offset) where the file places it.
    pub offsets: Vec<Option<(i64, u64)>>,
}

impl SourcePlan {
    /// The bytes the file's own plan provisions, given each value's bytes (in value order, as
    /// [`Program::source_arena`] passes them): its buffers' sizes (ExecuTorch), or else the end
    /// of the last value it places (TFLite's `OfflineMemoryAllocation`, which Vela writes: one
    /// arena).
    ///
    /// ```
    /// use arenaplan_build::model::SourcePlan;
    /// let plan = SourcePlan { buffer_sizes: vec![], offsets: vec![Some((1, 0)), Some((1, 64))] };
    /// assert_eq!(plan.arena(&[48, 16]), 80);
    /// ```
    pub fn arena(&self, value_bytes: &[u64]) -> u64 {
        if !self.buffer_sizes.is_empty() {
            return self.buffer_sizes.iter().sum();
        }
        self.offsets
            .iter()
            .zip(value_bytes)
            .filter_map(|(o, &bytes)| o.map(|(_, offset)| offset.saturating_add(bytes)))
            .max()
            .unwrap_or(0)
    }
}

/// What a value a model leaves without memory ([`ValueKind::Unmanaged`]) can be, for messages
/// that refuse it as a call argument.
pub const UNPLACED: &str =
    "an ExecuTorch tensor list, or an int list with an item known only at run time";

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

impl ScratchOwner {
    /// The delegate's name in `program`, or the kernel's operator.
    pub fn name<'a>(&'a self, program: &'a Program) -> &'a str {
        match self {
            ScratchOwner::Delegate(d) => program.delegates.get(*d).map_or("", |d| d.name.as_str()),
            ScratchOwner::Kernel(op) => op,
        }
    }
}

/// A pool named the way a model or a declaration names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PoolChoice {
    /// Through a compile spec of the target (the normal way).
    Spec(String),
    /// By raw `mem_id` (models imported from programs that carry one).
    MemId(i64),
}

impl fmt::Display for PoolChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoolChoice::Spec(s) => write!(f, "spec `{s}`"),
            PoolChoice::MemId(id) => write!(f, "mem_id {id}"),
        }
    }
}

/// Element types and their sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// One step of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instruction {
    /// A CPU kernel.
    Kernel(KernelCall),
    /// A call into a delegate's compiled partition.
    Delegate(DelegateCall),
    /// Control flow: exactly one arm runs, chosen by `predicate`.
    Branch(Branch),
}

/// A CPU kernel call. Its argument list is `inputs ++ outputs ++ scratch`, like a delegate
/// call's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCall {
    /// The operator, e.g. `aten::add.out`.
    pub op: String,
    /// Values read.
    pub inputs: Vec<ValueId>,
    /// Values written.
    pub outputs: Vec<ValueId>,
    /// Scratch buffers the scratch pass appended, in the order the kernel's `#[kernel]`
    /// declares them (none for a kernel that declares none).
    pub scratch: Vec<ValueId>,
    /// The scratch this call's kernel library needs, computed from the model's shapes (a
    /// TFLite operator on CMSIS-NN): one buffer, planned in the target's `cpu_scratch` pool
    /// with the size for the target's instruction set, unless a `#[kernel]` declaration for
    /// the operator says otherwise. `None`: the kernel needs none of its own.
    pub scratch_need: Option<ScratchByIsa>,
}

/// The instruction-set variants a CPU kernel library has code for, as CMSIS-NN tells them
/// apart: each needs its own scratch (its `*_get_buffer_size`, `_dsp` and `_mve` functions).
///
/// ```
/// use arenaplan_build::model::Isa;
/// assert_eq!(Isa::of_cpu("cortex-m55"), Some(Isa::Mve));
/// assert_eq!(Isa::of_cpu("cortex-m33"), Some(Isa::Dsp));
/// assert_eq!(Isa::of_cpu("cortex-m0plus"), Some(Isa::Plain));
/// assert_eq!(Isa::of_cpu("riscv"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Isa {
    /// Plain C: the host, and cores without the DSP extension (Cortex-M0, M0+, M3, M23).
    Plain,
    /// The DSP extension without Helium (Cortex-M4, M7, M33, M35P).
    Dsp,
    /// Helium, the M-profile vector extension (Cortex-M52, M55, M85).
    Mve,
}

impl Isa {
    /// The variant a core runs, by the name a target's `cpu` gives it (`host` for the machine
    /// running the build); `None` for a core arenaplan does not know.
    pub fn of_cpu(cpu: &str) -> Option<Isa> {
        match cpu {
            "host" | "cortex-m0" | "cortex-m0plus" | "cortex-m1" | "cortex-m3" | "cortex-m23" => {
                Some(Isa::Plain)
            }
            "cortex-m4" | "cortex-m7" | "cortex-m33" | "cortex-m35p" => Some(Isa::Dsp),
            "cortex-m52" | "cortex-m55" | "cortex-m85" => Some(Isa::Mve),
            _ => None,
        }
    }

    /// The suffix of CMSIS-NN's buffer-size function for it (`""`, `_dsp`, `_mve`).
    pub fn suffix(self) -> &'static str {
        match self {
            Isa::Plain => "",
            Isa::Dsp => "_dsp",
            Isa::Mve => "_mve",
        }
    }
}

/// A kernel call's scratch in bytes for each [`Isa`], and the library function that says so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScratchByIsa {
    /// Plain C.
    pub plain: u64,
    /// DSP extension.
    pub dsp: u64,
    /// Helium.
    pub mve: u64,
    /// The function computing it, without the variant's suffix (for messages and reports).
    pub function: &'static str,
    /// Whether the runtime's kernel has a variant that needs none (slower): the pipeline runs
    /// it where this scratch would make the arena larger ([`KernelVariants`](crate::pipeline::KernelVariants)).
    pub optional: bool,
}

impl ScratchByIsa {
    /// The bytes for `isa`.
    pub fn bytes(&self, isa: Isa) -> u64 {
        match isa {
            Isa::Plain => self.plain,
            Isa::Dsp => self.dsp,
            Isa::Mve => self.mve,
        }
    }
}

impl KernelCall {
    /// A call of `op` without scratch (the scratch pass adds what its kernel declares).
    pub fn new(op: impl Into<String>, inputs: Vec<ValueId>, outputs: Vec<ValueId>) -> Self {
        KernelCall {
            op: op.into(),
            inputs,
            outputs,
            scratch: Vec::new(),
            scratch_need: None,
        }
    }

    /// The flat argument list the runtime hands the kernel.
    pub fn args(&self) -> impl Iterator<Item = ValueId> + '_ {
        flat_args(&self.inputs, &self.outputs, &self.scratch)
    }
}

/// A call's flat argument list: inputs, outputs, then scratch (the runtime's contract).
fn flat_args<'a>(
    inputs: &'a [ValueId],
    outputs: &'a [ValueId],
    scratch: &'a [ValueId],
) -> impl Iterator<Item = ValueId> + 'a {
    inputs.iter().chain(outputs).chain(scratch).copied()
}

/// A delegate call. Its argument list is `inputs ++ outputs ++ scratch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelegateCall {
    /// The delegate it runs.
    pub delegate: DelegateId,
    /// Values read.
    pub inputs: Vec<ValueId>,
    /// Values written.
    pub outputs: Vec<ValueId>,
    /// Scratch buffers appended by the scratch pass: by role slot for a backend with slots,
    /// else in declaration order. A slot the call does not need holds an empty value.
    pub scratch: Vec<ValueId>,
}

impl DelegateCall {
    /// The flat argument list the runtime hands the backend.
    pub fn args(&self) -> impl Iterator<Item = ValueId> + '_ {
        flat_args(&self.inputs, &self.outputs, &self.scratch)
    }
}

/// Control flow with nested sub-graphs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    /// The value that selects the arm.
    pub predicate: ValueId,
    /// The arms; exactly one runs.
    pub arms: Vec<Vec<Instruction>>,
}

/// A delegated partition: a backend, its compiled blob and its compile specs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delegate {
    /// Its name in the program.
    pub name: String,
    /// The backend id, e.g. `EthosUBackend`.
    pub backend: String,
    /// The compiled partition, if the model carries one.
    pub blob: Option<Vec<u8>>,
    /// Compile specs as key → value.
    pub compile_specs: BTreeMap<String, String>,
    /// The scratch buffers each call of it needs, in argument order.
    pub scratch: Vec<ScratchSpec>,
}

/// One scratch buffer a delegate declares: size and pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScratchSpec {
    /// Size in bytes as declared (validated to be positive before planning).
    pub size: i64,
    /// The pool, normally through a compile spec.
    pub pool: PoolChoice,
    /// A name for reports and generated `#define`s.
    pub label: Option<String>,
    /// Where it was declared, for error messages.
    pub origin: Origin,
    /// The backend role it fills, when it comes from a compiled blob or model: the role, not
    /// the declaration order, decides its argument slot (`None`: declaration order).
    pub role: Option<ScratchRole>,
}

/// Where a declaration came from.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Origin {
    /// Nowhere in particular (built in code).
    #[default]
    Unknown,
    /// A line of a file.
    File {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// Read from the delegate's compiled blob by a backend plugin.
    Blob {
        /// The backend plugin.
        backend: String,
    },
    /// Taken from the model's own tensors (a Vela model's scratch tensors).
    ModelTensor {
        /// The tensor's name.
        tensor: String,
    },
    /// Computed by a kernel library's buffer-size function from the model's shapes.
    KernelLibrary {
        /// The function, with its variant's suffix (`arm_convolve_wrapper_s8_get_buffer_size_mve`).
        function: String,
    },
    /// Taken from the target's configuration.
    Target {
        /// The target.
        target: String,
        /// The setting.
        setting: String,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Unknown => f.write_str("(no location)"),
            Origin::File { path, line, column } => write!(f, "{}:{line}:{column}", path.display()),
            Origin::Blob { backend } => write!(f, "the {backend} blob"),
            Origin::ModelTensor { tensor } => write!(f, "tensor `{tensor}` of the model"),
            Origin::KernelLibrary { function } => write!(f, "CMSIS-NN's `{function}`"),
            Origin::Target { target, setting } => write!(f, "target `{target}` ({setting})"),
        }
    }
}

impl Program {
    /// The bytes the file's own memory plan provisions ([`SourcePlan::arena`]), when the file
    /// carries one: the NPU compiler's figure for a Vela `.tflite`, ExecuTorch's for a `.pte`.
    pub fn source_arena(&self) -> Option<u64> {
        let bytes: Vec<u64> = self.values.iter().map(|v| v.bytes).collect();
        self.source_plan.as_ref().map(|plan| plan.arena(&bytes))
    }

    /// An empty program.
    pub fn new(name: impl Into<String>) -> Self {
        Program {
            name: name.into(),
            values: Vec::new(),
            delegates: Vec::new(),
            body: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            source_plan: None,
            methods: Vec::new(),
            state: Vec::new(),
            entry_name: None,
        }
    }

    /// Adds a value and returns its id.
    pub fn add_value(&mut self, value: Value) -> ValueId {
        self.values.push(value);
        self.values.len() - 1
    }

    /// Every instruction with its flat index, in execution order (an arm's instructions follow
    /// the branch that runs them).
    pub fn flat_instructions(&self) -> Vec<(usize, &Instruction)> {
        fn walk<'a>(body: &'a [Instruction], out: &mut Vec<(usize, &'a Instruction)>) {
            for instruction in body {
                out.push((out.len(), instruction));
                if let Instruction::Branch(b) = instruction {
                    for arm in &b.arms {
                        walk(arm, out);
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out
    }

    /// The first call argument with no memory (see [`UNPLACED`]) the runtime could pass (a value the file leaves
    /// unplanned, such as a TFLite variable tensor): its instruction's flat index and its id.
    /// A branch's predicate counts too.
    pub fn unplaced_argument(&self) -> Option<(usize, ValueId)> {
        self.flat_instructions()
            .into_iter()
            .find_map(|(at, instruction)| {
                instruction
                    .touched()
                    .into_iter()
                    .find(|&v| self.values[v].kind == ValueKind::Unmanaged)
                    .map(|v| (at, v))
            })
    }

    /// Removes the values `remove` marks (indexed by value id) and renumbers every reference
    /// to the others: inputs, outputs, every call's arguments, branch predicates. References
    /// to a removed value are dropped (a removed predicate keeps its old id; remove none).
    pub fn remove_values(&mut self, remove: &[bool]) {
        let mut remap: Vec<Option<ValueId>> = Vec::with_capacity(self.values.len());
        let mut kept = 0;
        for v in 0..self.values.len() {
            if remove.get(v).copied().unwrap_or(false) {
                remap.push(None);
            } else {
                remap.push(Some(kept));
                kept += 1;
            }
        }
        let mut i = 0;
        self.values.retain(|_| {
            i += 1;
            remap[i - 1].is_some()
        });
        let map = |ids: &mut Vec<ValueId>| {
            ids.retain(|&v| remap.get(v).copied().flatten().is_some());
            for v in ids.iter_mut() {
                *v = remap[*v].unwrap_or(*v);
            }
        };
        map(&mut self.inputs);
        map(&mut self.outputs);
        map(&mut self.state);
        for method in &mut self.methods {
            map(&mut method.inputs);
            map(&mut method.outputs);
        }
        self.for_each_instruction_mut(|_, instruction| match instruction {
            Instruction::Kernel(k) => {
                map(&mut k.inputs);
                map(&mut k.outputs);
                map(&mut k.scratch);
            }
            Instruction::Delegate(d) => {
                map(&mut d.inputs);
                map(&mut d.outputs);
                map(&mut d.scratch);
            }
            Instruction::Branch(b) => {
                b.predicate = remap
                    .get(b.predicate)
                    .copied()
                    .flatten()
                    .unwrap_or(b.predicate);
            }
        });
    }

    /// Applies `f` to every instruction with its flat index, in execution order (a branch
    /// before its arms' instructions, as in [`Program::flat_instructions`]).
    pub fn for_each_instruction_mut(&mut self, mut f: impl FnMut(usize, &mut Instruction)) {
        fn walk(
            body: &mut [Instruction],
            next: &mut usize,
            f: &mut dyn FnMut(usize, &mut Instruction),
        ) {
            for instruction in body {
                let index = *next;
                *next += 1;
                f(index, instruction);
                if let Instruction::Branch(b) = instruction {
                    for arm in &mut b.arms {
                        walk(arm, next, f);
                    }
                }
            }
        }
        walk(&mut self.body, &mut 0, &mut f);
    }
}

impl Instruction {
    /// Values this instruction itself reads or writes (not those of nested arms).
    pub fn touched(&self) -> Vec<ValueId> {
        match self {
            Instruction::Kernel(k) => k.args().collect(),
            Instruction::Delegate(d) => d.args().collect(),
            Instruction::Branch(b) => vec![b.predicate],
        }
    }
}

/// One scratch buffer a backend's blob can ask for, by what it is for. Which argument slot,
/// compile spec and label each role has is the backends' knowledge (`backends::slots`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ScratchRole {
    /// Ethos-U region 1: Vela's scratch (feature maps; in Shared_Sram also the fast scratch
    /// and the copies of the call's inputs and outputs). Size: the bin stream's `scratch_size`.
    EthosUScratch,
    /// Ethos-U region 2: the fast scratch of Dedicated_Sram (Vela's arena cache). Not in the
    /// bin stream: from a declaration or the target's `npu.fast_scratch`.
    EthosUFastScratch,
    /// Neutron scratch (microcode word 9).
    NeutronScratch,
    /// Neutron SRAM scratch, for prefetched weights (word 10 in version 0, 12 in version 1).
    NeutronSramScratch,
    /// Neutron profiling buffer (version 1: word 10, low 31 bits).
    NeutronProfile,
    /// Neutron debug buffer (version 1: word 11).
    NeutronDebug,
    /// Where the runtime transposes the Neutron inputs and outputs the payload asks to see
    /// channels-last (NHWC) while the program holds them NCHW: one buffer per call, each
    /// tensor at its offset in the call's descriptor. Sized from the call's tensors.
    NeutronTranspose,
}
