//! SignalFilterBank: a spectrum's energy summed into weighted channels.

use super::{count, lowered, option};
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::kernels::tflite::layout::Params;
use crate::kernels::tflite::layouts::FilterBankParams;
use crate::kernels::tflite::registry::Kernel;
use crate::kernels::tflite::Lowered;
use crate::model::{DType, Program};

/// SignalFilterBank (option `num_channels`): uint32 spectrum, int16 weights and unweights,
/// int16 channel frequency starts, weight starts and widths (`num_channels + 1` each), uint64
/// output of `num_channels`; `ap_tflite_filter_bank_params_t`. The kernel checks every start
/// and width against the tensors it indexes.
pub(super) fn lower(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, weights, unweights, freq_starts, weight_starts, widths], &[output]) =
        (inputs, outputs)
    else {
        return Ok(None);
    };
    let Some(channels) = option(map, 0, "num_channels")? else {
        return Ok(None);
    };
    let c = |t: usize, dtype: DType| count(program, t, dtype, Some(1));
    let (Some(n), Some(w), Some(u), Some(out)) = (
        c(input, DType::UInt32),
        c(weights, DType::Int16),
        c(unweights, DType::Int16),
        c(output, DType::UInt64),
    ) else {
        return Ok(None);
    };
    let bands_ok = [freq_starts, weight_starts, widths]
        .iter()
        .all(|&t| c(t, DType::Int16).is_some_and(|k| k > channels));
    Ok((channels > 0 && out == channels && w == u && bands_ok)
        .then(|| {
            let params = FilterBankParams {
                channels,
                input_count: n,
                weight_count: w,
            };
            lowered(Kernel::SignalFilterBank, Vec::new(), params.words())
        })
        .flatten())
}
