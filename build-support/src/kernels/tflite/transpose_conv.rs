//! TRANSPOSE_CONV, int8, on the runtime's gathering kernel (no CMSIS-NN kernel, no scratch):
//! `ap_tflite_conv_params_t` then the per-channel multipliers and shifts, as for CONV_2D.

use super::layout::Params;
use super::layouts::ConvParams;
use super::padding::padded;
use super::quant::{activation_range, per_channel};
use super::registry::Kernel;
use super::tensors::{dense_constant, dims4, is_int8, per_tensor, MAX_DIM};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program};

/// TRANSPOSE_CONV (`TransposeConvOptions`: padding, stride w and h, activation), int8 with
/// symmetric weights `[out_c, h, w, in_c]` and an optional int32 bias: inputs (output shape,
/// filter, input, [bias]) as the model lists them, then `ap_tflite_conv_params_t` with the
/// per-channel multipliers and shifts, as for CONV_2D. Its padding is TFLM's: a convolution's
/// from the output's size. The kernel gathers each output from the inputs that reach it, so it
/// needs none of TFLM's int32 accumulator (one per output element).
pub(super) fn lower(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(t) = options else {
        return Ok(None);
    };
    let (padding, stride) = (
        t.i8(0, 0)?,
        (i64::from(t.i32(1, 0)?), i64::from(t.i32(2, 0)?)),
    );
    let activation = t.i8(3, 0)?;
    let (&[shape, filter, input, ref bias @ ..], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let (
        Some([batches, in_h, in_w, in_c]),
        Some([out_c, k_h, k_w, f_c]),
        Some([ob, out_h, out_w, oc]),
    ) = (
        dims4(program, input),
        dims4(program, filter),
        dims4(program, output),
    )
    else {
        return Ok(None);
    };
    let bias_ok = match bias {
        [] => true,
        &[b] => {
            v(b).dtype == DType::Int32
                && dense_constant(program, b)
                && v(b).bytes == 4 * out_c as u64
        }
        _ => false,
    };
    if f_c != in_c
        || oc != out_c
        || ob != batches
        || !bias_ok
        || !(1..=MAX_DIM as i64).contains(&stride.0)
        || !(1..=MAX_DIM as i64).contains(&stride.1)
        || v(shape).dtype != DType::Int32
        || ![input, filter, output].iter().all(|&t| is_int8(program, t))
        || !dense_constant(program, filter)
    {
        return Ok(None);
    }
    let (Some((_, pad_h)), Some((_, pad_w))) = (
        padded(padding, out_h, k_h, stride.1, 1),
        padded(padding, out_w, k_w, stride.0, 1),
    ) else {
        return Ok(None);
    };
    let (Some((in_scale, in_zero)), Some((out_scale, out_zero))) =
        (per_tensor(program, input), per_tensor(program, output))
    else {
        return Ok(None);
    };
    let Some(fq) = v(filter).quant.as_ref() else {
        return Ok(None);
    };
    let scales: Vec<f32> = fq.scale_bits.iter().map(|&b| f32::from_bits(b)).collect();
    if !(scales.len() == 1 || (scales.len() == out_c as usize && fq.axis == 0))
        || fq.zero_point.iter().any(|&z| z != 0)
        || pad_h > MAX_DIM as i64
        || pad_w > MAX_DIM as i64
    {
        return Ok(None);
    }
    let (Some((activation_min, activation_max)), Some(per_channel)) = (
        activation_range(activation, out_scale, out_zero),
        per_channel(&scales, in_scale, out_scale, out_c as usize),
    ) else {
        return Ok(None);
    };
    let mut params = ConvParams {
        input_offset: -in_zero,
        output_offset: out_zero,
        ch_mult: 1,
        stride_w: stride.0 as i32,
        stride_h: stride.1 as i32,
        pad_w: pad_w as i32,
        pad_h: pad_h as i32,
        dilation_w: 1,
        dilation_h: 1,
        activation_min,
        activation_max,
        batches: batches as i32,
        input_h: in_h as i32,
        input_w: in_w as i32,
        input_c: in_c as i32,
        filter_h: k_h as i32,
        filter_w: k_w as i32,
        output_h: out_h as i32,
        output_w: out_w as i32,
        output_c: out_c as i32,
    }
    .words();
    params.extend(per_channel);
    Ok(Some(Lowered {
        kernel: Kernel::TRANSPOSE_CONV,
        constants: Vec::new(),
        params: Some(params),
        scratch: None,
    }))
}
