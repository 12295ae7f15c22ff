//! Running a plan made on the host (`arenaplan_build`) on the C runtime (`arenaplan`), without
//! generated C: the runtime's tables built from a [`ModelPlan`], for demos, tests and tools.
//! Firmware uses the generated `NAME_program.c` instead. A crate of its own so that the
//! runtime crate firmware links never depends on the build crate.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = std::env::temp_dir().join(format!("arenaplan-host-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let model = dir.join("m.toml");
//! std::fs::write(&model, r#"
//!     name = "m"
//!     inputs = ["x"]
//!     outputs = ["y"]
//!     [[tensor]]
//!     name = "x"
//!     dtype = "int8"
//!     shape = [64]
//!     [[tensor]]
//!     name = "y"
//!     dtype = "int8"
//!     shape = [64]
//!     [[delegate]]
//!     name = "npu"
//!     backend = "EthosUBackend"
//!     scratch = [ { size = 256, pool = "npu_scratch" } ]
//!     [[instruction]]
//!     kind = "delegate"
//!     delegate = "npu"
//!     inputs = ["x"]
//!     outputs = ["y"]
//! "#)?;
//! let rendered = arenaplan_build::Build::new()
//!     .model(&model)
//!     .target("corstone-300")
//!     .sources(Vec::<std::path::PathBuf>::new())
//!     .try_render()?;
//! // The runtime's tables for the plan: one delegate call, its scratch after its I/O.
//! let tables = arenaplan_host::Tables::new(&rendered.program, &rendered.plan)
//!     .expect("delegate calls only");
//! # let _ = tables;
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok(())
//! # }
//! ```
#![deny(missing_docs)]

use std::ffi::CString;
use std::vec::Vec;

use arenaplan::{check, sys, RuntimeError};
use arenaplan_build::model::{Instruction, Program};
use arenaplan_build::{CallKind, ModelPlan};

/// One data-cache line of arena storage (32 bytes, as the Cortex-M55's): generated arenas
/// start on a line, and the NPU's buffers own whole lines.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Line([u8; 32]);

/// Host memory for every pool of a plan, line-aligned, zeroed but for the initial contents of
/// the program's state (as the generated `NAME_init` copies them in), with the `ap_pool_t`
/// list that hands it to the runtime.
///
/// ```no_run
/// # fn f(program: &arenaplan_build::model::Program, plan: &arenaplan_build::ModelPlan) {
/// let arenas = arenaplan_host::Arenas::new(program, plan);
/// assert_eq!(arenas.pools().len(), plan.pools.len());
/// # }
/// ```
pub struct Arenas {
    // Each pool's storage; the pools point into it (a Vec's buffer does not move).
    _storage: Vec<Vec<Line>>,
    pools: Vec<sys::ap_pool>,
}

impl Arenas {
    /// Storage for each of `plan`'s pools, at least one line each, with `program`'s state at
    /// its initial contents.
    pub fn new(program: &Program, plan: &ModelPlan) -> Arenas {
        let mut storage: Vec<Vec<Line>> = plan
            .pools
            .iter()
            .map(|pool| std::vec![Line([0; 32]); (pool.size as usize).div_ceil(32).max(1)])
            .collect();
        for &v in &program.state {
            let (Some(data), Some(b)) = (&program.values[v].data, plan.buffer(v)) else {
                continue;
            };
            let Some(k) = plan.pools.iter().position(|p| p.mem_id == b.mem_id) else {
                continue;
            };
            for (i, &byte) in data.bytes().iter().enumerate().take(b.size as usize) {
                let at = b.offset as usize + i;
                if let Some(line) = storage[k].get_mut(at / 32) {
                    line.0[at % 32] = byte;
                }
            }
        }
        let pools = plan
            .pools
            .iter()
            .zip(storage.iter_mut())
            .map(|(pool, a)| sys::ap_pool {
                mem_id: pool.mem_id,
                base: a.as_mut_ptr().cast(),
                size: a.len() * 32,
            })
            .collect();
        Arenas {
            _storage: storage,
            pools,
        }
    }

    /// The pools, for [`Runner::new`] (valid while `self` lives).
    pub fn pools(&self) -> &[sys::ap_pool] {
        &self.pools
    }
}

