//! SignalEnergy: the squared magnitude of a spectrum's bins.

use super::{count, lowered, option};
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::kernels::tflite::layout::Params;
use crate::kernels::tflite::layouts::EnergyParams;
use crate::kernels::tflite::registry::Kernel;
use crate::kernels::tflite::Lowered;
use crate::model::{DType, Program};

/// SignalEnergy (options `end_index`, `start_index`): the squared magnitude of the complex
/// int16 input's bins `start_index..end_index`, into a uint32 output (whose other elements,
/// which TFLM leaves as its arena held them, are zero); `ap_tflite_energy_params_t`.
pub(super) fn lower(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let (Some(end), Some(start)) = (option(map, 0, "end_index")?, option(map, 1, "start_index")?)
    else {
        return Ok(None);
    };
    let n = count(program, input, DType::Int16, Some(1));
    let out = count(program, output, DType::UInt32, Some(1));
    Ok(match (n, out) {
        (Some(n), Some(out)) if 0 <= start && start <= end && end <= n / 2 && end <= out => {
            lowered(
                Kernel::SignalEnergy,
                Vec::new(),
                EnergyParams {
                    start,
                    end,
                    count: out,
                }
                .words(),
            )
        }
        _ => None,
    })
}
