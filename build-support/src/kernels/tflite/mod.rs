//! TFLite's builtin operators as the runtime's CPU kernels run them (`arenaplan/tflite.h`):
//! the kernel's operator name (`tflite:FULLY_CONNECTED`), the parameters TFLite Micro
//! computes when it prepares the operator — quantized multipliers and shifts, offsets,
//! activation ranges — computed here, at build time, the same way, as a constant the call
//! reads last among its inputs (in flash, in firmware), and the scratch its CMSIS-NN kernel
//! asks for on each instruction set ([`cmsis_nn`]), which the pipeline plans for the target's
//! core.
//!
//! The room's layout:
//! - one file per operator (`add.rs`, `conv_2d.rs`, …, and `signal/` for TFLM's signal
//!   library's custom operators): its lowering, and next to it the scratch its CMSIS-NN
//!   kernel asks for;
//! - `registry.rs`, the list of every kernel of the runtime's, and `layouts.rs`, every
//!   parameter layout, which the lowerings fill by field name; `c_files.rs` renders the C
//!   the runtime compiles from both (`arenaplan/tflite_params.h`, `arenaplan/tflite_kernels.h`,
//!   `kernels/tflite/registry.c`), and `layout.rs` is how a layout is defined;
//! - the rules several operators share, each in a file named for it: `quant.rs` (TFLite's
//!   quantization arithmetic), `tensors.rs` (what a lowering reads of a tensor), `padding.rs`,
//!   `row_sums.rs`, `convolution.rs`, `pool.rs`, `elementwise.rs`;
//! - this file: which operator lowers how, and the call a lowering makes.
//!
//! An operator arenaplan has no kernel for, or a variant its kernel does not run (another
//! type, per-channel weights), stays the call it was, `builtin:N`, which no kernel implements.

mod add;
mod average_pool_2d;
pub mod c_files;
mod cast;
pub mod cmsis_nn;
pub use params_check::{check_kernel_params, KernelParamsError};
mod concatenation;
mod conv_2d;
mod convolution;
mod depthwise_conv_2d;
mod dequantize;
mod elementwise;
mod fully_connected;
mod fully_connected_per_channel;
mod int_binary;
mod layout;
mod layouts;
mod lstm;
mod max_pool_2d;
mod mean;
mod mul;
mod pad;
mod padding;
mod params_check;
mod pool;
mod quant;
mod quantize;
mod registry;
mod relu;
mod reshape;
mod row_sums;
mod signal;
mod softmax;
mod strided_slice;
mod svdf;
mod tensors;
mod transpose_conv;

use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{
    ConstantData, DType, Instruction, KernelCall, Program, ScratchByIsa, Value, ValueKind,
};
use registry::Kernel;

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
    /// The kernel that runs the call.
    kernel: Kernel,
    /// Constants computed from the model's (each named by what follows the output's name), read
    /// before the parameters.
    constants: Vec<(&'static str, Vec<i32>)>,
    /// The words of the parameters constant it reads last (a layout of `layouts.rs`, then any
    /// variable part its comment names); `None`: it reads only the data input (RESHAPE, whose
    /// shape is the output's).
    params: Option<Vec<i32>>,
    /// The scratch its CMSIS-NN kernel asks for, if any.
    scratch: Option<ScratchByIsa>,
}