/// The runtime's tables for one planned program, owning everything they point to.
pub struct Tables {
    tensors: Vec<sys::ap_tensor_desc>,
    args: Vec<Vec<u32>>,
    instructions: Vec<sys::ap_instruction>,
    _names: Vec<CString>,
    // Blob copies on 16-byte boundaries: the NPU reads command streams and weights in place.
    _blobs: Vec<Vec<u128>>,
    delegates: Vec<sys::ap_delegate_desc>,
    inputs: Vec<u32>,
    outputs: Vec<u32>,
}

impl Tables {
    /// Tables for `program` as `plan` placed it. `None` for a program with several methods
    /// ([`Tables::method`] gives each its own), and when the program has kernel calls (the
    /// runtime runs them through functions an integrator registers), branches (the generated
    /// program lays them out as jumps; these tables list calls only), or sizes beyond 32 bits.
    /// Delegate blobs are copied onto 16-byte boundaries, as the NPU needs them.
    pub fn new(program: &Program, plan: &ModelPlan) -> Option<Tables> {
        if !program.methods.is_empty() {
            return None; // one table per method: `Tables::method`
        }
        Self::build(
            program,
            plan,
            0..program.flat_instructions().len(),
            0..program.delegates.len(),
            &program.inputs,
            &program.outputs,
        )
    }

    /// Tables for method `method` of a program with several (`None` past the last, and as for
    /// [`Tables::new`]): its calls, its delegates, its inputs and outputs, over every value of
    /// the program, so that the methods' tables run over the same arenas — the state they
    /// share among them.
    pub fn method(program: &Program, plan: &ModelPlan, method: usize) -> Option<Tables> {
        let m = program.methods.get(method)?;
        let calls = program.method_flat_range(method);
        Self::build(
            program,
            plan,
            calls,
            m.delegates.clone(),
            &m.inputs,
            &m.outputs,
        )
    }

