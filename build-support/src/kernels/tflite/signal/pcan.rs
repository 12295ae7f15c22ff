//! SignalPCAN: per-channel automatic gain control.

use super::{count, lowered, option};
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::kernels::tflite::layout::Params;
use crate::kernels::tflite::layouts::PcanParams;
use crate::kernels::tflite::registry::Kernel;
use crate::kernels::tflite::Lowered;
use crate::model::{DType, Program};

/// SignalPCAN (option `snr_shift`): per-channel automatic gain control of a uint32 filter bank
/// by its uint32 noise estimate through an int16 gain table (of at least the 125 entries its
/// lookup reaches); `ap_tflite_pcan_params_t`.
pub(super) fn lower(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, noise, lut], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let Some(shift) = option(map, 0, "snr_shift")? else {
        return Ok(None);
    };
    let c = |t: usize, dtype: DType| count(program, t, dtype, Some(1));
    Ok(
        match (
            c(input, DType::UInt32),
            c(noise, DType::UInt32),
            c(lut, DType::Int16),
            c(output, DType::UInt32),
        ) {
            (Some(n), Some(k), Some(l), Some(out))
                if n == k && n == out && l >= PCAN_LUT && (0..64).contains(&shift) =>
            {
                lowered(
                    Kernel::SignalPCAN,
                    Vec::new(),
                    PcanParams {
                        count: n,
                        snr_shift: shift,
                        lut_count: l,
                    }
                    .words(),
                )
            }
            _ => None,
        },
    )
}

/// The gain table entries PCAN's lookup can reach (`4 × 32 − 6 + 2`, plus one).
const PCAN_LUT: i32 = 125;
