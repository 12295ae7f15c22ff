//! DEPTHWISE_CONV_2D on `arm_depthwise_conv_wrapper_s8` (int8; without scratch CMSIS-NN's
//! generic depthwise kernel), and DEPTHWISE_CONV_2D_S16 (16x8) on `arm_depthwise_conv_s16`:
//! `convolution.rs`'s parameters. Beside it, the scratch CMSIS-NN's depthwise wrapper asks
//! for.

use super::cmsis_nn::{need, Conv, Dims};
use super::conv_2d::convolve_figures;
use super::convolution::{prepare, Kind, Options};
use super::registry::Kernel;
use super::tensors::Activations;
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{Program, ScratchByIsa};

/// DEPTHWISE_CONV_2D (`DepthwiseConv2DOptions`: padding, stride w and h, depth multiplier,
/// activation, dilation w and h).
pub(super) fn lower(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(t) = options else {
        return Ok(None);
    };
    let ch_mult = t.i32(3, 0)?;
    let options = Options {
        padding: t.i8(0, 0)?,
        stride: (i64::from(t.i32(1, 0)?), i64::from(t.i32(2, 0)?)),
        activation: t.i8(4, 0)?,
        dilation: (i64::from(t.i32(5, 1)?), i64::from(t.i32(6, 1)?)),
    };
    let kind = Kind::Depthwise { ch_mult };
    let Some(c) = prepare(program, kind, &options, inputs, outputs) else {
        return Ok(None);
    };
    // The 16x8 kernel is CMSIS-NN's generic one, without scratch.
    if c.activations == Activations::S16 {
        return Ok(Some(Lowered {
            kernel: Kernel::DEPTHWISE_CONV_2D_S16,
            constants: Vec::new(),
            params: Some(c.params),
            scratch: None,
        }));
    }
    let (k_h, k_w) = c.kernel;
    let filter = Dims {
        n: 1,
        h: k_h,
        w: k_w,
        c: c.output.c,
    };
    let scratch = depthwise_conv_wrapper_s8(&c.geometry, c.input, filter, c.output);
    Ok(Some(Lowered {
        kernel: Kernel::DEPTHWISE_CONV_2D,
        constants: Vec::new(),
        params: Some(c.params),
        // Without it the kernel runs CMSIS-NN's generic depthwise kernel: the same bytes,
        // slower, in no scratch.
        scratch: Some(ScratchByIsa {
            optional: true,
            ..scratch
        }),
    }))
}

/// `CH_IN_BLOCK_MVE`: the channels Helium's depthwise kernel takes at a time.
const CH_IN_BLOCK_MVE: i64 = 124;
/// `CONVERT_DW_CONV_WITH_ONE_INPUT_CH_AND_OUTPUT_CH_ABOVE_THRESHOLD` of a GCC or Clang build.
const DW_AS_CONV_ABOVE: i64 = 1;

/// `arm_depthwise_conv_wrapper_s8_get_buffer_size` and its `_dsp` and `_mve` variants
/// (DEPTHWISE_CONV_2D); `filter` is `{1, h, w, output channels}` as the wrapper takes it.
pub fn depthwise_conv_wrapper_s8(
    conv: &Conv,
    input: Dims,
    filter: Dims,
    output: Dims,
) -> ScratchByIsa {
    let optimized = input.c == output.c && input.n == 1 && conv.dilation == (1, 1);
    let three_by_three =
        (filter.w, filter.h) == (3, 3) && conv.padding.0 <= 1 && conv.padding.1 <= 1;
    // Plain C needs nothing; with DSP the 3×3 kernel needs nothing, the general optimized one
    // int16 columns.
    let dsp = if optimized && !three_by_three {
        input.c * filter.w * filter.h * 2
    } else {
        0
    };
    // Helium's optimized kernel: four blocks of CH_IN_BLOCK_MVE channels.
    let mut mve = if optimized {
        4 * CH_IN_BLOCK_MVE * filter.w * filter.h
    } else {
        0
    };
    // One input channel and more outputs than the threshold: run as a convolution over a
    // transposed copy of the filter.
    if input.c == 1 && output.c > DW_AS_CONV_ABOVE {
        let as_conv = Dims {
            n: filter.c,
            h: filter.h,
            w: filter.w,
            c: filter.n,
        };
        let (_, conv_mve) = convolve_figures(conv, input, as_conv, output);
        mve = mve.max(conv_mve + filter.c * filter.h * filter.w * filter.n);
    }
    need("arm_depthwise_conv_wrapper_s8_get_buffer_size", 0, dsp, mve)
}
