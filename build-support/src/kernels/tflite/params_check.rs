//! A TFLite kernel call whose parameters a model wrote itself (a TOML model's
//! `op = "tflite:CONV_2D"` with its own parameter constant): the parameters read as the kernel
//! reads them (the layouts of `layouts.rs`) and checked against the call's tensors as the C
//! kernel checks them, so that the build refuses an inconsistent call naming the operator and
//! the dimension, where the board would fail the call (`AP_ERR_ARGUMENT_MISMATCH`) — or, for a
//! kernel without the check, write past the output. The build's own lowerings pass by
//! construction; the C checks stay, for tables no build made.
//!
//! Checked: the windows of the convolutions and poolings (each axis's output as TFLite derives
//! it from input, filter, stride, dilation and padding: `padding.rs`, the rule the C kernels'
//! `window_fits` mirrors), STRIDED_SLICE's indices, FULLY_CONNECTED's row sums, CONCATENATION's
//! parts, and every kernel's tensors' bytes against the dimensions its parameters give. A test
//! (`tflite_kernel_arguments.rs`) holds this check and the C kernel's to the same answer on
//! every operand one byte short or long. A call whose
//! parameters are not a constant with data is left to the kernel.

use thiserror::Error;

use super::layout::{read_params, Field};
use super::layouts::{
    CastParams, ConcatParams, ConvParams, CountParams, DequantizeParams, EnergyParams, FcParams,
    FilterBankLogParams, FilterBankParams, IntBinaryParams, LstmParams, MeanParams, PadParams,
    PcanParams, PoolParams, QuantizeParams, ReluParams, RfftParams, SoftmaxParams,
    SpectralSubtractionParams, StridedSliceParams, SvdfParams, WindowParams,
};
use super::padding::padded;
use super::registry::Kernel;
use crate::model::{Instruction, KernelCall, Program, ValueKind};

/// A kernel call whose parameters do not fit its tensors.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("instruction {instruction}: `{op}`: {problem}; correct the call's parameter constant or its tensors' shapes")]
pub struct KernelParamsError {
    /// Flat index of the call.
    pub instruction: usize,
    /// The kernel, e.g. `tflite:CONV_2D`.
    pub op: String,
    /// What does not fit, naming the dimension or operand.
    pub problem: String,
}

/// Checks every TFLite kernel call of `program` whose parameter constant has data.
pub fn check_kernel_params(program: &Program) -> Result<(), KernelParamsError> {
    for (instruction, ins) in program.flat_instructions() {
        let Instruction::Kernel(call) = ins else {
            continue;
        };
        let Some(kernel) = Kernel::ALL.iter().find(|k| k.name() == call.op) else {
            continue;
        };
        // RESHAPE reads no parameters: its output is its input's bytes.
        if *kernel == Kernel::RESHAPE {
            let bytes = |ids: &[usize]| ids.first().map(|&v| program.values[v].bytes);
            if bytes(&call.inputs) != bytes(&call.outputs) {
                return Err(KernelParamsError {
                    instruction,
                    op: call.op.clone(),
                    problem: format!(
                        "the output is {} bytes, the input {}: a reshape keeps every byte",
                        bytes(&call.outputs).unwrap_or(0),
                        bytes(&call.inputs).unwrap_or(0)
                    ),
                });
            }
            continue;
        }
        let Some(words) = params_words(program, call) else {
            continue;
        };
        check(program, *kernel, call, &words).map_err(|problem| KernelParamsError {
            instruction,
            op: call.op.clone(),
            problem,
        })?;
    }
    Ok(())
}

/// The call's last input as int32 words, when it is a constant with data.
fn params_words(program: &Program, call: &KernelCall) -> Option<Vec<i32>> {
    let v = &program.values[*call.inputs.last()?];
    if !matches!(v.kind, ValueKind::Constant) {
        return None;
    }
    let bytes = v.data.as_ref()?.bytes();
    Some(
        bytes
            .chunks_exact(4)
            .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect(),
    )
}

