//! The scratch CMSIS-NN's int8 kernels need, computed at build time from a call's shapes.
//!
//! Each function here gives, for one CMSIS-NN kernel, what its `*_get_buffer_size` functions
//! return for the plain-C, DSP (`_dsp`) and Helium (`_mve`) builds: the same arithmetic on the
//! same `cmsis_nn_dims` and parameters, so that the planner can size every call's buffer for
//! the target's core without compiling for it. TFLite Micro asks the same functions at run
//! time and takes the memory from its arena (`RequestScratchBufferInArena`); here the figure
//! is a property of the model and the target, planned with everything else.
//!
//! Two rules keep the figures honest:
//! - `build-support/host/tests/cmsis_nn_buffer_sizes.rs` calls CMSIS-NN's own functions (the
//!   three variants are plain C, callable on the host) over a grid of shapes and compares
//!   every figure with these;
//! - every kernel of the runtime asks its CMSIS-NN variant again before it runs and refuses a
//!   smaller buffer (`AP_ERR_SCRATCH_TOO_SMALL`), so a library built otherwise than planned
//!   fails loudly, never silently.
//!
//! The figures are those of a GCC or Clang build. Arm Compiler 6 builds of CMSIS-NN ask for
//! more in two places (the DSP 1×1 convolution's buffer, and Helium's depthwise-as-convolution
//! threshold); such firmware gets the runtime's refusal, which names the call.
//!
//! ```
//! use arenaplan_build::cmsis_nn::{self, Conv, Dims};
//! use arenaplan_build::model::Isa;
//! // A 3×3 convolution over 8 channels: an im2col buffer, bigger on Helium.
//! let conv = Conv { stride: (1, 1), padding: (1, 1), dilation: (1, 1) };
//! let input = Dims { n: 1, h: 16, w: 16, c: 8 };
//! let filter = Dims { n: 16, h: 3, w: 3, c: 8 };
//! let output = Dims { n: 1, h: 16, w: 16, c: 16 };
//! let need = cmsis_nn::convolve_wrapper_s8(&conv, input, filter, output);
//! assert_eq!(need.bytes(Isa::Plain), 2 * 72 * 2);
//! assert_eq!(need.bytes(Isa::Mve), 4 * 80);
//! ```

use crate::model::ScratchByIsa;

/// `cmsis_nn_dims`: batches (or output channels, for a filter), height, width, channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// `n`.
    pub n: i64,
    /// `h`.
    pub h: i64,
    /// `w`.
    pub w: i64,
    /// `c`.
    pub c: i64,
}

/// A convolution's geometry, `(w, h)` pairs as in `cmsis_nn_conv_params`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Conv {
    /// Stride.
    pub stride: (i64, i64),
    /// Padding before the first column and row.
    pub padding: (i64, i64),
    /// Dilation.
    pub dilation: (i64, i64),
}

/// `CH_IN_BLOCK_MVE`: the channels Helium's depthwise kernel takes at a time.
const CH_IN_BLOCK_MVE: i64 = 124;
/// `CONVERT_DW_CONV_WITH_ONE_INPUT_CH_AND_OUTPUT_CH_ABOVE_THRESHOLD` of a GCC or Clang build.
const DW_AS_CONV_ABOVE: i64 = 1;

/// The figures, never negative (CMSIS-NN's are int32 and non-negative for valid shapes).
fn need(function: &'static str, plain: i64, dsp: i64, mve: i64) -> ScratchByIsa {
    let bytes = |b: i64| u64::try_from(b).unwrap_or(0);
    ScratchByIsa {
        plain: bytes(plain),
        dsp: bytes(dsp),
        mve: bytes(mve),
        function,
        optional: false,
    }
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
fn convolve_figures(conv: &Conv, input: Dims, filter: Dims, output: Dims) -> (i64, i64) {
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

/// `arm_fully_connected_s8_get_buffer_size` and its `_dsp` and `_mve` variants
/// (FULLY_CONNECTED): Helium keeps one int32 sum of the weights per output.
pub fn fully_connected_s8(output_depth: i64) -> ScratchByIsa {
    need(
        "arm_fully_connected_s8_get_buffer_size",
        0,
        0,
        output_depth * 4,
    )
}

/// `arm_avgpool_s8_get_buffer_size` and its `_dsp` and `_mve` variants (AVERAGE_POOL_2D): the
/// DSP build sums a row of channels in int32.
pub fn avgpool_s8(channels: i64) -> ScratchByIsa {
    need("arm_avgpool_s8_get_buffer_size", 0, channels * 4, 0)
}

/// `arm_avgpool_s16_get_buffer_size` and its `_dsp` and `_mve` variants (AVERAGE_POOL_2D of
/// int16): the DSP build sums a row of channels in int32, as for int8.
pub fn avgpool_s16(channels: i64) -> ScratchByIsa {
    need("arm_avgpool_s16_get_buffer_size", 0, channels * 4, 0)
}
