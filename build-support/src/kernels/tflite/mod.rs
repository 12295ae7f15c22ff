//! TFLite's builtin operators as the runtime's CPU kernels run them (`arenaplan/tflite.h`):
//! the kernel's operator name (`tflite:FULLY_CONNECTED`), the parameters TFLite Micro
//! computes when it prepares the operator — quantized multipliers and shifts, offsets,
//! activation ranges — computed here, at build time, the same way, as a constant the call
//! reads last among its inputs (in flash, in firmware), and the scratch its CMSIS-NN kernel
//! asks for on each instruction set ([`crate::kernels::tflite::cmsis_nn`]), which the pipeline plans for the
//! target's core. The layouts are the header's, field by field, int32 little-endian.
//!
//! One file per family of operators (convolutions, fully connected, pooling, elementwise,
//! softmax, SVDF, LSTM, quantize, shape and data movement, integer arithmetic and CAST, MEAN,
//! RELU, and TFLM's signal library's custom operators); the quantization arithmetic they share
//! is `quant`.
//!
//! An operator arenaplan has no kernel for, or a variant its kernel does not run (another
//! type, per-channel weights), stays the call it was, `builtin:N`, which no kernel implements.

mod activation;
mod c_files;
pub mod cmsis_nn;
mod conv;
mod elementwise;
mod fully_connected;
mod integer;
mod layout;
mod layouts;
mod lstm;
mod pool;
mod quant;
mod quantize;
mod reduce;
mod registry;
mod shape;
mod signal;
mod softmax;
mod svdf;

use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{
    ConstantData, DType, Instruction, KernelCall, Program, ScratchByIsa, Value, ValueKind,
};

/// `BuiltinOperator` codes.
const ADD: i32 = 0;
const AVERAGE_POOL_2D: i32 = 1;
const CONCATENATION: i32 = 2;
const CONV_2D: i32 = 3;
const DEPTHWISE_CONV_2D: i32 = 4;
const DEQUANTIZE: i32 = 6;
const MAX_POOL_2D: i32 = 17;
const MUL: i32 = 18;
const PAD: i32 = 34;
const PADV2: i32 = 60;
const FULLY_CONNECTED: i32 = 9;
const RELU: i32 = 19;
const RELU6: i32 = 21;
const RESHAPE: i32 = 22;
const MEAN: i32 = 40;
const TRANSPOSE_CONV: i32 = 67;
const DIV: i32 = 42;
const STRIDED_SLICE: i32 = 45;
const CAST: i32 = 53;
const MAXIMUM: i32 = 55;
const MINIMUM: i32 = 57;
const SOFTMAX: i32 = 25;
const SVDF: i32 = 27;
const UNIDIRECTIONAL_SEQUENCE_LSTM: i32 = 44;
const QUANTIZE: i32 = 114;
/// `BuiltinOptions` union types.
const CONV_2D_OPTIONS: u8 = 1;
const DEPTHWISE_CONV_2D_OPTIONS: u8 = 2;
const POOL_2D_OPTIONS: u8 = 5;
const FULLY_CONNECTED_OPTIONS: u8 = 8;
const SOFTMAX_OPTIONS: u8 = 9;
const CONCATENATION_OPTIONS: u8 = 10;
const MUL_OPTIONS: u8 = 21;
const SVDF_OPTIONS: u8 = 6;
const ADD_OPTIONS: u8 = 11;
const REDUCER_OPTIONS: u8 = 27;
const TRANSPOSE_CONV_OPTIONS: u8 = 49;
const DIV_OPTIONS: u8 = 29;
const STRIDED_SLICE_OPTIONS: u8 = 32;
const UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS: u8 = 71;