    fn build(
        program: &Program,
        plan: &ModelPlan,
        calls: core::ops::Range<usize>,
        delegate_range: core::ops::Range<usize>,
        inputs: &[usize],
        outputs: &[usize],
    ) -> Option<Tables> {
        let branches = program
            .flat_instructions()
            .iter()
            .any(|(_, i)| matches!(i, arenaplan_build::model::Instruction::Branch(_)));
        if branches || plan.calls.iter().any(|c| c.kind == CallKind::Kernel) {
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
            .filter(|(at, _)| calls.contains(at))
            .filter_map(|(_, i)| match i {
                Instruction::Delegate(d) => u32::try_from(d.delegate - delegate_range.start).ok(),
                _ => None,
            })
            .collect();
        let method_calls: Vec<_> = plan
            .calls
            .iter()
            .filter(|c| calls.contains(&c.index))
            .collect();
        let args: Vec<Vec<u32>> = method_calls
            .iter()
            .map(|c| c.args.iter().map(|&a| a as u32).collect())
            .collect();
        let instructions = method_calls
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
        let own = &program.delegates[delegate_range];
        let names: Vec<CString> = own
            .iter()
            .map(|d| CString::new(d.backend.clone()).unwrap_or_default())
            .collect();
        let blobs: Vec<Vec<u128>> = own
            .iter()
            .map(|d| {
                let bytes = d.blob.as_deref().unwrap_or(&[]);
                let mut words = std::vec![0u128; bytes.len().div_ceil(16)];
                for (word, chunk) in words.iter_mut().zip(bytes.chunks(16)) {
                    let mut b = [0u8; 16];
                    b[..chunk.len()].copy_from_slice(chunk);
                    *word = u128::from_ne_bytes(b);
                }
                words
            })
            .collect();
        let delegates = own
            .iter()
            .zip(&names)
            .zip(&blobs)
            .map(|((d, n), words)| {
                let len = d.blob.as_ref().map_or(0, Vec::len);
                sys::ap_delegate_desc {
                    backend: n.as_ptr(),
                    blob: words.as_ptr().cast(),
                    blob_size: len as u32,
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
            _blobs: blobs,
            delegates,
            inputs: inputs.iter().map(|&v| v as u32).collect(),
            outputs: outputs.iter().map(|&v| v as u32).collect(),
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

    /// Number of calls (instructions).
    pub fn call_count(&self) -> usize {
        self.instructions.len()
    }

    /// Number of inputs and of outputs.
    pub fn io_counts(&self) -> (usize, usize) {
        (self.inputs.len(), self.outputs.len())
    }

    /// Number of values and of delegates.
    pub fn counts(&self) -> (usize, usize) {
        (self.tensors.len(), self.delegates.len())
    }
}

/// One method over [`Tables`], owning the storage `ap_method_init` needs: init, write inputs,
/// execute, read outputs; destroyed on drop.
pub struct Runner {
    // Boxed so the addresses the C side keeps stay put when the runner moves.
    program: std::boxed::Box<sys::ap_program>,
    method: std::boxed::Box<sys::ap_method>,
    values: Vec<sys::ap_buffer>,
    handles: Vec<sys::ap_handle>,
    resolved: Vec<*const sys::ap_backend>,
    args: Vec<sys::ap_buffer>,
    initialized: bool,
}

const EMPTY: sys::ap_buffer = sys::ap_buffer {
    data: core::ptr::null_mut(),
    size: 0,
};

impl Runner {
    /// Checks `tables` against `pools` and initializes every delegate with `backends`.
    ///
    /// # Safety
    /// `tables`, the arenas `pools` point to and the backends must outlive the runner, and no
    /// one else may use the arenas while it runs.
    pub unsafe fn new(
        tables: &Tables,
        pools: &[sys::ap_pool],
        backends: &[*const sys::ap_backend],
    ) -> Result<Runner, RuntimeError> {
        let (nvalues, ndelegates) = tables.counts();
        let mut r = Runner {
            program: std::boxed::Box::new(tables.program()),
            // SAFETY: ap_method is plain data; all zeros is its "not initialized" state.
            method: std::boxed::Box::new(unsafe { core::mem::zeroed() }),
            values: std::vec![EMPTY; nvalues],
            handles: std::vec![sys::ap_handle { u: sys::ap_handle__bindgen_ty_1 { align_u64: 0 } }; ndelegates],
            resolved: std::vec![core::ptr::null(); ndelegates],
            args: std::vec![EMPTY; tables.longest_call()],
            initialized: false,
        };
        let memory = sys::ap_method_memory {
            values: r.values.as_mut_ptr(),
            nvalues,
            handles: r.handles.as_mut_ptr(),
            delegate_backends: r.resolved.as_mut_ptr(),
            nhandles: ndelegates,
            kernel_fns: core::ptr::null_mut(),
            nkernel_fns: 0,
            args: r.args.as_mut_ptr(),
            nargs: r.args.len(),
            temp: core::ptr::null_mut(),
            temp_size: 0,
        };
        // SAFETY: the storage lives in `r`; the caller vouches for tables, pools and backends.
        check(unsafe {
            sys::ap_method_init(
                &mut *r.method,
                &*r.program,
                pools.as_ptr(),
                pools.len(),
                backends.as_ptr(),
                backends.len(),
                core::ptr::null(),
                0,
                &memory,
            )
        })?;
        r.initialized = true;
        Ok(r)
    }

    /// Input `i`, in its arena.
    pub fn input(&mut self, i: usize) -> Result<&mut [u8], RuntimeError> {
        let mut b = EMPTY;
        // SAFETY: an initialized method; the buffer lies in an arena the runner may use.
        check(unsafe { sys::ap_method_input(&mut *self.method, i, &mut b) })?;
        Ok(unsafe { core::slice::from_raw_parts_mut(b.data, b.size) })
    }

    /// Output `i`, in its arena.
    pub fn output(&mut self, i: usize) -> Result<&[u8], RuntimeError> {
        let mut b = EMPTY;
        // SAFETY: as for `input`.
        check(unsafe { sys::ap_method_output(&mut *self.method, i, &mut b) })?;
        Ok(unsafe { core::slice::from_raw_parts(b.data, b.size) })
    }

    /// Runs every instruction; on failure, the error and the failing instruction.
    pub fn execute(&mut self) -> Result<(), (RuntimeError, u32)> {
        // SAFETY: an initialized method.
        check(unsafe { sys::ap_method_execute(&mut *self.method) })
            .map_err(|e| (e, self.method.failed_instruction))
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        if self.initialized {
            // SAFETY: initialized by `new`, destroyed once.
            unsafe { sys::ap_method_destroy(&mut *self.method) };
        }
    }
}
