//! Each delegate's blob against the target's NPU: a delegate of an NPU backend arenaplan knows
//! must be the target's NPU backend, and its blob compiled for that NPU
//! ([`BackendPlugin::check_target`]: Ethos-U's optimizer config, the product and MACs Arm's
//! driver compares with the NPU's; Neutron's compile spec `target`, the chip NXP's converter
//! compiled for, which nothing on the board checks). Without this, a program for another NPU plans and fails on
//! the board (`AP_ERR_DRIVER` at the first job).
//!
//! [`BackendPlugin::check_target`]: crate::backends::BackendPlugin::check_target

use thiserror::Error;

use crate::backends::plugin_for;
use crate::model::Program;
use crate::targets::Target;

/// A delegate whose blob is for another NPU than the target's.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("delegate `{delegate}` ({backend}): {problem}")]
pub struct NpuMismatchError {
    /// The delegate's name.
    pub delegate: String,
    /// Its backend.
    pub backend: String,
    /// What differs, and what to change.
    pub problem: String,
}

/// Checks every delegate of `program` that has a blob and a backend arenaplan reads.
pub fn check_npu(program: &Program, target: &Target) -> Result<(), NpuMismatchError> {
    for delegate in &program.delegates {
        let (Some(plugin), Some(blob)) = (plugin_for(&delegate.backend), &delegate.blob) else {
            continue;
        };
        let fail = |problem: String| NpuMismatchError {
            delegate: crate::names::display(&delegate.name),
            backend: delegate.backend.clone(),
            problem,
        };
        match &target.npu {
            Some(npu) if npu.backend == delegate.backend => {}
            Some(npu) => {
                return Err(fail(format!(
                    "target `{}` has a {} NPU ({}), not one this blob runs on; plan the program for a target whose NPU is {}, or export it for {}",
                    target.name, npu.backend, npu.config, delegate.backend, npu.backend
                )))
            }
            None => {
                return Err(fail(format!(
                    "target `{}` has no NPU; plan the program for a target whose NPU is {}",
                    target.name, delegate.backend
                )))
            }
        }
        plugin
            .check_target(blob, &delegate.compile_specs, target)
            .map_err(fail)?;
    }
    Ok(())
}
