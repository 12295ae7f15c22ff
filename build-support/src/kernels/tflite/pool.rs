//! AVERAGE_POOL_2D and MAX_POOL_2D on `arm_avgpool_s8` and `arm_max_pool_s8` (int8), and their
//! `_s16` counterparts (int16, zero point 0): the output quantized as the input (TFLM's pooling
//! works on the stored values), `ap_tflite_pool_params_t`.

use super::conv::padded;
use super::quant::activation_range_in;
use super::{activations, dims4, Activations, Lowered, MAX_DIM};
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::kernels::tflite::cmsis_nn;
use crate::model::Program;

/// AVERAGE_POOL_2D (`Pool2DOptions`: padding, stride w and h, filter w and h, activation).
pub(super) fn average_pool(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    pool(program, options, inputs, outputs, true)
}

/// MAX_POOL_2D (`Pool2DOptions`, as AVERAGE_POOL_2D's).
pub(super) fn max_pool(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    pool(program, options, inputs, outputs, false)
}

fn pool(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
    average: bool,
) -> Result<Option<Lowered>, ImportError> {
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
    let Some((act_min, act_max)) = activation_range_in(activation, scale, zero, kind.range())
    else {
        return Ok(None);
    };
    let words = vec![
        stride_w as i32,
        stride_h as i32,
        pad_w as i32,
        pad_h as i32,
        act_min,
        act_max,
        batches as i32,
        in_h as i32,
        in_w as i32,
        c as i32,
        filter_h as i32,
        filter_w as i32,
        out_h as i32,
        out_w as i32,
    ];
    Ok(Some(Lowered {
        constants: Vec::new(),
        op: match (average, kind) {
            (true, Activations::S8) => "AVERAGE_POOL_2D",
            (true, Activations::S16) => "AVERAGE_POOL_2D_S16",
            (false, Activations::S8) => "MAX_POOL_2D",
            (false, Activations::S16) => "MAX_POOL_2D_S16",
        },
        params: Some(words),
        // arm_max_pool_s8 and _s16 need none.
        scratch: average.then(|| match kind {
            Activations::S8 => cmsis_nn::avgpool_s8(c),
            Activations::S16 => cmsis_nn::avgpool_s16(c),
        }),
    }))
}
