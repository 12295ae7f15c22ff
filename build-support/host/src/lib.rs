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
use arenaplan_build::pipeline::{steps, ConstantLayout, Step, ValueMetas};
use arenaplan_build::ModelPlan;

/// The kernels a host runner registers: arenaplan-kernels', the runtime's own `et:move` and
/// its TFLite kernels (with CMSIS-NN: [`arenaplan::tflite_kernels`]), as the list `ap_method_init` (and [`Runner::with_kernels`]) resolves kernel calls against.
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

/// One table per method of `program` as `plan` placed it (one for a program with a single
/// method), each with the method's name (empty for a single method): what a host runner runs,
/// every method over the same arenas. `None` as for [`Tables::new`].
pub fn method_tables(program: &Program, plan: &ModelPlan) -> Option<Vec<(String, Tables)>> {
    if program.methods.is_empty() {
        return Some(std::vec![(String::new(), Tables::new(program, plan)?)]);
    }
    (0..program.methods.len())
        .map(|k| {
            Some((
                program.methods[k].name.clone(),
                Tables::method(program, plan, k)?,
            ))
        })
        .collect()
}

/// No NPU here: registers the emulated NPUs `target`'s programs were compiled for (the
/// Ethos-U85-256 on corstone-320, the Ethos-U55-128 elsewhere, and Neutron) and returns the
/// backends that run on them, for [`Runner::with_kernels`].
pub fn emulated_backends(target: &str) -> Result<[*const sys::ap_backend; 2], RuntimeError> {
    let npu = if target == "corstone-320" {
        arenaplan::sim::EthosU::U85_256
    } else {
        arenaplan::sim::EthosU::U55_128
    };
    arenaplan::sim::ethos_u(npu)?;
    arenaplan::sim::neutron()?;
    Ok([
        &raw const sys::ap_ethosu_backend,
        &raw const sys::ap_neutron_backend,
    ])
}

/// What a failure of [`Runner::execute`] means, for people: the status and the instruction, and
/// where the emulated Ethos-U refused the job for its optimizer config (a bare `AP_ERR_DRIVER`
/// from Arm's driver), which field differs.
///
/// ```
/// use arenaplan::{sys, RuntimeError};
/// let e = RuntimeError(sys::ap_status::AP_ERR_BAD_BLOB);
/// assert!(arenaplan_host::failure_text(&e, 3).ends_with("at instruction 3"));
/// ```
pub fn failure_text(e: &RuntimeError, instruction: u32) -> String {
    let mut text = format!("{e} at instruction {instruction}");
    if e.0 == sys::ap_status::AP_ERR_DRIVER {
        if let Some(m) = arenaplan::sim::ethos_u_config_mismatch() {
            text.push_str(&format!(": {m}"));
        }
    }
    text
}

/// Why `program` cannot run on the host runner, if it cannot: operators no kernel of
/// [`kernels`] implements (each named), or a call taking a value without memory.
pub fn why_not_runnable(program: &Program) -> Option<String> {
    // What a runner registers ([`kernels`]), by name.
    let registered = kernels();
    let known_op = |op: &str| {
        registered.iter().any(|k| {
            // SAFETY: every registered kernel's name is a static C string.
            unsafe { core::ffi::CStr::from_ptr(k.name) }.to_bytes() == op.as_bytes()
        })
    };
    let mut missing: Vec<&str> = Vec::new();
    for (_, instruction) in program.flat_instructions() {
        if let Instruction::Kernel(k) = instruction {
            let known = known_op(&k.op);
            if !known && !missing.contains(&k.op.as_str()) {
                missing.push(&k.op);
            }
        }
    }
    if !missing.is_empty() {
        let names: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
        return Some(format!(
            "no kernel for {} {}: arenaplan-kernels does not implement {} yet",
            if missing.len() > 1 {
                "operators"
            } else {
                "operator"
            },
            names.join(", "),
            if missing.len() > 1 { "them" } else { "it" }
        ));
    }
    program.unplaced_argument().map(|(at, value)| {
        format!(
            "instruction {at} takes `{}`, which has no memory ({})",
            program.values[value].name,
            arenaplan_build::model::UNPLACED
        )
    })
}

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
    // The delegates' compile specs (their strings, then the table pointing at them).
    _spec_text: Vec<Vec<(CString, CString)>>,
    _specs: Vec<Vec<sys::ap_compile_spec>>,
    // Blob and constant copies on 16-byte boundaries: the NPU reads command streams and
    // weights in place, and kernels may read a constant's elements in place.
    _blobs: Vec<Vec<u128>>,
    _constants: Vec<Vec<u128>>,
    delegates: Vec<sys::ap_delegate_desc>,
    _kernel_names: Vec<CString>,
    kernel_ptrs: Vec<*const core::ffi::c_char>,
    _dims: Vec<Vec<u32>>,
    meta: Vec<sys::ap_value_meta>,
    inputs: Vec<u32>,
    outputs: Vec<u32>,
}

