//! SignalWindow: each frame of the input times the window's weights, shifted.

use super::{count, lowered, option};
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::kernels::tflite::layout::Params;
use crate::kernels::tflite::layouts::WindowParams;
use crate::kernels::tflite::registry::Kernel;
use crate::kernels::tflite::Lowered;
use crate::model::{DType, Program};

/// SignalWindow (option `shift`): int16 input, int16 weights of one frame, int16 output;
/// `ap_tflite_window_params_t`.
pub(super) fn lower(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, weights], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let Some(shift) = option(map, 0, "shift")? else {
        return Ok(None);
    };
    let n = count(program, input, DType::Int16, None);
    let frame = count(program, weights, DType::Int16, Some(1));
    let out = count(program, output, DType::Int16, None);
    let rank_ok = program.values[input].shape.len() == program.values[output].shape.len();
    Ok(match (n, frame, out) {
        (Some(n), Some(frame), Some(out))
            if n == out && frame > 0 && n % frame == 0 && rank_ok && (0..32).contains(&shift) =>
        {
            lowered(
                Kernel::SignalWindow,
                Vec::new(),
                WindowParams {
                    shift,
                    frame,
                    count: n,
                }
                .words(),
            )
        }
        _ => None,
    })
}
