//! The runtime's tables for one planned program, owned on the host.

use std::ffi::CString;
use std::vec::Vec;

use arenaplan::sys;
use arenaplan_build::model::{Instruction, Program};
use arenaplan_build::pipeline::{steps, ConstantLayout, Step, ValueMetas};
use arenaplan_build::ModelPlan;

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

    /// Number of kernels the calls name (what a runner resolves).
    pub(crate) fn kernel_count(&self) -> usize {
        self.kernel_ptrs.len()
    }
}
