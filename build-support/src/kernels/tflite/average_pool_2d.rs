//! AVERAGE_POOL_2D on `arm_avgpool_s8` (int8) and AVERAGE_POOL_2D_S16 on `arm_avgpool_s16`
//! (int16, zero point 0): `pool.rs`'s parameters. Beside it, the scratch their DSP builds ask
//! for.

use super::cmsis_nn::need;
use super::layout::Params;
use super::pool::prepare;
use super::registry::Kernel;
use super::tensors::Activations;
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{Program, ScratchByIsa};

/// AVERAGE_POOL_2D (`Pool2DOptions`: padding, stride w and h, filter w and h, activation).
pub(super) fn lower(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(p) = prepare(program, options, inputs, outputs)? else {
        return Ok(None);
    };
    let channels = i64::from(p.params.channels);
    let (kernel, scratch) = match p.activations {
        Activations::S8 => (Kernel::AVERAGE_POOL_2D, avgpool_s8(channels)),
        Activations::S16 => (Kernel::AVERAGE_POOL_2D_S16, avgpool_s16(channels)),
    };
    Ok(Some(Lowered {
        kernel,
        constants: Vec::new(),
        params: Some(p.params.words()),
        scratch: Some(scratch),
    }))
}

/// `arm_avgpool_s8_get_buffer_size` and its `_dsp` and `_mve` variants (AVERAGE_POOL_2D): the
/// DSP build sums a row of channels in int32.
pub fn avgpool_s8(channels: i64) -> ScratchByIsa {
    need("arm_avgpool_s8_get_buffer_size", 0, channels * 4, 0)
}

/// `arm_avgpool_s16_get_buffer_size` and its `_dsp` and `_mve` variants (AVERAGE_POOL_2D of
/// int16): the DSP build sums a row of channels in int32, as for int8.
pub fn avgpool_s16(channels: i64) -> ScratchByIsa {
    need("arm_avgpool_s16_get_buffer_size", 0, channels * 4, 0)
}