/// A lowering: the call's options table (of the operator's options type), inputs and outputs.
type Lowering =
    fn(&Program, Option<Table<'_>>, &[usize], &[usize]) -> Result<Option<Lowered>, ImportError>;

/// The call of builtin operator `builtin`, with its options (union type and table): `inputs`
/// are the operands present, `absent` the positions the model marks omitted (-1).
pub(crate) fn kernel_call(
    program: &mut Program,
    builtin: i32,
    options: Option<(u8, Table<'_>)>,
    inputs: Vec<usize>,
    absent: &[usize],
    outputs: Vec<usize>,
) -> Result<Instruction, ImportError> {
    let lowering: Option<(Lowering, u8)> = match builtin {
        ADD => Some((add::lower, ADD_OPTIONS)),
        MUL => Some((mul::lower, MUL_OPTIONS)),
        DIV => Some((
            |p, o, i, out| int_binary::lower(int_binary::Binary::Div, p, o, i, out),
            DIV_OPTIONS,
        )),
        MAXIMUM => Some((
            |p, o, i, out| int_binary::lower(int_binary::Binary::Maximum, p, o, i, out),
            0,
        )),
        MINIMUM => Some((
            |p, o, i, out| int_binary::lower(int_binary::Binary::Minimum, p, o, i, out),
            0,
        )),
        CAST => Some((cast::lower, 0)),
        MEAN => Some((mean::lower, REDUCER_OPTIONS)),
        RELU => Some((
            |p, o, i, out| relu::lower(relu::Relu::Relu, p, o, i, out),
            0,
        )),
        RELU6 => Some((
            |p, o, i, out| relu::lower(relu::Relu::Relu6, p, o, i, out),
            0,
        )),
        TRANSPOSE_CONV => Some((transpose_conv::lower, TRANSPOSE_CONV_OPTIONS)),
        STRIDED_SLICE => Some((strided_slice::lower, STRIDED_SLICE_OPTIONS)),
        MAX_POOL_2D => Some((max_pool_2d::lower, POOL_2D_OPTIONS)),
        PAD | PADV2 => Some((pad::lower, 0)),
        CONCATENATION => Some((concatenation::lower, CONCATENATION_OPTIONS)),
        DEQUANTIZE => Some((dequantize::lower, 0)),
        AVERAGE_POOL_2D => Some((average_pool_2d::lower, POOL_2D_OPTIONS)),
        CONV_2D => Some((conv_2d::lower, CONV_2D_OPTIONS)),
        DEPTHWISE_CONV_2D => Some((depthwise_conv_2d::lower, DEPTHWISE_CONV_2D_OPTIONS)),
        FULLY_CONNECTED => Some((fully_connected::lower, FULLY_CONNECTED_OPTIONS)),
        RESHAPE => Some((reshape::lower, 0)),
        SOFTMAX => Some((softmax::lower, SOFTMAX_OPTIONS)),
        SVDF => Some((svdf::lower, SVDF_OPTIONS)),
        QUANTIZE => Some((quantize::lower, 0)),
        UNIDIRECTIONAL_SEQUENCE_LSTM => Some((lstm::lower, UNIDIRECTIONAL_SEQUENCE_LSTM_OPTIONS)),
        _ => None,
    };
    // A lowering reads the operands present by position: only where the omitted ones are
    // those it expects does each land where it looks (else the call stays one no kernel runs).
    let operands = inputs.len() + absent.len();
    let lowering = lowering.filter(|_| omitted_as_expected(builtin, absent, operands));
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

/// Whether operator `builtin`'s omitted operands (positions, of `operands` listed) are the ones
/// its lowering reads around: an optional bias (FULLY_CONNECTED, TRANSPOSE_CONV), and the LSTM
/// variant the lowering runs (no peepholes or projection, inputs 9–11 and 16–17, nor layer
/// normalisation, 20–23, when listed). No other lowering takes an omitted operand (SVDF's
/// reads its bias).
fn omitted_as_expected(builtin: i32, absent: &[usize], operands: usize) -> bool {
    match builtin {
        FULLY_CONNECTED => absent.iter().all(|&k| k == 2),
        TRANSPOSE_CONV => absent.iter().all(|&k| k == 3),
        UNIDIRECTIONAL_SEQUENCE_LSTM => {
            let expected = [9, 10, 11, 16, 17, 20, 21, 22, 23];
            absent
                .iter()
                .copied()
                .eq(expected.into_iter().filter(|&k| k < operands))
        }
        _ => absent.is_empty(),
    }
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
        let name = format!("{output}:{}_{what}", lowered.kernel.op());
        inputs.push(program.add_value(constant_i32s(name, words)));
    }
    match lowered.params {
        Some(params) => {
            let name = format!("{output}:{}_params", lowered.kernel.op());
            inputs.push(program.add_value(constant_i32s(name, &params)));
        }
        None => inputs.truncate(1),
    }
    let mut call = KernelCall::new(lowered.kernel.name(), inputs, outputs);
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
