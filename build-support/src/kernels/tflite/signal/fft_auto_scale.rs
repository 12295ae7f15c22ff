//! SignalFftAutoScale: a frame scaled up to use int16's range.

use super::{count, lowered};
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::kernels::tflite::layout::Params;
use crate::kernels::tflite::layouts::CountParams;
use crate::kernels::tflite::registry::Kernel;
use crate::kernels::tflite::Lowered;
use crate::model::{DType, Program};

/// SignalFftAutoScale: a 1-D int16 input scaled up to use int16's range, and the int32 scalar
/// of bits it was shifted by; `ap_tflite_count_params_t`.
pub(super) fn lower(
    program: &Program,
    _map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output, bits]) = (inputs, outputs) else {
        return Ok(None);
    };
    let n = count(program, input, DType::Int16, Some(1));
    let out = count(program, output, DType::Int16, Some(1));
    let bits = count(program, bits, DType::Int32, None);
    Ok(match (n, out, bits) {
        (Some(n), Some(out), Some(1)) if n == out => lowered(
            Kernel::SignalFftAutoScale,
            Vec::new(),
            CountParams { count: n }.words(),
        ),
        _ => None,
    })
}
