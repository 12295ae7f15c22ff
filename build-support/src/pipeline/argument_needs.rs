//! What each delegate's calls need from their argument tensors
//! ([`BackendPlugin::argument_needs`]): Neutron's transpositions, whose buffer becomes one more
//! scratch declaration of the delegate and whose descriptor a compile spec the generated
//! program passes the C backend. Runs before scratch is bound, so the buffer is planned like
//! any other scratch.
//!
//! The compile specs under `arenaplan.` are the build's own: a model that sets one is refused,
//! so nothing in a model file can pose as a descriptor the build made.
//!
//! [`BackendPlugin::argument_needs`]: crate::backends::BackendPlugin::argument_needs

use thiserror::Error;

use crate::backends::{plugin_for, ArgumentNeeds};
use crate::model::{Instruction, Program, Value};

/// The prefix of the compile specs the build adds.
pub const OWN_SPECS: &str = "arenaplan.";

/// A delegate call whose tensors its backend cannot hand to its NPU.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{}delegate `{delegate}` ({backend}): {problem}", instruction.map(|i| format!("instruction {i}: ")).unwrap_or_default())]
pub struct ArgumentNeedsError {
    /// Flat index of the call (`None` for a problem of the delegate itself).
    pub instruction: Option<usize>,
    /// The delegate's name.
    pub delegate: String,
    /// Its backend.
    pub backend: String,
    /// What is wrong and what to change.
    pub problem: String,
}

/// Adds to every delegate the compile specs its backend reads from the target
/// ([`BackendPlugin::target_specs`]: Neutron's model context in static storage).
///
/// [`BackendPlugin::target_specs`]: crate::backends::BackendPlugin::target_specs
pub fn add_target_specs(program: &mut Program, target: &crate::targets::Target) {
    for delegate in &mut program.delegates {
        if let Some(plugin) = plugin_for(&delegate.backend) {
            delegate.compile_specs.extend(plugin.target_specs(target));
        }
    }
}

/// Adds to every delegate what its calls need from their tensors. All calls of one delegate
/// must need the same (one blob, compiled for one set of shapes).
pub fn add_argument_needs(program: &mut Program) -> Result<(), ArgumentNeedsError> {
    let flat = program.flat_instructions();
    let mut needs: Vec<Option<(usize, ArgumentNeeds)>> = vec![None; program.delegates.len()];
    for delegate in &program.delegates {
        if let Some(key) = delegate
            .compile_specs
            .keys()
            .find(|k| k.starts_with(OWN_SPECS))
        {
            return Err(ArgumentNeedsError {
                instruction: None,
                delegate: crate::names::display(&delegate.name),
                backend: crate::names::display(&delegate.backend),
                problem: format!(
                    "compile spec `{}` is in the `{OWN_SPECS}` namespace, which the build fills itself; remove it from the model",
                    crate::names::display(key)
                ),
            });
        }
    }
    for (instruction, ins) in &flat {
        let Instruction::Delegate(call) = ins else {
            continue;
        };
        let delegate = &program.delegates[call.delegate];
        let (Some(plugin), Some(blob)) = (plugin_for(&delegate.backend), &delegate.blob) else {
            continue;
        };
        let values =
            |ids: &[usize]| -> Vec<&Value> { ids.iter().map(|&v| &program.values[v]).collect() };
        let fail = |problem: String| ArgumentNeedsError {
            instruction: Some(*instruction),
            delegate: crate::names::display(&delegate.name),
            backend: delegate.backend.clone(),
            problem,
        };
        let these = plugin
            .argument_needs(blob, &values(&call.inputs), &values(&call.outputs))
            .map_err(fail)?;
        match &needs[call.delegate] {
            None => needs[call.delegate] = Some((*instruction, these)),
            Some((first, earlier)) if *earlier != these => {
                return Err(fail(format!(
                    "its tensors need other buffers than at instruction {first} (the same blob called with other shapes); export one delegate per shape"
                )))
            }
            Some(_) => {}
        }
    }
    for (delegate, needs) in program.delegates.iter_mut().zip(needs) {
        let Some((_, needs)) = needs else {
            continue;
        };
        let backend = delegate.backend.clone();
        delegate
            .scratch
            .extend(needs.scratch.iter().map(|b| b.to_spec(&backend)));
        delegate.compile_specs.extend(needs.specs);
    }
    Ok(())
}
