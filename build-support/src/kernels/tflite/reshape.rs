//! RESHAPE: the same bytes under another shape, a copy (none when the two share memory).

use super::registry::Kernel;
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::Program;

/// RESHAPE: the same bytes under another shape (TFLM copies them when the buffers differ).
pub(super) fn lower(
    program: &Program,
    _options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, ..], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    Ok(
        (program.values[input].bytes == program.values[output].bytes).then_some(Lowered {
            kernel: Kernel::RESHAPE,
            constants: Vec::new(),
            params: None,
            scratch: None,
        }),
    )
}
