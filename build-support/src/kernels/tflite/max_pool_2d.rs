//! MAX_POOL_2D on `arm_max_pool_s8` (int8) and MAX_POOL_2D_S16 on `arm_max_pool_s16` (int16,
//! zero point 0): `pool.rs`'s parameters, no scratch.

use super::layout::Params;
use super::pool::prepare;
use super::registry::Kernel;
use super::tensors::Activations;
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::Program;

/// MAX_POOL_2D (`Pool2DOptions`, as AVERAGE_POOL_2D's).
pub(super) fn lower(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(p) = prepare(program, options, inputs, outputs)? else {
        return Ok(None);
    };
    Ok(Some(Lowered {
        kernel: match p.activations {
            Activations::S8 => Kernel::MAX_POOL_2D,
            Activations::S16 => Kernel::MAX_POOL_2D_S16,
        },
        constants: Vec::new(),
        params: Some(p.params.words()),
        // arm_max_pool_s8 and _s16 need none.
        scratch: None,
    }))
}