/// The bytes of the call's input `i` (`None` past the last).
fn input_bytes(program: &Program, call: &KernelCall, i: usize) -> Option<u64> {
    call.inputs.get(i).map(|&v| program.values[v].bytes)
}

fn output_bytes(program: &Program, call: &KernelCall) -> Option<u64> {
    call.outputs.first().map(|&v| program.values[v].bytes)
}

/// The product of `dims` times `width` bytes, `None` for a negative factor or past u64.
fn bytes_of(dims: &[i32], width: u64) -> Option<u64> {
    dims.iter()
        .try_fold(width, |n, &d| n.checked_mul(u64::try_from(d).ok()?))
}

/// That operand `what` holds the bytes the parameters give it.
fn holds(what: &str, actual: Option<u64>, dims: &[i32], width: u64) -> Result<(), String> {
    let expected = bytes_of(dims, width);
    if actual.is_some() && actual == expected {
        return Ok(());
    }
    Err(format!(
        "the {what} is {} bytes, but the parameters give it {} ({})",
        actual.map_or("missing: no".to_owned(), |b| b.to_string()),
        expected.map_or("no size".to_owned(), |b| b.to_string()),
        dims.iter()
            .map(i32::to_string)
            .chain((width > 1).then(|| format!("{width} bytes")))
            .collect::<Vec<_>>()
            .join(" x ")
    ))
}

/// That `layout` was read from the words: a shorter constant names its size.
fn read<T: Field>(words: &[i32], name: &str) -> Result<(T, Vec<i32>), String> {
    read_params::<T>(words)
        .map(|(p, rest)| (p, rest.to_vec()))
        .ok_or_else(|| {
            format!(
                "its parameters are {} words, fewer than {name}'s",
                words.len()
            )
        })
}

/// One axis of a window: the output TFLite derives, SAME or VALID, or an error naming the
/// axis and what it should be.
fn window(
    axis: &str,
    input: i32,
    filter: i32,
    stride: i32,
    dilation: i32,
    pad: i32,
    output: i32,
) -> Result<(), String> {
    let all = [input, filter, stride, dilation, output];
    if all.iter().any(|&x| x <= 0 || x > 65535) || !(0..=65535).contains(&pad) {
        return Err(format!(
            "{axis}: input {input}, filter {filter}, stride {stride}, dilation {dilation} and output {output} must be 1 to 65535, padding {pad} 0 to 65535"
        ));
    }
    let (i, f, s, d) = (
        i64::from(input),
        i64::from(filter),
        i64::from(stride),
        i64::from(dilation),
    );
    let same = padded(0, i, f, s, d);
    let valid = padded(1, i, f, s, d).filter(|&(out, _)| out > 0);
    let this = Some((i64::from(output), i64::from(pad)));
    if this == same || this == valid {
        return Ok(());
    }
    let shown = |p: Option<(i64, i64)>, name: &str| {
        p.map_or(format!("no {name} output"), |(o, p)| {
            format!("{o} with padding {p} ({name})")
        })
    };
    Err(format!(
        "{axis}: an output of {output} with padding {pad} does not follow from an input of {input}, a filter of {filter}, stride {stride} and dilation {dilation}: TFLite derives {} or {}",
        shown(same, "SAME"),
        shown(valid, "VALID")
    ))
}

