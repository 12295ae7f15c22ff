//! The program's calls against the firmware's scratch declarations (`#[kernel(scratch = ...)]`,
//! a `#[delegate]` of fixed sizes): the one door to emission runs it with the declarations it
//! emits with.

use crate::model::{Instruction, Program};
use crate::targets::Target;

use super::{order, PlanCheckError};

/// Checks every call of `program` against the firmware's scratch declarations: a kernel's
/// `#[kernel(scratch = ...)]`, and the fixed sizes of a `#[delegate]` of a backend arenaplan
/// has no blob reader for (whose slots are the declaration's order). The call passes as many
/// scratch buffers as declared, each at least as large. [`crate::build::verify_and_emit`], the
/// one door to emission, runs it: a plan made without the declarations it is emitted with
/// (a call missing its declared scratch) fails here, before any file is written.
pub fn check_declarations(
    program: &Program,
    declared: &crate::pipeline::Declarations,
    target: &Target,
) -> Result<(), PlanCheckError> {
    use crate::pipeline::DeclaredScratch;
    let fail = |problem: String| PlanCheckError {
        target: target.name.clone(),
        problem,
    };
    for (at, instruction) in order::flat(program) {
        let (who, scratch, specs) = match instruction {
            Instruction::Kernel(k) => match declared.kernels.iter().find(|d| d.op == k.op) {
                Some(d) => (format!("kernel `{}`", k.op), &k.scratch, &d.scratch),
                None => continue,
            },
            Instruction::Delegate(d) => {
                let backend = &program.delegates[d.delegate].backend;
                if crate::backends::plugin_for(backend).is_some() {
                    continue; // slots by role: the binding's business, checked by the tables
                }
                match declared.backends.iter().find(|b| &b.backend == backend) {
                    Some(b) => match &b.scratch {
                        DeclaredScratch::Sizes(specs) => {
                            (format!("backend `{backend}`"), &d.scratch, specs)
                        }
                        _ => continue,
                    },
                    None => continue,
                }
            }
            Instruction::Branch(_) => continue,
        };
        if scratch.len() != specs.len() {
            return Err(fail(format!(
                "instruction {at} ({who}) passes {} scratch buffers, but its declaration has {}",
                scratch.len(),
                specs.len()
            )));
        }
        for (slot, (&v, spec)) in scratch.iter().zip(specs).enumerate() {
            let declared_bytes = u64::try_from(spec.size).unwrap_or(0);
            if program.values[v].bytes < declared_bytes {
                return Err(fail(format!(
                    "instruction {at} ({who}): scratch {slot} has {} bytes, but its declaration asks for {declared_bytes}",
                    program.values[v].bytes
                )));
            }
        }
    }
    Ok(())
}
