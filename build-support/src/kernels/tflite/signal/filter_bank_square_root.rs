//! SignalFilterBankSquareRoot: each channel's square root, shifted.

use super::{count, lowered};
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::kernels::tflite::layout::Params;
use crate::kernels::tflite::layouts::CountParams;
use crate::kernels::tflite::registry::Kernel;
use crate::kernels::tflite::Lowered;
use crate::model::{DType, Program};

/// SignalFilterBankSquareRoot: a 1-D uint64 input's square roots shifted right by the int32
/// scalar input's bits, into uint32; `ap_tflite_count_params_t`.
pub(super) fn lower(
    program: &Program,
    _map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, bits], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let n = count(program, input, DType::UInt64, Some(1));
    let out = count(program, output, DType::UInt32, Some(1));
    let bits = count(program, bits, DType::Int32, Some(0));
    Ok(match (n, out, bits) {
        (Some(n), Some(out), Some(1)) if n == out => lowered(
            Kernel::SignalFilterBankSquareRoot,
            Vec::new(),
            CountParams { count: n }.words(),
        ),
        _ => None,
    })
}
