//! A delegate call's inputs and outputs against what its blob expects
//! ([`BackendPlugin::check_io`]): a size the backend would refuse at each call on the board
//! (Ethos-U copies each through the scratch at the size its record gives) is refused here, at
//! build time.
//!
//! [`BackendPlugin::check_io`]: crate::backends::BackendPlugin::check_io

use thiserror::Error;

use crate::backends::plugin_for;
use crate::model::{Instruction, Program};

/// A call whose inputs or outputs are not the sizes its blob copies.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("instruction {instruction}: delegate `{delegate}` ({backend}): {problem}; the model's tensors and the compiled blob disagree (re-export the program, or compile the partition for these shapes)")]
pub struct IoSizeError {
    /// Flat index of the call.
    pub instruction: usize,
    /// The delegate's name.
    pub delegate: String,
    /// Its backend.
    pub backend: String,
    /// What differs.
    pub problem: String,
}

/// Checks every delegate call of `program` whose backend arenaplan knows and whose blob the
/// program carries.
pub fn check_io_sizes(program: &Program) -> Result<(), IoSizeError> {
    for (instruction, ins) in program.flat_instructions() {
        let Instruction::Delegate(call) = ins else {
            continue;
        };
        let delegate = &program.delegates[call.delegate];
        let (Some(plugin), Some(blob)) = (plugin_for(&delegate.backend), &delegate.blob) else {
            continue;
        };
        let bytes =
            |ids: &[usize]| -> Vec<u64> { ids.iter().map(|&v| program.values[v].bytes).collect() };
        plugin
            .check_io(blob, &bytes(&call.inputs), &bytes(&call.outputs))
            .map_err(|problem| IoSizeError {
                instruction,
                delegate: delegate.name.clone(),
                backend: delegate.backend.clone(),
                problem,
            })?;
    }
    Ok(())
}
