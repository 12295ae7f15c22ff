//! Running a plan made on the host (`arenaplan_build`) on the C runtime, without generated C:
//! the runtime's tables built from a [`ModelPlan`], for demos, tests and tools. Firmware uses the
//! generated `NAME_program.c` instead.

extern crate std;

use std::ffi::CString;
use std::vec::Vec;

use arenaplan_build::model::{Instruction, Program};
use arenaplan_build::pipeline::{CallKind, ModelPlan};

use crate::sys;

/// The runtime's tables for one planned program, owning everything they point to.
pub struct Tables {
    tensors: Vec<sys::ap_tensor_desc>,
    args: Vec<Vec<u32>>,
    instructions: Vec<sys::ap_instruction>,
    _names: Vec<CString>,
    delegates: Vec<sys::ap_delegate_desc>,
    inputs: Vec<u32>,
    outputs: Vec<u32>,
}

impl Tables {
    /// Tables for `program` as `plan` placed it. `None` when the program has kernel calls (the
    /// runtime runs them through functions an integrator registers) or sizes beyond 32 bits.
    /// Delegate blobs are borrowed from `program`, which must outlive any use of the tables.
    pub fn new(program: &Program, plan: &ModelPlan) -> Option<Tables> {
        if plan.calls.iter().any(|c| c.kind == CallKind::Kernel) {
            return None;
        }
        let u32_of = |v: u64| u32::try_from(v).ok();
        let mut tensors = Vec::with_capacity(program.values.len());
        for v in 0..program.values.len() {
            tensors.push(match plan.buffer(v) {
                Some(b) => sys::ap_tensor_desc {
                    mem_id: b.mem_id,
                    offset: u32_of(b.offset)?,
                    size: u32_of(b.size)?,
                    constant: core::ptr::null(),
                },
                None => sys::ap_tensor_desc {
                    mem_id: 0,
                    offset: 0,
                    size: 0,
                    constant: core::ptr::null(),
                },
            });
        }
        let delegate_of: Vec<u32> = program
            .flat_instructions()
            .into_iter()
            .filter_map(|(_, i)| match i {
                Instruction::Delegate(d) => u32::try_from(d.delegate).ok(),
                _ => None,
            })
            .collect();
        let args: Vec<Vec<u32>> = plan
            .calls
            .iter()
            .map(|c| c.args.iter().map(|&a| a as u32).collect())
            .collect();
        let instructions = plan
            .calls
            .iter()
            .zip(&args)
            .zip(&delegate_of)
            .map(|((c, a), &d)| sys::ap_instruction {
                kind: 1,
                index: d,
                args: a.as_ptr(),
                nargs: a.len() as u32,
                ninputs: c.inputs as u32,
                noutputs: c.outputs as u32,
            })
            .collect();
        let names: Vec<CString> = program
            .delegates
            .iter()
            .map(|d| CString::new(d.backend.clone()).unwrap_or_default())
            .collect();
        let delegates = program
            .delegates
            .iter()
            .zip(&names)
            .map(|(d, n)| {
                let blob = d.blob.as_deref().unwrap_or(&[]);
                sys::ap_delegate_desc {
                    backend: n.as_ptr(),
                    blob: blob.as_ptr(),
                    blob_size: blob.len() as u32,
                    specs: core::ptr::null(),
                    nspecs: 0,
                }
            })
            .collect();
        Some(Tables {
            tensors,
            args,
            instructions,
            _names: names,
            delegates,
            inputs: program.inputs.iter().map(|&v| v as u32).collect(),
            outputs: program.outputs.iter().map(|&v| v as u32).collect(),
        })
    }

    /// The `ap_program_t` over these tables (valid while `self` lives).
    pub fn program(&self) -> sys::ap_program {
        sys::ap_program {
            tensors: self.tensors.as_ptr(),
            ntensors: self.tensors.len() as u32,
            instructions: self.instructions.as_ptr(),
            ninstructions: self.instructions.len() as u32,
            delegates: self.delegates.as_ptr(),
            ndelegates: self.delegates.len() as u32,
            kernels: core::ptr::null(),
            nkernels: 0,
            inputs: self.inputs.as_ptr(),
            ninputs: self.inputs.len() as u32,
            outputs: self.outputs.as_ptr(),
            noutputs: self.outputs.len() as u32,
        }
    }

    /// The longest argument list (storage `ap_method_init` needs).
    pub fn longest_call(&self) -> usize {
        self.args.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// Number of values and of delegates.
    pub fn counts(&self) -> (usize, usize) {
        (self.tensors.len(), self.delegates.len())
    }
}
