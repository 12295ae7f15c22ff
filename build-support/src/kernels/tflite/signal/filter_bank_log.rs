//! SignalFilterBankLog: the natural log of each channel, scaled.

use super::{count, lowered, option};
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::kernels::tflite::layout::Params;
use crate::kernels::tflite::layouts::FilterBankLogParams;
use crate::kernels::tflite::registry::Kernel;
use crate::kernels::tflite::Lowered;
use crate::model::{DType, Program};

/// SignalFilterBankLog (options `input_correction_bits`, `output_scale`): the natural log of
/// each uint32 channel, scaled, into int16; `ap_tflite_filter_bank_log_params_t`.
pub(super) fn lower(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let (Some(correction), Some(scale)) = (
        option(map, 0, "input_correction_bits")?,
        option(map, 1, "output_scale")?,
    ) else {
        return Ok(None);
    };
    let n = count(program, input, DType::UInt32, Some(1));
    let out = count(program, output, DType::Int16, Some(1));
    Ok(match (n, out) {
        (Some(n), Some(out)) if n == out && (0..32).contains(&correction) => lowered(
            Kernel::SignalFilterBankLog,
            Vec::new(),
            // The option's bits, as TFLM reads the uint32 scale.
            FilterBankLogParams {
                count: n,
                correction_bits: correction,
                output_scale: scale as u32,
            }
            .words(),
        ),
        _ => None,
    })
}
