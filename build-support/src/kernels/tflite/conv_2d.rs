//! CONV_2D on `arm_convolve_wrapper_s8` (int8; without scratch a direct convolution), and
//! CONV_2D_S16 (16x8) on a direct convolution: `convolution.rs`'s parameters. Beside it, the
//! scratch CMSIS-NN's convolution wrapper asks for.

use super::cmsis_nn::{need, Conv, Dims};
use super::convolution::{prepare, Kind, Options};
use super::registry::Kernel;
use super::tensors::Activations;
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{Program, ScratchByIsa};

/// CONV_2D (`Conv2DOptions`: padding, stride w and h, activation, dilation w and h).
pub(super) fn lower(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(t) = options else {
        return Ok(None);
    };
    let options = Options {
        padding: t.i8(0, 0)?,
        stride: (i64::from(t.i32(1, 0)?), i64::from(t.i32(2, 0)?)),
        activation: t.i8(3, 0)?,
        dilation: (i64::from(t.i32(4, 1)?), i64::from(t.i32(5, 1)?)),
    };
    let Some(c) = prepare(program, Kind::Regular, &options, inputs, outputs) else {
        return Ok(None);
    };
    // The 16x8 kernel runs a direct convolution, without scratch.
    if c.activations == Activations::S16 {
        return Ok(Some(Lowered {
            kernel: Kernel::CONV_2D_S16,
            constants: Vec::new(),
            params: Some(c.params),
            scratch: None,
        }));
    }
    let (k_h, k_w) = c.kernel;
    let filter = Dims {
        n: c.output.c,
        h: k_h,
        w: k_w,
        c: c.input.c,
    };
    let scratch = convolve_wrapper_s8(&c.geometry, c.input, filter, c.output);
    Ok(Some(Lowered {
        kernel: Kernel::CONV_2D,
        constants: Vec::new(),
        params: Some(c.params),
        // Without it the kernel runs a direct convolution: the same bytes, slower, in no
        // scratch.
        scratch: Some(ScratchByIsa {
            optional: true,
            ..scratch
        }),
    }))
}

/// `arm_nn_is_convolve_1x1`.
fn is_1x1(conv: &Conv, input: Dims, filter: Dims) -> bool {
    conv.padding == (0, 0)
        && (filter.w, filter.h) == (1, 1)
        && conv.dilation == (1, 1)
        && input.c == filter.c
}

/// `arm_nn_is_convolve_1_x_n`.
fn is_1_x_n(conv: &Conv, input: Dims, filter: Dims) -> bool {
    input.h == 1
        && conv.dilation.0 == 1
        && filter.h == 1
        && (conv.stride.0 * input.c) % 4 == 0
        && input.c == filter.c
}

/// `arm_convolve_s8_get_buffer_size` without Helium: two int16 im2col columns, each rounded
/// up to four.
fn im2col_plain(input: Dims, filter: Dims) -> i64 {
    let cols = filter.w * filter.h * input.c;
    2 * (cols + (4 - cols % 4) % 4) * 2
}

/// `arm_convolve_s8_get_buffer_size_mve`: four int8 columns of whole 16-byte lanes.
fn im2col_mve(input: Dims, filter: Dims) -> i64 {
    let cols = input.c * filter.w * filter.h;
    4 * ((cols + 15) / 16) * 16
}

/// `arm_convolve_1_x_n_s8_get_buffer_size_mve`.
fn one_by_n_mve(conv: &Conv, input: Dims, filter: Dims, output: Dims) -> i64 {
    let (pad_x, stride_x) = (conv.padding.0, conv.stride.0);
    let total_pad = (output.w - 1) * stride_x + filter.w - input.w;
    let asym_pad = total_pad % 2;
    let right = if pad_x + asym_pad != 0 {
        ((pad_x + asym_pad + stride_x - 1) / stride_x).max(1)
    } else {
        0
    };
    let left = if pad_x != 0 {
        ((pad_x + stride_x - 1) / stride_x).max(1)
    } else {
        0
    };
    let unpadded = (output.w - (right + left)).max(0);
    if right + unpadded + left != output.w {
        return im2col_mve(input, filter);
    }
    let pad_left = pad_x * input.c;
    let pad_right = if asym_pad != 0 {
        right * input.c
    } else {
        pad_left
    };
    let elems_left = filter.w * input.c;
    let elems_right = elems_left - input.c;
    (elems_left + pad_left).max(elems_right + pad_right)
}

/// `arm_convolve_wrapper_s8_get_buffer_size` and its `_dsp` and `_mve` variants: the
/// convolution `arm_convolve_wrapper_s8` runs (CONV_2D).
pub fn convolve_wrapper_s8(conv: &Conv, input: Dims, filter: Dims, output: Dims) -> ScratchByIsa {
    let (without_mve, mve) = convolve_figures(conv, input, filter, output);
    need(
        "arm_convolve_wrapper_s8_get_buffer_size",
        without_mve,
        without_mve,
        mve,
    )
}

/// The convolution wrapper's figures: without Helium (plain C and DSP agree), with it.
pub(super) fn convolve_figures(conv: &Conv, input: Dims, filter: Dims, output: Dims) -> (i64, i64) {
    if is_1x1(conv, input, filter) {
        // The fast 1×1 path needs a buffer only from Arm Compiler 6's DSP build.
        (0, 0)
    } else if is_1_x_n(conv, input, filter) {
        (
            im2col_plain(input, filter),
            one_by_n_mve(conv, input, filter, output),
        )
    } else {
        (im2col_plain(input, filter), im2col_mve(input, filter))
    }
}
