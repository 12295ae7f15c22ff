//! The kernels a host runner registers.

use std::string::String;
use std::vec::Vec;

use arenaplan::sys;
use arenaplan_build::model::Program;

use crate::executorch::ExecuTorchKernels;

/// The kernels every host runner registers, whatever the program: arenaplan-kernels' (the
/// scalar operators), the runtime's own `et:move` and its TFLite kernels (with CMSIS-NN:
/// [`arenaplan::tflite_kernels`]), as the list `ap_method_init` (and
/// [`Runner::with_kernels`](crate::Runner::with_kernels)) resolves kernel calls against. A
/// program's ExecuTorch operators need [`ProgramKernels`] too.
///
/// ```
/// let kernels = arenaplan_host::kernels();
/// assert!(kernels.len() > arenaplan_kernels::KERNELS.len());
/// ```
pub fn kernels() -> Vec<sys::ap_kernel> {
    arenaplan_kernels::entries()
        // SAFETY: a const C static, never written.
        .chain(std::iter::once(unsafe { sys::ap_kernel_et_3amove }))
        .chain(arenaplan::tflite_kernels())
        .collect()
}

/// Every kernel one program needs: [`kernels`], and ExecuTorch's own kernels of the
/// operators it calls, compiled for it ([`ExecuTorchKernels`]). The entries stay valid while
/// this lives.
///
/// ```
/// # fn main() -> Result<(), String> {
/// let program = arenaplan_build::model::Program::new("no_kernel_calls");
/// let kernels = arenaplan_host::ProgramKernels::for_program(&program)?;
/// assert!(kernels.entries().len() >= arenaplan_host::kernels().len());
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ProgramKernels {
    entries: Vec<sys::ap_kernel>,
    // The code ExecuTorch's entries point into.
    _executorch: ExecuTorchKernels,
}

impl ProgramKernels {
    /// The kernels `program` needs, ExecuTorch's compiled (or found compiled) for the dtypes
    /// its calls use, and loaded.
    pub fn for_program(program: &Program) -> Result<Self, String> {
        Self::for_program_dtypes(program, false)
    }

    /// [`ProgramKernels::for_program`], ExecuTorch's kernels compiled for every dtype when
    /// `all_dtypes` (as `Build::all_kernel_dtypes`).
    ///
    /// ```
    /// # fn main() -> Result<(), String> {
    /// let program = arenaplan_build::model::Program::new("no_kernel_calls");
    /// let kernels = arenaplan_host::ProgramKernels::for_program_dtypes(&program, true)?;
    /// assert!(!kernels.entries().is_empty());
    /// # Ok(())
    /// # }
    /// ```
    pub fn for_program_dtypes(program: &Program, all_dtypes: bool) -> Result<Self, String> {
        let executorch = ExecuTorchKernels::for_program_dtypes(program, all_dtypes)?;
        let mut entries = kernels();
        entries.extend_from_slice(executorch.entries());
        Ok(ProgramKernels {
            entries,
            _executorch: executorch,
        })
    }

    /// The list `ap_method_init` resolves the program's kernel calls against.
    pub fn entries(&self) -> &[sys::ap_kernel] {
        &self.entries
    }
}
