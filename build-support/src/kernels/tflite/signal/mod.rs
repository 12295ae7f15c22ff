//! TFLite Micro's signal library: the custom operators of its audio front end (`SignalWindow`,
//! `SignalFftAutoScale`, `SignalRfft`, `SignalEnergy`, `SignalFilterBank`,
//! `SignalFilterBankSquareRoot`, `SignalFilterBankSpectralSubtraction`, `SignalPCAN`,
//! `SignalFilterBankLog`), on the runtime's ports of their fixed-point code
//! (`runtime-c/kernels/tflite/`), one file each here: the options TFLM reads from the
//! operator's FlexBuffers map at init, read here by the same positions, with the checks TFLM's prepare makes and the ones its eval
//! assumes (a shift in range, indices inside their tensors), so a call the kernel would run off
//! its buffers is refused at build time instead.
//!
//! What TFLM keeps in its arena's persistent part is not RAM here: the FFT's twiddle factors
//! are computed at build time (as kissfft computes them when TFLM allocates its state) into
//! constants in flash, and the FFT needs no work area (it reads its input zero-padded in place
//! and turns its half-length complex transform into the real one in its output). The spectral
//! subtraction's noise estimate is state: planned for the whole program, zero at start, as
//! TFLM's reset leaves it.

mod energy;
mod fft_auto_scale;
mod filter_bank;
mod filter_bank_log;
mod filter_bank_square_root;
mod pcan;
mod rfft;
mod spectral_subtraction;
mod window;

use super::registry::Kernel;
use super::tensors::MAX_DIM;
use super::Lowered;
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::model::{DType, Program, Value};

/// What a signal operator becomes, and the state it keeps, if any.
pub(super) struct LoweredSignal {
    pub(super) lowered: Lowered,
    pub(super) state: Option<Value>,
}

/// A lowering: the program, the options map, the call's inputs and outputs.
type SignalLowering =
    fn(&Program, Option<&Map<'_>>, &[usize], &[usize]) -> Result<Option<Lowered>, ImportError>;

/// The lowering of custom operator `name`, when it is one of the signal library's this
/// runtime runs and the call is one its kernel takes; `options` is its FlexBuffers map.
pub(super) fn lower(
    program: &Program,
    name: &str,
    options: Option<&[u8]>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<LoweredSignal>, ImportError> {
    let lowering: SignalLowering = match name {
        "SignalWindow" => window::lower,
        "SignalFftAutoScale" => fft_auto_scale::lower,
        "SignalRfft" => rfft::lower,
        "SignalEnergy" => energy::lower,
        "SignalFilterBank" => filter_bank::lower,
        "SignalFilterBankSquareRoot" => filter_bank_square_root::lower,
        "SignalFilterBankSpectralSubtraction" => {
            return spectral_subtraction::lower(program, options, inputs, outputs)
        }
        "SignalPCAN" => pcan::lower,
        "SignalFilterBankLog" => filter_bank_log::lower,
        _ => return Ok(None),
    };
    let map = options.map(Map::root).transpose()?;
    Ok(
        lowering(program, map.as_ref(), inputs, outputs)?.map(|lowered| LoweredSignal {
            lowered,
            state: None,
        }),
    )
}

/// Option `name` at position `i`, when it fits an int32 (TFLM's `ElementAsInt32` truncates
/// what does not; such a model is refused instead).
pub(super) fn option(
    map: Option<&Map<'_>>,
    i: usize,
    name: &str,
) -> Result<Option<i32>, ImportError> {
    let Some(map) = map else {
        return Ok(None);
    };
    Ok(i32::try_from(map.int(i, name)?).ok())
}

/// Tensor `t`'s element count when it has `dtype` and, with `rank`, that many dimensions; each
/// extent positive and the kernels' limit at most.
pub(super) fn count(program: &Program, t: usize, dtype: DType, rank: Option<usize>) -> Option<i32> {
    let v = &program.values[t];
    if v.dtype != dtype || rank.is_some_and(|r| v.shape.len() != r) {
        return None;
    }
    let n = v.shape.iter().try_fold(1u64, |acc, &d| {
        (1..=MAX_DIM)
            .contains(&d)
            .then(|| acc.checked_mul(d))
            .flatten()
    })?;
    i32::try_from(n).ok().filter(|&n| n <= MAX_DIM as i32 * 64)
}

/// A signal kernel's call: its constants and parameters' words, no scratch.
pub(super) fn lowered(
    kernel: Kernel,
    constants: Vec<(&'static str, Vec<i32>)>,
    params: Vec<i32>,
) -> Option<Lowered> {
    Some(Lowered {
        kernel,
        constants,
        params: Some(params),
        scratch: None,
    })
}