fn check(
    program: &Program,
    kernel: Kernel,
    call: &KernelCall,
    words: &[i32],
) -> Result<(), String> {
    use Kernel as K;
    let input = |i| input_bytes(program, call, i);
    let output = output_bytes(program, call);
    match kernel {
        K::CONV_2D | K::CONV_2D_S16 | K::DEPTHWISE_CONV_2D | K::DEPTHWISE_CONV_2D_S16 => {
            let (p, _) = read::<ConvParams>(words, "ap_tflite_conv_params_t")?;
            let width = if matches!(kernel, K::CONV_2D_S16 | K::DEPTHWISE_CONV_2D_S16) {
                2
            } else {
                1
            };
            let depthwise = matches!(kernel, K::DEPTHWISE_CONV_2D | K::DEPTHWISE_CONV_2D_S16);
            window(
                "height",
                p.input_h,
                p.filter_h,
                p.stride_h,
                p.dilation_h,
                p.pad_h,
                p.output_h,
            )?;
            window(
                "width",
                p.input_w,
                p.filter_w,
                p.stride_w,
                p.dilation_w,
                p.pad_w,
                p.output_w,
            )?;
            let filter_c = if depthwise { 1 } else { p.input_c };
            holds(
                "input",
                input(0),
                &[p.batches, p.input_h, p.input_w, p.input_c],
                width,
            )?;
            holds(
                "filter",
                input(1),
                &[p.output_c, p.filter_h, p.filter_w, filter_c],
                1,
            )?;
            holds("bias", input(2), &[p.output_c], 4 * width)?;
            holds(
                "output",
                output,
                &[p.batches, p.output_h, p.output_w, p.output_c],
                width,
            )
        }
        K::AVERAGE_POOL_2D | K::MAX_POOL_2D | K::AVERAGE_POOL_2D_S16 | K::MAX_POOL_2D_S16 => {
            let (p, _) = read::<PoolParams>(words, "ap_tflite_pool_params_t")?;
            let width = if matches!(kernel, K::AVERAGE_POOL_2D_S16 | K::MAX_POOL_2D_S16) {
                2
            } else {
                1
            };
            window(
                "height", p.input_h, p.filter_h, p.stride_h, 1, p.pad_h, p.output_h,
            )?;
            window(
                "width", p.input_w, p.filter_w, p.stride_w, 1, p.pad_w, p.output_w,
            )?;
            holds(
                "input",
                input(0),
                &[p.batches, p.input_h, p.input_w, p.channels],
                width,
            )?;
            holds(
                "output",
                output,
                &[p.batches, p.output_h, p.output_w, p.channels],
                width,
            )
        }
        K::TRANSPOSE_CONV => {
            // (output shape, filter, input, [bias,] params): TFLite takes the output's shape as
            // given; each operand holds what the parameters say.
            let (p, _) = read::<ConvParams>(words, "ap_tflite_conv_params_t")?;
            holds(
                "filter",
                input(1),
                &[p.output_c, p.filter_h, p.filter_w, p.input_c],
                1,
            )?;
            holds(
                "input",
                input(2),
                &[p.batches, p.input_h, p.input_w, p.input_c],
                1,
            )?;
            holds(
                "output",
                output,
                &[p.batches, p.output_h, p.output_w, p.output_c],
                1,
            )
        }
        K::PAD => {
            let (p, _) = read::<PadParams>(words, "ap_tflite_pad_params_t")?;
            let width = u64::try_from(p.width).unwrap_or(0);
            let inner: Vec<i32> = p.dims.iter().map(|d| d[0]).collect();
            let padded: Vec<i32> = p
                .dims
                .iter()
                .map(|d| d[0].saturating_add(d[1]).saturating_add(d[2]))
                .collect();
            holds("input", input(0), &inner, width)?;
            holds("output", output, &padded, width)
        }
        K::STRIDED_SLICE => {
            let (p, _) = read::<StridedSliceParams>(words, "ap_tflite_strided_slice_params_t")?;
            for d in 0..5 {
                let (first, count, step, extent) = (p.first[d], p.count[d], p.step[d], p.extent[d]);
                let last = i64::from(first) + i64::from(count.max(1) - 1) * i64::from(step);
                let inside = |i: i64| (0..i64::from(extent)).contains(&i);
                if step == 0 || count < 0 || (count > 0 && !(inside(first.into()) && inside(last)))
                {
                    return Err(format!(
                        "dimension {d}: {count} indices from {first} in steps of {step} leave its extent of {extent} (the last is {last})"
                    ));
                }
            }
            let width = u64::try_from(p.width).unwrap_or(0);
            holds("input", input(0), &p.extent, width)?;
            holds("output", output, &p.count, width)
        }
        K::FULLY_CONNECTED
        | K::FULLY_CONNECTED_PER_CHANNEL
        | K::FULLY_CONNECTED_PER_CHANNEL_S16 => {
            let (p, per_channel) = read::<FcParams>(words, "ap_tflite_fc_params_t")?;
            let act = if kernel == K::FULLY_CONNECTED_PER_CHANNEL_S16 {
                2
            } else {
                1
            };
            let depth = u64::try_from(p.output_depth).unwrap_or(0).max(1);
            // The filter's rows are the output's depth; its columns, and the output's batches,
            // give the input.
            let accum = input(1).unwrap_or(0) / depth;
            let batches = output.unwrap_or(0) / (depth * act);
            let dim = |n: u64| i32::try_from(n).unwrap_or(-1);
            holds("filter", input(1), &[p.output_depth, dim(accum)], 1)?;
            holds("output", output, &[dim(batches), p.output_depth], act)?;
            holds("input", input(0), &[dim(batches), dim(accum)], act)?;
            if kernel == K::FULLY_CONNECTED {
                // The row sums are the input before the parameters.
                let sums = call.inputs.len().checked_sub(2).and_then(input);
                return holds("row sums", sums, &[p.output_depth], 4);
            }
            if per_channel.len() != 2 * depth as usize {
                return Err(format!(
                    "its parameters end in {} words, not a multiplier and a shift for each of its {} output channels",
                    per_channel.len(),
                    p.output_depth
                ));
            }
            Ok(())
        }
        K::CONCATENATION => {
            let (p, inner) = read::<ConcatParams>(words, "ap_tflite_concat_params_t")?;
            let parts = call.inputs.len().saturating_sub(1);
            if usize::try_from(p.inputs).ok() != Some(parts) || inner.len() != parts {
                return Err(format!(
                    "its parameters describe {} inputs ({} sizes), the call has {parts}",
                    p.inputs,
                    inner.len()
                ));
            }
            for (i, &n) in inner.iter().enumerate() {
                holds(&format!("input {i}"), input(i), &[p.outer, n], 1)?;
            }
            let row = inner.iter().map(|&n| i64::from(n)).sum::<i64>();
            holds(
                "output",
                output,
                &[p.outer, i32::try_from(row).unwrap_or(-1)],
                1,
            )
        }
        K::QUANTIZE => {
            let (p, _) = read::<QuantizeParams>(words, "ap_tflite_quantize_params_t")?;
            let elements = input(0).zip(u64::try_from(p.input_width).ok().filter(|&w| w > 0));
            let n = elements.map(|(b, w)| b / w).unwrap_or(0);
            holds(
                "input",
                input(0),
                &[n as i32],
                u64::try_from(p.input_width).unwrap_or(0),
            )?;
            holds(
                "output",
                output,
                &[n as i32],
                u64::try_from(p.output_width).unwrap_or(0),
            )
        }
        K::DEQUANTIZE => {
            let (p, _) = read::<DequantizeParams>(words, "ap_tflite_dequantize_params_t")?;
            let width = u64::try_from(p.input_width).ok().filter(|&w| w > 0);
            let n = input(0).zip(width).map_or(0, |(b, w)| b / w);
            holds("input", input(0), &[n as i32], width.unwrap_or(0))?;
            holds("output", output, &[n as i32], 4)
        }
        K::CAST => {
            let (p, _) = read::<CastParams>(words, "ap_tflite_cast_params_t")?;
            // The kernel's type codes: 1 int8, 2 int16, 3 int32, 4 uint32, 5 bool, 6 float32.
            let width = |t: i32| {
                [0u64, 1, 2, 4, 4, 1, 4]
                    .get(usize::try_from(t).ok()?)
                    .copied()
            };
            holds("input", input(0), &[p.count], width(p.from).unwrap_or(0))?;
            holds("output", output, &[p.count], width(p.to).unwrap_or(0))
        }
        K::RELU => {
            let (p, _) = read::<ReluParams>(words, "ap_tflite_relu_params_t")?;
            let width = u64::try_from(p.width).unwrap_or(0);
            holds("input", input(0), &[p.count], width)?;
            holds("output", output, &[p.count], width)
        }
        K::MEAN => {
            let (p, _) = read::<MeanParams>(words, "ap_tflite_mean_params_t")?;
            let width = u64::try_from(p.width).unwrap_or(0);
            let kept: Vec<i32> = (0..5)
                .map(|d| if p.reduced[d] != 0 { 1 } else { p.extent[d] })
                .collect();
            holds("input", input(0), &p.extent, width)?;
            holds("output", output, &kept, width)
        }
        K::SOFTMAX => {
            let (p, _) = read::<SoftmaxParams>(words, "ap_tflite_softmax_params_t")?;
            let bytes = input(0).unwrap_or(0);
            let row = u64::try_from(p.row_size).unwrap_or(0);
            if row == 0 || bytes == 0 || bytes % row != 0 {
                return Err(format!(
                    "the input is {bytes} bytes, not whole rows of {}",
                    p.row_size
                ));
            }
            if output != Some(bytes) && output != bytes.checked_mul(2) {
                return Err(format!(
                    "the output is {} bytes, neither the input's {bytes} (int8) nor twice them (int16)",
                    output.unwrap_or(0)
                ));
            }
            Ok(())
        }
        K::ADD | K::MUL | K::ADD_S16 | K::MUL_S16 => {
            let out = output.unwrap_or(0);
            for (i, what) in [(0, "first input"), (1, "second input")] {
                if input(i) != Some(out) {
                    return Err(format!(
                        "the {what} is {} bytes, the output {out}: they are the same shape",
                        input(i).unwrap_or(0)
                    ));
                }
            }
            Ok(())
        }
        K::INT_BINARY => {
            let (p, _) = read::<IntBinaryParams>(words, "ap_tflite_int_binary_params_t")?;
            let width = u64::try_from(p.width).unwrap_or(0);
            holds("output", output, &p.extent, width)?;
            for (i, what, stride) in [
                (0, "first input", p.a_stride),
                (1, "second input", p.b_stride),
            ] {
                // The last element its strides reach, counted from 1.
                let reach = (0..5).try_fold(1i64, |r, d| {
                    let step = i64::from(p.extent[d] - 1).checked_mul(i64::from(stride[d]))?;
                    (step >= 0).then(|| r + step)
                });
                let need = reach
                    .and_then(|r| u64::try_from(r).ok())
                    .and_then(|r| r.checked_mul(width));
                if need.is_none() || input(i) < need {
                    return Err(format!(
                        "the {what} is {} bytes, but its strides reach {}",
                        input(i).unwrap_or(0),
                        need.map_or("past any size".to_owned(), |b| format!("{b} bytes"))
                    ));
                }
            }
            Ok(())
        }
        K::SVDF => {
            let (p, _) = read::<SvdfParams>(words, "ap_tflite_svdf_params_t")?;
            // Feature sums (an input before the parameters) go with an int8 state.
            let width = if call.inputs.len() == 7 { 1 } else { 2 };
            let units = if p.rank > 0 { p.filters / p.rank } else { 0 };
            holds("input", input(0), &[p.batches, p.input_size], 1)?;
            holds("feature weights", input(1), &[p.filters, p.input_size], 1)?;
            holds("time weights", input(2), &[p.filters, p.memory_size], width)?;
            holds("bias", input(3), &[units], 4)?;
            holds(
                "state",
                input(4),
                &[p.batches, p.memory_size, p.filters],
                width,
            )?;
            if width == 1 {
                holds("feature sums", input(5), &[p.filters], 4)?;
            }
            holds("output", output, &[p.batches, units], 1)
        }
        K::SignalWindow => {
            let (p, _) = read::<WindowParams>(words, "ap_tflite_window_params_t")?;
            holds("input", input(0), &[p.count], 2)?;
            holds("weights", input(1), &[p.frame], 2)?;
            holds("output", output, &[p.count], 2)
        }
        K::SignalEnergy => {
            let (p, _) = read::<EnergyParams>(words, "ap_tflite_energy_params_t")?;
            holds("output", output, &[p.count], 4)?;
            let need = bytes_of(&[p.end], 4);
            if need.is_none() || input(0) < need {
                return Err(format!(
                    "the input is {} bytes, but its bins reach {}",
                    input(0).unwrap_or(0),
                    need.unwrap_or(0)
                ));
            }
            Ok(())
        }
        K::SignalFilterBankSquareRoot => {
            let (p, _) = read::<CountParams>(words, "ap_tflite_count_params_t")?;
            holds("input", input(0), &[p.count], 8)?;
            holds("shift", input(1), &[1], 4)?;
            holds("output", output, &[p.count], 4)
        }
        K::SignalFftAutoScale => {
            let (p, _) = read::<CountParams>(words, "ap_tflite_count_params_t")?;
            holds("input", input(0), &[p.count], 2)?;
            holds("output", output, &[p.count], 2)?;
            let bits = call.outputs.get(1).map(|&v| program.values[v].bytes);
            holds("scale output", bits, &[1], 4)
        }
        K::SignalFilterBankLog => {
            let (p, _) = read::<FilterBankLogParams>(words, "ap_tflite_filter_bank_log_params_t")?;
            holds("input", input(0), &[p.count], 4)?;
            holds("output", output, &[p.count], 2)
        }
        K::SignalPCAN => {
            let (p, _) = read::<PcanParams>(words, "ap_tflite_pcan_params_t")?;
            holds("input", input(0), &[p.count], 4)?;
            holds("noise estimate", input(1), &[p.count], 4)?;
            holds("gain table", input(2), &[p.lut_count], 2)?;
            holds("output", output, &[p.count], 4)
        }
        K::SignalFilterBankSpectralSubtraction => {
            let (p, _) = read::<SpectralSubtractionParams>(
                words,
                "ap_tflite_spectral_subtraction_params_t",
            )?;
            holds("input", input(0), &[p.channels], 4)?;
            holds("state", input(1), &[p.channels], 4)?;
            holds("output", output, &[p.channels], 4)?;
            let noise = call.outputs.get(1).map(|&v| program.values[v].bytes);
            holds("noise estimate", noise, &[p.channels], 4)
        }
        K::UNIDIRECTIONAL_SEQUENCE_LSTM => {
            let (p, _) = read::<LstmParams>(words, "ap_tflite_lstm_params_t")?;
            let (b, h) = (p.batches, p.hidden_size);
            holds("input", input(0), &[b, p.time_steps, p.input_size], 1)?;
            for g in 0..4 {
                holds(
                    &format!("input weights {g}"),
                    input(1 + g),
                    &[h, p.input_size],
                    1,
                )?;
                holds(&format!("recurrent weights {g}"), input(5 + g), &[h, h], 1)?;
                holds(&format!("bias {g}"), input(9 + g), &[h], 4)?;
            }
            holds("hidden state", input(13), &[b, h], 1)?;
            holds("cell state", input(14), &[b, h], 2)?;
            holds("row sums", input(15), &[8, h], 4)?;
            holds("output", output, &[b, p.time_steps, h], 1)
        }
        K::SignalRfft => {
            let (p, _) = read::<RfftParams>(words, "ap_tflite_rfft_params_t")?;
            holds("twiddles", input(1), &[p.half], 4)?;
            holds("super twiddles", input(2), &[p.half / 2], 4)?;
            holds("input", input(0), &[p.input_length, p.frames], 2)?;
            holds("output", output, &[p.half.saturating_add(1), p.frames], 4)
        }
        K::SignalFilterBank => {
            let (p, _) = read::<FilterBankParams>(words, "ap_tflite_filter_bank_params_t")?;
            holds("spectrum", input(0), &[p.input_count], 4)?;
            holds("weights", input(1), &[p.weight_count], 2)?;
            holds("unweights", input(2), &[p.weight_count], 2)?;
            holds("output", output, &[p.channels], 8)?;
            let bands = bytes_of(&[p.channels.saturating_add(1)], 2);
            for (i, what) in [(3, "frequency starts"), (4, "weight starts"), (5, "widths")] {
                if bands.is_none() || input(i) < bands {
                    return Err(format!(
                        "the {what} are {} bytes, fewer than one int16 for each of its {} bands",
                        input(i).unwrap_or(0),
                        i64::from(p.channels) + 1
                    ));
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}