/// What an operator becomes on the runtime's kernel.
struct Lowered {
    /// The kernel's operator after `tflite:`.
    op: &'static str,
    /// Constants computed from the model's (each named by what follows the output's name), read
    /// before the parameters.
    constants: Vec<(&'static str, Vec<i32>)>,
    /// The parameters constant it reads last; `None`: it reads only the data input (RESHAPE,
    /// whose shape is the output's).
    params: Option<Vec<i32>>,
    /// The scratch its CMSIS-NN kernel asks for, if any.
    scratch: Option<ScratchByIsa>,
}

/// A lowering: the call's options table (of the operator's options type), inputs and outputs.
type Lowering =
    fn(&Program, Option<Table<'_>>, &[usize], &[usize]) -> Result<Option<Lowered>, ImportError>;

/// The call of builtin operator `builtin`, with its options (union type and table).
pub(crate) fn kernel_call(
    program: &mut Program,
    builtin: i32,
    options: Option<(u8, Table<'_>)>,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
) -> Result<Instruction, ImportError> {
    let lowering: Option<(Lowering, u8)> = match builtin {
        ADD => Some((elementwise::add, ADD_OPTIONS)),
        MUL => Some((elementwise::mul, MUL_OPTIONS)),
        DIV => Some((
            |p, o, i, out| integer::binary(integer::Binary::Div, p, o, i, out),
            DIV_OPTIONS,
        )),
        MAXIMUM => Some((
            |p, o, i, out| integer::binary(integer::Binary::Maximum, p, o, i, out),
            0,
        )),
        MINIMUM => Some((
            |p, o, i, out| integer::binary(integer::Binary::Minimum, p, o, i, out),
            0,
        )),
        CAST => Some((integer::cast, 0)),
        MEAN => Some((reduce::mean, REDUCER_OPTIONS)),
        RELU => Some((
            |p, o, i, out| activation::relu(activation::Relu::Relu, p, o, i, out),
            0,
        )),
        RELU6 => Some((
            |p, o, i, out| activation::relu(activation::Relu::Relu6, p, o, i, out),
            0,
        )),
        TRANSPOSE_CONV => Some((conv::transpose_conv, TRANSPOSE_CONV_OPTIONS)),
        STRIDED_SLICE => Some((shape::strided_slice, STRIDED_SLICE_OPTIONS)),
        MAX_POOL_2D => Some((pool::max_pool, POOL_2D_OPTIONS)),
        PAD | PADV2 => Some((shape::pad, 0)),
        CONCATENATION => Some((shape::concatenation, CONCATENATION_OPTIONS)),
        DEQUANTIZE => Some((quantize::dequantize, 0)),
        AVERAGE_POOL_2D => Some((pool::average_pool, POOL_2D_OPTIONS)),
        CONV_2D => Some((conv::conv_2d, CONV_2D_OPTIONS)),
        DEPTHWISE_CONV_2D => Some((conv::depthwise_conv, DEPTHWISE_CONV_2D_OPTIONS)),
        FULLY_CONNECTED => Some((fully_connected::fully_connected, FULLY_CONNECTED_OPTIONS)),
        RESHAPE => Some((reshape, 0)),
        SOFTMAX => Some((softmax::softmax, SOFTMAX_OPTIONS)),
        SVDF => Some((svdf::svdf, SVDF_OPTIONS)),
        QUANTIZE => Some((quantize::quantize, 0)),
        UNIDIRECTIONAL_SEQUENCE_LSTM => Some((lstm::lstm, UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS)),
        _ => None,
    };
    let lowered = match lowering {
        Some((lower, kind)) => {
            let table = options.filter(|(t, _)| *t == kind).map(|(_, t)| t);
            lower(program, table, &inputs, &outputs)?
        }
        None => None,
    };
    let Some(lowered) = lowered else {
        return Ok(Instruction::Kernel(KernelCall::new(
            format!("builtin:{builtin}"),
            inputs,
            outputs,
        )));
    };
    Ok(finish(program, lowered, None, inputs, outputs))
}

/// The call of custom operator `name`, with its options (a FlexBuffers map): a signal-library
/// kernel's, or `custom:NAME`, which no kernel of the runtime implements.
pub(crate) fn custom_call(
    program: &mut Program,
    name: &str,
    options: Option<&[u8]>,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
) -> Result<Instruction, ImportError> {
    match signal::lower(program, name, options, &inputs, &outputs)? {
        Some(s) => Ok(finish(program, s.lowered, s.state, inputs, outputs)),
        None => Ok(Instruction::Kernel(KernelCall::new(
            format!("custom:{name}"),
            inputs,
            outputs,
        ))),
    }
}

/// The kernel call a lowering makes: the model's inputs, then the state it keeps (a value of
/// the program's state, named after the output), its constants and its parameters.
fn finish(
    program: &mut Program,
    lowered: Lowered,
    state: Option<Value>,
    inputs: Vec<usize>,
    outputs: Vec<usize>,
) -> Instruction {
    let mut inputs = inputs;
    let output = program.values[outputs[0]].name.clone();
    if let Some(value) = state {
        let id = program.add_value(value);
        program.state.push(id);
        inputs.push(id);
    }
    for (what, words) in &lowered.constants {
        let name = format!("{output}:{}_{what}", lowered.op);
        inputs.push(program.add_value(constant_i32s(name, words)));
    }
    match lowered.params {
        Some(params) => {
            let name = format!("{output}:{}_params", lowered.op);
            inputs.push(program.add_value(constant_i32s(name, &params)));
        }
        None => inputs.truncate(1),
    }
    let mut call = KernelCall::new(format!("tflite:{}", lowered.op), inputs, outputs);
    call.scratch_need = lowered.scratch;
    Instruction::Kernel(call)
}

/// An int32 constant holding `words`.
fn constant_i32s(name: String, words: &[i32]) -> Value {
    let mut v = Value::planned(name, DType::Int32, vec![words.len() as u64]);
    v.kind = ValueKind::Constant;
    v.data = Some(ConstantData::new(
        words.iter().flat_map(|w| w.to_le_bytes()).collect(),
    ));
    v
}

/// A tensor's scale and zero point, when it is quantized as a whole with a zero point an int8
/// kernel can take (TFLM requires one in int8's range; a file may say anything).
fn per_tensor(program: &Program, t: usize) -> Option<(f32, i32)> {
    let (scale, zero) = program.values[t].quant.as_ref()?.per_tensor()?;
    let zero = i8::try_from(zero).ok()?;
    Some((scale, i32::from(zero)))
}

/// A tensor's scale and zero point, when it is quantized as a whole (any zero point: an int16
/// or int32 tensor's may lie outside int8).
fn scale_and_zero(program: &Program, t: usize) -> Option<(f32, i64)> {
    program.values[t].quant.as_ref()?.per_tensor()
}

/// The largest extent of one dimension the kernels take: CMSIS-NN keeps some in 16 bits, and
/// the runtime's kernels refuse larger ones, so every product of a few stays far from overflow.
const MAX_DIM: u64 = 65535;

/// Whether every extent of `shape` is one the kernels take (positive, at most [`MAX_DIM`]).
fn dims_ok(shape: &[u64]) -> bool {
    shape.iter().all(|&d| (1..=MAX_DIM).contains(&d))
}

/// A tensor's four dimensions (NHWC), each positive and at most [`MAX_DIM`], as CMSIS-NN's
/// `cmsis_nn_dims` takes them.
fn dims4(program: &Program, t: usize) -> Option<[i64; 4]> {
    let s = &program.values[t].shape;
    (s.len() == 4 && dims_ok(s)).then(|| [s[0] as i64, s[1] as i64, s[2] as i64, s[3] as i64])
}

/// Whether constant `t` carries all its bytes (a sparse tensor's buffer holds fewer).
fn dense_constant(program: &Program, t: usize) -> bool {
    let v = &program.values[t];
    v.kind == ValueKind::Constant
        && v.data
            .as_ref()
            .is_some_and(|d| d.bytes().len() as u64 == v.bytes)
}

/// The integer type of a quantized activation tensor: int8, or int16 as TFLM's 16x8 kernels
/// take it (zero point 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Activations {
    S8,
    S16,
}

impl Activations {
    /// The type's range, which a fused activation clamps within.
    fn range(self) -> (i32, i32) {
        match self {
            Activations::S8 => (i32::from(i8::MIN), i32::from(i8::MAX)),
            Activations::S16 => (i32::from(i16::MIN), i32::from(i16::MAX)),
        }
    }
}

/// Tensor `t`'s activation type, scale and zero point, when it is int8 quantized as a whole
/// with a zero point int8 holds, or int16 with zero point 0.
fn activations(program: &Program, t: usize) -> Option<(Activations, f32, i32)> {
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
fn is_int8(program: &Program, t: usize) -> bool {
    program.values[t].dtype == DType::Int8
}

/// RESHAPE: the same bytes under another shape (TFLM copies them when the buffers differ).
fn reshape(
    program: &Program,
    _options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, ..], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    Ok(
        (program.values[input].bytes == program.values[output].bytes).then_some(Lowered {
            op: "RESHAPE",
            constants: Vec::new(),
            params: None,
            scratch: None,
        }),
    )
}

/// `arm_vector_sum_s8` over the constant weights (`depth` rows) and bias: per row, the bias
/// plus `lhs_offset × (Σ weights + columns × rhs_offset)`, in int32 wrapping arithmetic as C's.
fn row_sums(
    program: &Program,
    filter: usize,
    bias: Option<usize>,
    depth: usize,
    lhs_offset: i32,
    rhs_offset: i32,
) -> Option<Vec<i32>> {
    let weights = program.values[filter].data.as_ref()?.bytes();
    if weights.is_empty() || weights.len() % depth != 0 {
        return None;
    }
    let cols = weights.len() / depth;
    let bias: Vec<i32> = match bias {
        Some(b) => {
            let bytes = program.values[b].data.as_ref()?.bytes();
            if bytes.len() != depth * 4 {
                return None;
            }
            bytes
                .chunks_exact(4)
                .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect()
        }
        None => vec![0; depth],
    };
    let cols_i32 = i32::try_from(cols).ok()?;
    Some(
        weights
            .chunks_exact(cols)
            .zip(bias)
            .map(|(row, b)| {
                let sum = row
                    .iter()
                    .fold(0i32, |acc, &w| acc.wrapping_add(i32::from(w as i8)));
                let sum = sum.wrapping_add(cols_i32.wrapping_mul(rhs_offset));
                b.wrapping_add(sum.wrapping_mul(lhs_offset))
            })
            .collect(),
    )
}
