//! Which values an NPU reads or writes, worked out by the checker from the program: written
//! apart from the pipeline's pool assignment, so that a buffer the pipeline forgets is the
//! NPU's (and leaves off whole cache lines) is a disagreement here.
//!
//! Trusted, not derived: each backend's own statement of whether its NPU reads the call's
//! inputs and outputs where they are planned
//! ([`crate::backends::BackendPlugin::npu_reads_io`]), a fixed fact of the backend's C code,
//! not a decision of the pipeline; and the registry that finds a backend's blob reader by its
//! id ([`crate::backends::plugin_for`]).

use crate::model::{Instruction, Program};

/// Whether an NPU reads or writes each value: the scratch of every call of a backend with a
/// blob reader (an NPU's), and its inputs and outputs when that NPU reads them in place.
pub(super) fn npu_touches(program: &Program, flat: &[(usize, &Instruction)]) -> Vec<bool> {
    let mut touched = vec![false; program.values.len()];
    for (_, instruction) in flat {
        let Instruction::Delegate(call) = instruction else {
            continue;
        };
        let backend = match program.delegates.get(call.delegate) {
            Some(d) => d.backend.as_str(),
            None => continue,
        };
        let Some(npu) = crate::backends::plugin_for(backend) else {
            continue;
        };
        // Its scratch always; its inputs and outputs when the NPU reads them where they are.
        let (inputs, outputs): (&[usize], &[usize]) = if npu.npu_reads_io() {
            (&call.inputs, &call.outputs)
        } else {
            (&[], &[])
        };
        for &v in call.scratch.iter().chain(inputs).chain(outputs) {
            if let Some(t) = touched.get_mut(v) {
                *t = true;
            }
        }
    }
    touched
}
