//! What AVERAGE_POOL_2D and MAX_POOL_2D share: int8, or int16 with zero point 0, the output
//! quantized as the input (TFLM's pooling works on the stored values), `ap_tflite_pool_params_t`.

use super::layouts::PoolParams;
use super::padding::padded;
use super::quant::activation_range_in;
use super::tensors::{activations, dims4, Activations, MAX_DIM};
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::Program;

/// A pooling one of the kernels runs.
pub(super) struct Pooling {
    /// Its parameters.
    pub(super) params: PoolParams,
    /// int8 or int16.
    pub(super) activations: Activations,
}

/// The call's pooling (`Pool2DOptions`: padding, stride w and h, filter w and h, activation),
/// when a kernel runs it.
pub(super) fn prepare(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Pooling>, ImportError> {
    let Some(t) = options else {
        return Ok(None);
    };
    let padding = t.i8(0, 0)?;
    let (stride_w, stride_h) = (i64::from(t.i32(1, 0)?), i64::from(t.i32(2, 0)?));
    let (filter_w, filter_h) = (i64::from(t.i32(3, 0)?), i64::from(t.i32(4, 0)?));
    let activation = t.i8(5, 0)?;
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let (Some([batches, in_h, in_w, c]), Some([ob, out_h, out_w, oc])) =
        (dims4(program, input), dims4(program, output))
    else {
        return Ok(None);
    };
    let (Some((kind, scale, zero)), true) = (
        activations(program, input),
        activations(program, input) == activations(program, output),
    ) else {
        return Ok(None);
    };
    if ob != batches
        || oc != c
        || stride_w <= 0
        || stride_h <= 0
        || !(1..=MAX_DIM as i64).contains(&filter_w)
        || !(1..=MAX_DIM as i64).contains(&filter_h)
        || stride_w > MAX_DIM as i64
        || stride_h > MAX_DIM as i64
    {
        return Ok(None);
    }
    let (Some((oh, pad_h)), Some((ow, pad_w))) = (
        padded(padding, in_h, filter_h, stride_h, 1),
        padded(padding, in_w, filter_w, stride_w, 1),
    ) else {
        return Ok(None);
    };
    if (oh, ow) != (out_h, out_w) || pad_h > MAX_DIM as i64 || pad_w > MAX_DIM as i64 {
        return Ok(None);
    }
    let Some((activation_min, activation_max)) =
        activation_range_in(activation, scale, zero, kind.range())
    else {
        return Ok(None);
    };
    let params = PoolParams {
        stride_w: stride_w as i32,
        stride_h: stride_h as i32,
        pad_w: pad_w as i32,
        pad_h: pad_h as i32,
        activation_min,
        activation_max,
        batches: batches as i32,
        input_h: in_h as i32,
        input_w: in_w as i32,
        channels: c as i32,
        filter_h: filter_h as i32,
        filter_w: filter_w as i32,
        output_h: out_h as i32,
        output_w: out_w as i32,
    };
    Ok(Some(Pooling {
        params,
        activations: kind,
    }))
}
