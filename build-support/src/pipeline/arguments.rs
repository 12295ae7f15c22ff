//! Every delegate call's flat argument list, and the guard against building them without the scratch pass.

use thiserror::Error;

use crate::model::{Instruction, Program};

use super::bind::BoundScratch;

/// One delegate call's flat argument list: inputs, outputs, then scratch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallArgs {
    /// Flat index of the call.
    pub call: usize,
    /// The delegate's name.
    pub delegate: String,
    /// Its backend id.
    pub backend: String,
    /// Value ids, in order.
    pub args: Vec<usize>,
    /// How many inputs lead the list.
    pub inputs: usize,
    /// How many outputs follow them.
    pub outputs: usize,
    /// How many scratch buffers close it.
    pub scratch: usize,
}

/// A delegate call whose argument list does not carry the scratch its delegate declares:
/// the scratch pass did not run (or ran with other declarations). Building a table anyway
/// would shift every argument the backend reads from the end.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("delegate call {call} (delegate `{delegate}`, {backend}) declares {declared} scratch buffer(s) but its argument list has {present}: run the scratch pass (arenaplan's pipeline does) before building argument lists")]
pub struct MissingScratch {
    /// Flat index of the call.
    pub call: usize,
    /// The delegate.
    pub delegate: String,
    /// Its backend.
    pub backend: String,
    /// Buffers declared.
    pub declared: usize,
    /// Scratch arguments present.
    pub present: usize,
}

/// The argument table of every delegate call, checked against the scratch bound to its
/// delegate (count and sizes).
pub fn argument_lists(
    program: &Program,
    bound: &[Vec<BoundScratch>],
) -> Result<Vec<CallArgs>, MissingScratch> {
    let mut lists = Vec::new();
    for (index, instruction) in program.flat_instructions() {
        let Instruction::Delegate(call) = instruction else {
            continue;
        };
        let delegate = &program.delegates[call.delegate];
        let declared = bound.get(call.delegate).map_or(&[][..], Vec::as_slice);
        let sizes_match = call
            .scratch
            .iter()
            .zip(declared)
            .all(|(&v, b)| program.values[v].bytes == b.size);
        if call.scratch.len() != declared.len() || !sizes_match {
            return Err(MissingScratch {
                call: index,
                delegate: delegate.name.clone(),
                backend: delegate.backend.clone(),
                declared: declared.len(),
                present: call.scratch.len(),
            });
        }
        lists.push(CallArgs {
            call: index,
            delegate: delegate.name.clone(),
            backend: delegate.backend.clone(),
            args: call.args().collect(),
            inputs: call.inputs.len(),
            outputs: call.outputs.len(),
            scratch: call.scratch.len(),
        });
    }
    Ok(lists)
}