/// Bytes copied onto 16-byte boundaries.
fn aligned(bytes: &[u8]) -> Vec<u128> {
    let mut words = std::vec![0u128; bytes.len().div_ceil(16)];
    for (word, chunk) in words.iter_mut().zip(bytes.chunks(16)) {
        let mut b = [0u8; 16];
        b[..chunk.len()].copy_from_slice(chunk);
        *word = u128::from_ne_bytes(b);
    }
    words
}

impl Tables {
    /// Tables for `program` as `plan` placed it: its calls (kernels by operator name, delegates
    /// with their blobs), its branches as the runtime's jumps, its constants and what each
    /// value is. `None` for a program with several methods ([`Tables::method`] gives each its
    /// own), for a branch the runtime cannot run, and for sizes beyond 32 bits. Blobs and
    /// constants are copied onto 16-byte boundaries, as the NPU needs them.
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
        let u32_of = |v: u64| u32::try_from(v).ok();
        let layout = ConstantLayout::new(program);
        let constants: Vec<Vec<u128>> = layout
            .arrays
            .iter()
            .map(|a| {
                let data = program.values[a.values[0]].data.as_ref();
                aligned(data.map_or(&[][..], |d| d.bytes()))
            })
            .collect();
        let mut tensors = Vec::with_capacity(program.values.len());
        for v in 0..program.values.len() {
            tensors.push(match (plan.buffer(v), layout.of(v)) {
                (Some(b), _) => sys::ap_tensor_desc {
                    mem_id: b.mem_id,
                    offset: u32_of(b.offset)?,
                    size: u32_of(b.size)?,
                    constant: core::ptr::null(),
                },
                (None, Some(c)) => sys::ap_tensor_desc {
                    mem_id: 0,
                    offset: 0,
                    size: u32_of(layout.arrays[c].len)?,
                    constant: constants[c].as_ptr().cast(),
                },
                (None, None) => sys::ap_tensor_desc {
                    mem_id: 0,
                    offset: 0,
                    size: 0,
                    constant: core::ptr::null(),
                },
            });
        }
        let metas = ValueMetas::new(program, plan);
        let meta = metas
            .entries
            .iter()
            .enumerate()
            .map(|(v, (kind, dtype, shape))| {
                Some(sys::ap_value_meta {
                    kind: *kind as u8,
                    dtype: *dtype,
                    rank: u16::try_from(shape.len()).ok()?,
                    dims: metas
                        .shape_of(v)
                        .map_or(core::ptr::null(), |k| metas.shapes[k].as_ptr()),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let dims = metas.shapes;
        let table = steps(program, plan).ok()?;
        let first = table.flat.partition_point(|&f| f < calls.start);
        let last = table.flat.partition_point(|&f| f < calls.end);
        let flat = program.flat_instructions();
        let mut kernel_names: Vec<CString> = Vec::new();
        let mut args: Vec<Vec<u32>> = Vec::new();
        let mut shapes = Vec::new(); // (kind, index, ninputs, noutputs) per step
        for step in &table.steps[first..last] {
            let entry = match *step {
                Step::Call(i) => {
                    let c = &plan.calls[i];
                    let (kind, index) = match flat.iter().find(|(at, _)| *at == c.index)?.1 {
                        Instruction::Delegate(d) => {
                            (1, d.delegate.checked_sub(delegate_range.start)?)
                        }
                        Instruction::Kernel(k) => {
                            let name = CString::new(k.op.clone()).ok()?;
                            let index = match kernel_names.iter().position(|n| *n == name) {
                                Some(i) => i,
                                None => {
                                    kernel_names.push(name);
                                    kernel_names.len() - 1
                                }
                            };
                            (0, index)
                        }
                        Instruction::Branch(_) => return None,
                    };
                    args.push(c.args.iter().map(|&a| a as u32).collect());
                    (kind, index, c.inputs, c.outputs)
                }
                Step::JumpFalse { predicate, to } => {
                    args.push(std::vec![u32::try_from(predicate).ok()?]);
                    (2, to.checked_sub(first)?, 1, 0)
                }
                Step::Jump { to } => {
                    args.push(Vec::new());
                    (3, to.checked_sub(first)?, 0, 0)
                }
            };
            shapes.push(entry);
        }
        let instructions = shapes
            .iter()
            .zip(&args)
            .map(
                |(&(kind, index, ninputs, noutputs), a)| sys::ap_instruction {
                    kind,
                    index: index as u32,
                    args: if a.is_empty() {
                        core::ptr::null()
                    } else {
                        a.as_ptr()
                    },
                    nargs: a.len() as u32,
                    ninputs: ninputs as u32,
                    noutputs: noutputs as u32,
                },
            )
            .collect();
        let own = &program.delegates[delegate_range];
        let names: Vec<CString> = own
            .iter()
            .map(|d| CString::new(d.backend.clone()).unwrap_or_default())
            .collect();
        let blobs: Vec<Vec<u128>> = own
            .iter()
            .map(|d| aligned(d.blob.as_deref().unwrap_or(&[])))
            .collect();
        // The compile specs the build made (`arenaplan.*`), as the generated program has them,
        // but for Neutron's model context: the runner's handles are the runtime's fixed
        // `ap_handle_t`s, so NXP's (simulated) library keeps the context on its heap here.
        let spec_text: Vec<Vec<(CString, CString)>> = own
            .iter()
            .map(|d| {
                d.compile_specs
                    .iter()
                    .filter(|(k, _)| {
                        k.starts_with(arenaplan_build::pipeline::OWN_SPECS)
                            && k.as_bytes()
                                != sys::AP_NEUTRON_CONTEXT_SPEC
                                    .strip_suffix(b"\0")
                                    .unwrap_or(&[])
                    })
                    .map(|(k, v)| {
                        (
                            CString::new(k.clone()).unwrap_or_default(),
                            CString::new(v.clone()).unwrap_or_default(),
                        )
                    })
                    .collect()
            })
            .collect();
        let specs: Vec<Vec<sys::ap_compile_spec>> = spec_text
            .iter()
            .map(|list| {
                list.iter()
                    .map(|(k, v)| sys::ap_compile_spec {
                        key: k.as_ptr(),
                        value: v.as_ptr(),
                    })
                    .collect()
            })
            .collect();
        let delegates = own
            .iter()
            .zip(&names)
            .zip(&blobs)
            .zip(&specs)
            .map(|(((d, n), words), specs)| {
                let len = d.blob.as_ref().map_or(0, Vec::len);
                sys::ap_delegate_desc {
                    backend: n.as_ptr(),
                    blob: words.as_ptr().cast(),
                    blob_size: len as u32,
                    specs: if specs.is_empty() {
                        core::ptr::null()
                    } else {
                        specs.as_ptr()
                    },
                    nspecs: specs.len() as u32,
                }
            })
            .collect();
        let kernel_ptrs = kernel_names.iter().map(|n| n.as_ptr()).collect();
        Some(Tables {
            tensors,
            args,
            instructions,
            _names: names,
            _blobs: blobs,
            _spec_text: spec_text,
            _specs: specs,
            _constants: constants,
            delegates,
            _kernel_names: kernel_names,
            kernel_ptrs,
            _dims: dims,
            meta,
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
            kernels: self.kernel_ptrs.as_ptr(),
            nkernels: self.kernel_ptrs.len() as u32,
            inputs: self.inputs.as_ptr(),
            ninputs: self.inputs.len() as u32,
            outputs: self.outputs.as_ptr(),
            noutputs: self.outputs.len() as u32,
            meta: self.meta.as_ptr(),
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
    kernel_fns: Vec<*const sys::ap_kernel>,
    args: Vec<sys::ap_buffer>,
    initialized: bool,
}

const EMPTY: sys::ap_buffer = sys::ap_buffer {
    data: core::ptr::null_mut(),
    size: 0,
};

impl Runner {
    /// Checks `tables` against `pools` and initializes every delegate with `backends`; a
    /// program with kernel calls needs [`Runner::with_kernels`].
    ///
    /// # Safety
    /// `tables`, the arenas `pools` point to and the backends must outlive the runner, and no
    /// one else may use the arenas while it runs.
    pub unsafe fn new(
        tables: &Tables,
        pools: &[sys::ap_pool],
        backends: &[*const sys::ap_backend],
    ) -> Result<Runner, RuntimeError> {
        // SAFETY: the caller's promise, passed on.
        unsafe { Self::with_kernels(tables, pools, backends, &[]) }
    }

    /// [`Runner::new`] that also resolves the tables' kernel calls, by operator name, among
    /// `kernels` (`AP_ERR_KERNEL_NOT_FOUND` for one missing).
    ///
    /// # Safety
    /// As for [`Runner::new`], and the kernels must outlive the runner too.
    pub unsafe fn with_kernels(
        tables: &Tables,
        pools: &[sys::ap_pool],
        backends: &[*const sys::ap_backend],
        kernels: &[sys::ap_kernel],
    ) -> Result<Runner, RuntimeError> {
        let (nvalues, ndelegates) = tables.counts();
        let nkernels = tables.kernel_ptrs.len();
        let mut r = Runner {
            program: std::boxed::Box::new(tables.program()),
            // SAFETY: ap_method is plain data; all zeros is its "not initialized" state.
            method: std::boxed::Box::new(unsafe { core::mem::zeroed() }),
            values: std::vec![EMPTY; nvalues],
            handles: std::vec![sys::ap_handle { u: sys::ap_handle__bindgen_ty_1 { align_u64: 0 } }; ndelegates],
            resolved: std::vec![core::ptr::null(); ndelegates],
            kernel_fns: std::vec![core::ptr::null(); nkernels],
            args: std::vec![EMPTY; tables.longest_call()],
            initialized: false,
        };
        let memory = sys::ap_method_memory {
            values: r.values.as_mut_ptr(),
            nvalues,
            handles: r.handles.as_mut_ptr(),
            delegate_backends: r.resolved.as_mut_ptr(),
            nhandles: ndelegates,
            kernel_fns: r.kernel_fns.as_mut_ptr(),
            nkernel_fns: nkernels,
            args: r.args.as_mut_ptr(),
            nargs: r.args.len(),
            temp: core::ptr::null_mut(),
            temp_size: 0,
        };
        // SAFETY: the storage lives in `r`; the caller vouches for tables, pools, backends
        // and kernels.
        check(unsafe {
            sys::ap_method_init(
                &mut *r.method,
                &*r.program,
                pools.as_ptr(),
                pools.len(),
                backends.as_ptr(),
                backends.len(),
                kernels.as_ptr(),
                kernels.len(),
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
        if b.data.is_null() || b.size == 0 {
            return Ok(&mut []); // a value of no bytes has no memory
        }
        Ok(unsafe { core::slice::from_raw_parts_mut(b.data, b.size) })
    }

    /// Output `i`, in its arena.
    pub fn output(&mut self, i: usize) -> Result<&[u8], RuntimeError> {
        let mut b = EMPTY;
        // SAFETY: as for `input`.
        check(unsafe { sys::ap_method_output(&mut *self.method, i, &mut b) })?;
        if b.data.is_null() || b.size == 0 {
            return Ok(&[]); // a value of no bytes has no memory
        }
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
