//! The runtime's tables for one planned program, owned on the host: the structs of
//! `arenaplan/runtime.h` built from arenaplan-build's [`ProgramTables`], the one description
//! the generated `NAME_program.c` writes as C. This file only translates: values become
//! `ap_tensor_desc_t`s, instructions `ap_instruction_t`s and so on, with what the runtime's
//! structs point to owned here.

use std::ffi::CString;
use std::vec::Vec;

use arenaplan::sys;
use arenaplan_build::model::Program;
use arenaplan_build::tables::{Operation, ProgramTables, ValueMemory};
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
    /// The dim order arrays `meta` points into.
    _orders: Vec<Vec<u8>>,
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

/// A count or index as the runtime's `uint32_t` (`None` beyond 32 bits).
fn u32_of(n: impl TryInto<u32>) -> Option<u32> {
    n.try_into().ok()
}

/// A pointer to `list`'s first element, NULL for an empty list (as the generated C has it).
fn first_or_null<T>(list: &[T]) -> *const T {
    if list.is_empty() {
        core::ptr::null()
    } else {
        list.as_ptr()
    }
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
        Self::of_method(&ProgramTables::new(program, plan).ok()?, 0)
    }

    /// Tables for method `method` of a program with several (`None` past the last, and as for
    /// [`Tables::new`]): its calls, its delegates, its inputs and outputs, over every value of
    /// the program, so that the methods' tables run over the same arenas — the state they
    /// share among them.
    pub fn method(program: &Program, plan: &ModelPlan, method: usize) -> Option<Tables> {
        program.methods.get(method)?;
        Self::of_method(&ProgramTables::new(program, plan).ok()?, method)
    }

    /// Tables for method `method` of `tables` (0 for a program with one method): `None` past
    /// the last method and for sizes beyond 32 bits.
    pub fn of_method(tables: &ProgramTables<'_>, method: usize) -> Option<Tables> {
        let m = tables.methods.get(method)?;
        let constants: Vec<Vec<u128>> = tables.constants.iter().map(|c| aligned(c.bytes)).collect();
        let tensors = tables
            .values
            .iter()
            .map(|memory| {
                Some(match *memory {
                    ValueMemory::Planned {
                        mem_id,
                        offset,
                        size,
                    } => sys::ap_tensor_desc {
                        mem_id,
                        offset: u32_of(offset)?,
                        size: u32_of(size)?,
                        constant: core::ptr::null(),
                    },
                    ValueMemory::Constant { array, size } => sys::ap_tensor_desc {
                        mem_id: 0,
                        offset: 0,
                        size: u32_of(size)?,
                        constant: constants.get(array)?.as_ptr().cast(),
                    },
                    ValueMemory::EmptySlot | ValueMemory::Unplanned => sys::ap_tensor_desc {
                        mem_id: 0,
                        offset: 0,
                        size: 0,
                        constant: core::ptr::null(),
                    },
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let metas = &tables.meta;
        let dims = metas.shapes.clone();
        let orders = metas.orders.clone();
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
                        .map_or(core::ptr::null(), |k| dims[k].as_ptr()),
                    dim_order: metas
                        .order_of(v)
                        .map_or(core::ptr::null(), |k| orders[k].as_ptr()),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let entries = tables.instructions.get(m.steps.clone())?;
        let args: Vec<Vec<u32>> = entries
            .iter()
            .map(|i| tables.arguments(i).iter().map(|&a| u32_of(a)).collect())
            .collect::<Option<_>>()?;
        let instructions = entries
            .iter()
            .zip(&args)
            .map(|(i, a)| {
                let (kind, index) = match i.operation {
                    Operation::Kernel(k) => (sys::AP_INSTR_KERNEL, k),
                    Operation::Delegate(d) => (sys::AP_INSTR_DELEGATE, d),
                    Operation::JumpFalse(to) => (sys::AP_INSTR_JUMP_FALSE, to),
                    Operation::Jump(to) => (sys::AP_INSTR_JUMP, to),
                };
                Some(sys::ap_instruction {
                    kind,
                    index: u32_of(index)?,
                    args: first_or_null(a),
                    nargs: u32_of(a.len())?,
                    ninputs: u32_of(i.inputs)?,
                    noutputs: u32_of(i.outputs)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let own = tables.delegates.get(m.delegates.clone())?;
        let names: Vec<CString> = own
            .iter()
            .map(|d| CString::new(d.backend).unwrap_or_default())
            .collect();
        // A delegate without a blob gets an empty copy: a pointer to no bytes, size 0.
        let blobs: Vec<Vec<u128>> = own.iter().map(|d| aligned(d.blob.unwrap_or(&[]))).collect();
        // The compile specs the build made, as the generated program has them, but for
        // Neutron's model context: the runner's handles are the runtime's fixed
        // `ap_handle_t`s, so NXP's (simulated) library keeps the context on its heap here.
        let context = sys::AP_NEUTRON_CONTEXT_SPEC
            .strip_suffix(b"\0")
            .unwrap_or(&[]);
        let spec_text: Vec<Vec<(CString, CString)>> = own
            .iter()
            .map(|d| {
                d.specs
                    .iter()
                    .filter(|(k, _)| k.as_bytes() != context)
                    .map(|&(k, v)| {
                        (
                            CString::new(k).unwrap_or_default(),
                            CString::new(v).unwrap_or_default(),
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
                Some(sys::ap_delegate_desc {
                    backend: n.as_ptr(),
                    blob: words.as_ptr().cast(),
                    blob_size: u32_of(d.blob.map_or(0, <[u8]>::len))?,
                    specs: first_or_null(specs),
                    nspecs: u32_of(specs.len())?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let kernel_names: Vec<CString> = tables
            .kernels
            .iter()
            .map(|&k| CString::new(k).ok())
            .collect::<Option<_>>()?;
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
            _orders: orders,
            meta,
            inputs: m.inputs.iter().map(|&v| u32_of(v)).collect::<Option<_>>()?,
            outputs: m
                .outputs
                .iter()
                .map(|&v| u32_of(v))
                .collect::<Option<_>>()?,
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
