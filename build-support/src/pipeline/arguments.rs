//! Every delegate and kernel call's flat argument list, and the guard against building them
//! without the scratch pass.

use thiserror::Error;

use crate::model::{Instruction, Program};

use super::bind::Bound;

/// One call's flat argument list: inputs, outputs, then scratch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallArgs {
    /// Flat index of the call.
    pub call: usize,
    /// The delegate's name, or the kernel's operator.
    pub delegate: String,
    /// The delegate's backend id (`None` for a kernel call).
    pub backend: Option<String>,
    /// Value ids, in order.
    pub args: Vec<usize>,
    /// How many inputs lead the list.
    pub inputs: usize,
    /// How many outputs follow them.
    pub outputs: usize,
    /// How many scratch buffers close it.
    pub scratch: usize,
}

/// A call whose argument list does not carry the scratch its delegate or kernel declares:
/// the scratch pass did not run (or ran with other declarations). Building a table anyway
/// would shift every argument the backend reads from the end.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("call {call} of {site} declares {declared} scratch buffer(s) but its argument list has {present}: run the scratch pass (arenaplan's pipeline does) before building argument lists")]
pub struct MissingScratch {
    /// Flat index of the call.
    pub call: usize,
    /// The delegate or kernel.
    pub site: super::bind::ScratchSite,
    /// Buffers declared.
    pub declared: usize,
    /// Scratch arguments present.
    pub present: usize,
}

/// The argument table of every delegate and kernel call, checked against the scratch bound to
/// its delegate or kernel (count and sizes).
pub fn argument_lists(program: &Program, bound: &Bound) -> Result<Vec<CallArgs>, MissingScratch> {
    let mut lists = Vec::new();
    for (index, instruction) in program.flat_instructions() {
        let (site, declared, args, inputs, outputs, scratch) = match instruction {
            Instruction::Delegate(call) => {
                let delegate = &program.delegates[call.delegate];
                (
                    super::bind::ScratchSite::Delegate {
                        name: delegate.name.clone(),
                        backend: delegate.backend.clone(),
                    },
                    bound.of_delegate(call.delegate),
                    call.args().collect::<Vec<_>>(),
                    call.inputs.len(),
                    call.outputs.len(),
                    &call.scratch,
                )
            }
            Instruction::Kernel(call) => (
                super::bind::ScratchSite::Kernel {
                    op: call.op.clone(),
                },
                bound.of_kernel(index, &call.op),
                call.args().collect(),
                call.inputs.len(),
                call.outputs.len(),
                &call.scratch,
            ),
            Instruction::Branch(_) => continue,
        };
        let sizes_match = scratch
            .iter()
            .zip(declared)
            .all(|(&v, b)| program.values[v].bytes == b.size);
        if scratch.len() != declared.len() || !sizes_match {
            return Err(MissingScratch {
                call: index,
                site,
                declared: declared.len(),
                present: scratch.len(),
            });
        }
        let (delegate, backend) = match site {
            super::bind::ScratchSite::Delegate { name, backend } => (name, Some(backend)),
            super::bind::ScratchSite::Kernel { op } => (op, None),
        };
        lists.push(CallArgs {
            call: index,
            delegate,
            backend,
            args,
            inputs,
            outputs,
            scratch: scratch.len(),
        });
    }
    Ok(lists)
}
