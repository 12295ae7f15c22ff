//! SignalFilterBankSpectralSubtraction: a filter bank's channels less their noise estimate,
//! which the call keeps as state.

use super::{count, option, LoweredSignal};
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::kernels::tflite::layout::Params;
use crate::kernels::tflite::layouts::SpectralSubtractionParams;
use crate::kernels::tflite::registry::Kernel;
use crate::kernels::tflite::Lowered;
use crate::model::{ConstantData, DType, Program, Value};

/// SignalFilterBankSpectralSubtraction (nine options, in their sorted order): a uint32
/// filter bank's channels less their noise estimate, and that estimate; the estimate is
/// state the kernel keeps; `ap_tflite_spectral_subtraction_params_t`.
pub(super) fn lower(
    program: &Program,
    options: Option<&[u8]>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<LoweredSignal>, ImportError> {
    let (&[input], &[output, noise]) = (inputs, outputs) else {
        return Ok(None);
    };
    let map = options.map(Map::root).transpose()?;
    let names = [
        "alternate_one_minus_smoothing",
        "alternate_smoothing",
        "clamping",
        "min_signal_remaining",
        "num_channels",
        "one_minus_smoothing",
        "smoothing",
        "smoothing_bits",
        "spectral_subtraction_bits",
    ];
    let mut o = [0i32; 9];
    for (i, name) in names.iter().enumerate() {
        match option(map.as_ref(), i, name)? {
            Some(x) => o[i] = x,
            None => return Ok(None),
        }
    }
    let [alt_one_minus, alt_smoothing, clamping, min_remaining, channels, one_minus, smoothing, smoothing_bits, bits] =
        o;
    let c = |t: usize| count(program, t, DType::UInt32, Some(1));
    let (Some(n), Some(out), Some(k)) = (c(input), c(output), c(noise)) else {
        return Ok(None);
    };
    if n != channels
        || out != n
        || k != n
        || !(0..32).contains(&smoothing_bits)
        || !(0..64).contains(&bits)
    {
        return Ok(None);
    }
    let state_name = format!(
        "{}:SignalFilterBankSpectralSubtraction_noise",
        program.values[output].name
    );
    let mut state = Value::planned(state_name, DType::UInt32, vec![n as u64]);
    state.data = Some(ConstantData::new(vec![0; n as usize * 4]));
    Ok(Some(LoweredSignal {
        lowered: Lowered {
            kernel: Kernel::SignalFilterBankSpectralSubtraction,
            constants: Vec::new(),
            // The uint32 options as the int32 TFLM reads them, reinterpreted.
            params: Some(
                SpectralSubtractionParams {
                    channels: n,
                    smoothing: smoothing as u32,
                    one_minus_smoothing: one_minus as u32,
                    alternate_smoothing: alt_smoothing as u32,
                    alternate_one_minus_smoothing: alt_one_minus as u32,
                    min_signal_remaining: min_remaining as u32,
                    smoothing_bits,
                    spectral_subtraction_bits: bits,
                    clamping: i32::from(clamping != 0),
                }
                .words(),
            ),
            scratch: None,
        },
        state: Some(state),
    }))
}
