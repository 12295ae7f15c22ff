//! The scratch CMSIS-NN's int8 kernels need, computed at build time from a call's shapes.
//!
//! Each function here (defined beside its operator's lowering, re-exported here) gives, for one CMSIS-NN kernel, what its `*_get_buffer_size` functions
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

/// The figures, never negative (CMSIS-NN's are int32 and non-negative for valid shapes).
pub(super) fn need(function: &'static str, plain: i64, dsp: i64, mve: i64) -> ScratchByIsa {
    let bytes = |b: i64| u64::try_from(b).unwrap_or(0);
    ScratchByIsa {
        plain: bytes(plain),
        dsp: bytes(dsp),
        mve: bytes(mve),
        function,
        optional: false,
    }
}

pub use super::average_pool_2d::{avgpool_s16, avgpool_s8};
pub use super::conv_2d::convolve_wrapper_s8;
pub use super::depthwise_conv_2d::depthwise_conv_wrapper_s8;
pub use super::fully_connected::fully_connected_s8;
