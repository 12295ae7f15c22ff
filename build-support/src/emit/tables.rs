//! The runtime's program tables (an `ap_program_t` from `arenaplan/runtime.h` and everything
//! it points to) as plain data, worked out once from a planned program. Two renderers
//! translate it and decide nothing: `emit/program.rs` writes it as C for firmware's
//! `NAME_program.c`, and `arenaplan-host` builds the runtime's structs from it to run the
//! program on the host. Every choice (where each value's bytes are, which kernels in which
//! order, each instruction's kind, index and argument list, which compile specs a delegate
//! gets, which part of the tables each method runs) is made here, so a new field is one edit
//! here and one translation in each renderer.
//!
//! ```
//! use arenaplan_build::tables::{Arguments, Operation, ProgramTables, ValueMemory};
//! use arenaplan_build::model::{DType, Instruction, KernelCall, Program, Value};
//! use arenaplan_build::pipeline::Pipeline;
//! use arenaplan_build::targets::Catalogue;
//! let mut p = Program::new("m");
//! let x = p.add_value(Value::planned("x", DType::Float32, vec![4]));
//! let y = p.add_value(Value::planned("y", DType::Float32, vec![4]));
//! p.inputs = vec![x];
//! p.outputs = vec![y];
//! p.body.push(Instruction::Kernel(KernelCall::new("aten::relu.out", vec![x], vec![y])));
//! let catalogue = Catalogue::builtin();
//! let (p, plan) = Pipeline::new(catalogue.target("corstone-300").unwrap()).run(p).unwrap();
//! let tables = ProgramTables::new(&p, &plan).unwrap();
//! assert!(matches!(tables.values[y], ValueMemory::Planned { size: 16, .. }));
//! assert_eq!(tables.kernels, ["aten::relu.out"]);
//! let call = &tables.instructions[0];
//! assert_eq!((call.operation, call.arguments), (Operation::Kernel(0), Arguments::Call(0)));
//! assert_eq!(tables.arguments(call), [x, y]);
//! assert_eq!(tables.methods[0].steps, 0..1);
//! ```

use std::ops::Range;

use crate::model::{Instruction, Program, ValueId, ValueKind};
use crate::pipeline::{steps, BranchError, ConstantLayout, ModelPlan, Step, ValueMetas, OWN_SPECS};

/// Where a value's bytes are at run time: its `ap_tensor_desc_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueMemory {
    /// Planned: `size` bytes at `offset` in the arena of pool `mem_id`.
    Planned {
        /// The pool.
        mem_id: u32,
        /// Bytes from the arena's start.
        offset: u64,
        /// Its bytes.
        size: u64,
    },
    /// A constant in flash: array `array` of [`ProgramTables::constants`], `size` bytes.
    Constant {
        /// Its array.
        array: usize,
        /// Its bytes (the array's).
        size: u64,
    },
    /// A scratch argument that holds a role's place without memory: the backend gets NULL,
    /// 0 bytes.
    EmptySlot,
    /// No memory: nothing planned it (a value no call passes, or one the model leaves
    /// unplanned).
    Unplanned,
}

/// One array of constant bytes in flash, which one or more values read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstantArray<'a> {
    /// The values that read it (the first one's data are its bytes).
    pub values: Vec<ValueId>,
    /// Its alignment in bytes.
    pub align: u64,
    /// Its bytes.
    pub bytes: &'a [u8],
}

/// One delegate: its `ap_delegate_desc_t`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelegateTable<'a> {
    /// The backend id the runtime resolves it against.
    pub backend: &'a str,
    /// Its blob, if the model carries one.
    pub blob: Option<&'a [u8]>,
    /// The compile specs the build made for its backend (`arenaplan.*`, such as Neutron's
    /// transpositions), in key order: a model's own specs stay out (no backend reads them).
    pub specs: Vec<(&'a str, &'a str)>,
}

/// What an instruction does, with its index as the runtime reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// `AP_INSTR_KERNEL`: kernel `k` of [`ProgramTables::kernels`].
    Kernel(usize),
    /// `AP_INSTR_DELEGATE`: delegate `d` of its method's (counted from the method's first).
    Delegate(usize),
    /// `AP_INSTR_JUMP_FALSE`: continue at instruction `to` of its method when the predicate
    /// is false.
    JumpFalse(usize),
    /// `AP_INSTR_JUMP`: continue at instruction `to` of its method.
    Jump(usize),
}

/// An instruction's argument list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arguments {
    /// Call `k`'s of [`ProgramTables::calls`].
    Call(usize),
    /// A jump's predicate, its one argument; `step` is the jump's position in
    /// [`ProgramTables::instructions`].
    Predicate {
        /// The jump's position.
        step: usize,
        /// The predicate.
        value: ValueId,
    },
    /// None (an unconditional jump).
    Nothing,
}

/// One entry of the instruction table: an `ap_instruction_t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InstructionTable {
    /// What it does.
    pub operation: Operation,
    /// Its arguments: [`ProgramTables::arguments`].
    pub arguments: Arguments,
    /// How many of its arguments are inputs.
    pub inputs: usize,
    /// How many are outputs (the rest are scratch).
    pub outputs: usize,
    /// The flat instruction index it stands for (a jump: its branch's), which a failure names.
    pub flat: usize,
}

/// The argument list of one call, as the plan lists the calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallArguments {
    /// The call's flat instruction index.
    pub flat: usize,
    /// Value ids: inputs, outputs, then scratch.
    pub args: Vec<ValueId>,
}

/// One method's part of the tables (the whole program for a program with one method): every
/// method runs over all values, all kernels and one argument list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MethodTable<'a> {
    /// Its name in the file (`forward`), or `None` for a program with one method.
    pub name: Option<&'a str>,
    /// Its instructions: positions in [`ProgramTables::instructions`].
    pub steps: Range<usize>,
    /// Its delegates: positions in [`ProgramTables::delegates`].
    pub delegates: Range<usize>,
    /// Values its caller writes.
    pub inputs: Vec<ValueId>,
    /// Values its caller reads back.
    pub outputs: Vec<ValueId>,
}

/// The runtime's tables of one planned program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProgramTables<'a> {
    /// Where each value's bytes are, by value id.
    pub values: Vec<ValueMemory>,
    /// What each value is (`ap_value_meta_t`), with one dimensions array per distinct shape.
    pub meta: ValueMetas,
    /// The constant arrays in flash.
    pub constants: Vec<ConstantArray<'a>>,
    /// Every delegate, in program order (each method's a contiguous run).
    pub delegates: Vec<DelegateTable<'a>>,
    /// Kernels by operator name, in order of first use in the program.
    pub kernels: Vec<&'a str>,
    /// Each call's argument list, in the plan's order.
    pub calls: Vec<CallArguments>,
    /// The instruction table: calls in execution order, branches as jumps, each method's a
    /// contiguous run.
    pub instructions: Vec<InstructionTable>,
    /// The methods (one for a program with one method).
    pub methods: Vec<MethodTable<'a>>,
}

/// A program the runtime's tables cannot describe.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TablesError {
    /// A branch the runtime cannot run.
    #[error(transparent)]
    Branch(#[from] BranchError),
    /// A call the plan lists at an instruction that calls nothing.
    #[error("the plan lists a call at instruction {instruction}, which is not a kernel or delegate call")]
    NotACall {
        /// Its flat index.
        instruction: usize,
    },
    /// A method's call of a delegate that is not among its own.
    #[error("instruction {instruction} calls delegate {delegate}, which is not its method's")]
    ForeignDelegate {
        /// Its flat index.
        instruction: usize,
        /// The delegate.
        delegate: usize,
    },
}

impl<'a> ProgramTables<'a> {
    /// The tables of `program` as `plan` placed it.
    pub fn new(program: &'a Program, plan: &ModelPlan) -> Result<Self, TablesError> {
        let layout = ConstantLayout::new(program);
        let values = (0..program.values.len())
            .map(|v| match (plan.buffer(v), layout.of(v)) {
                (Some(b), _) => ValueMemory::Planned {
                    mem_id: b.mem_id,
                    offset: b.offset,
                    size: b.size,
                },
                (None, Some(array)) => ValueMemory::Constant {
                    array,
                    size: layout.arrays[array].len,
                },
                (None, None) if is_empty_slot(program, v) => ValueMemory::EmptySlot,
                (None, None) => ValueMemory::Unplanned,
            })
            .collect();
        let constants = layout
            .arrays
            .iter()
            .map(|a| ConstantArray {
                values: a.values.clone(),
                align: a.align,
                bytes: program.values[a.values[0]]
                    .data
                    .as_ref()
                    .map_or(&[][..], |d| d.bytes()),
            })
            .collect();
        let delegates = program
            .delegates
            .iter()
            .map(|d| DelegateTable {
                backend: &d.backend,
                blob: d.blob.as_deref(),
                specs: d
                    .compile_specs
                    .iter()
                    .filter(|(k, _)| k.starts_with(OWN_SPECS))
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect(),
            })
            .collect();
        let flat = program.flat_instructions();
        let mut kernels: Vec<&'a str> = Vec::new();
        for (_, instruction) in &flat {
            if let Instruction::Kernel(k) = instruction {
                if !kernels.contains(&k.op.as_str()) {
                    kernels.push(&k.op);
                }
            }
        }
        let calls = plan
            .calls
            .iter()
            .map(|c| CallArguments {
                flat: c.index,
                args: c.args.clone(),
            })
            .collect();
        let table = steps(program, plan)?;
        let methods = methods(program, &table.flat);
        // Each step's method: its jumps and delegates count from that method's first.
        let mut method_of = vec![None; table.steps.len()];
        for (m, method) in methods.iter().enumerate() {
            for position in method.steps.clone() {
                method_of[position] = Some(m);
            }
        }
        let mut instructions = Vec::with_capacity(table.steps.len());
        for (position, step) in table.steps.iter().enumerate() {
            // A jump lies in its branch's method and jumps forward: `to - first` cannot wrap.
            let (first, delegates) = match method_of[position] {
                Some(m) => (methods[m].steps.start, methods[m].delegates.start),
                None => (0, 0),
            };
            let at = table.flat[position];
            instructions.push(match *step {
                Step::Call(i) => {
                    let c = &plan.calls[i];
                    let operation = match flat.get(c.index).map(|(_, ins)| ins) {
                        Some(Instruction::Kernel(k)) => Operation::Kernel(
                            kernels.iter().position(|op| *op == k.op).unwrap_or(0),
                        ),
                        Some(Instruction::Delegate(d)) => {
                            Operation::Delegate(d.delegate.checked_sub(delegates).ok_or(
                                TablesError::ForeignDelegate {
                                    instruction: c.index,
                                    delegate: d.delegate,
                                },
                            )?)
                        }
                        _ => {
                            return Err(TablesError::NotACall {
                                instruction: c.index,
                            })
                        }
                    };
                    InstructionTable {
                        operation,
                        arguments: Arguments::Call(i),
                        inputs: c.inputs,
                        outputs: c.outputs,
                        flat: at,
                    }
                }
                Step::JumpFalse { predicate, to } => InstructionTable {
                    operation: Operation::JumpFalse(to - first),
                    arguments: Arguments::Predicate {
                        step: position,
                        value: predicate,
                    },
                    inputs: 1,
                    outputs: 0,
                    flat: at,
                },
                Step::Jump { to } => InstructionTable {
                    operation: Operation::Jump(to - first),
                    arguments: Arguments::Nothing,
                    inputs: 0,
                    outputs: 0,
                    flat: at,
                },
            });
        }
        Ok(ProgramTables {
            values,
            meta: ValueMetas::new(program, plan),
            constants,
            delegates,
            kernels,
            calls,
            instructions,
            methods,
        })
    }

    /// The value ids instruction `instruction` passes (none for a jump, the predicate for a
    /// conditional one).
    pub fn arguments<'s>(&'s self, instruction: &'s InstructionTable) -> &'s [ValueId] {
        match &instruction.arguments {
            Arguments::Call(k) => self.calls.get(*k).map_or(&[], |c| &c.args),
            Arguments::Predicate { value, .. } => std::slice::from_ref(value),
            Arguments::Nothing => &[],
        }
    }

    /// Whether any instruction is a jump (the program has a branch).
    pub fn has_jumps(&self) -> bool {
        self.instructions
            .iter()
            .any(|i| matches!(i.operation, Operation::JumpFalse(_) | Operation::Jump(_)))
    }

    /// The longest argument list of any call (the one list every method's calls share).
    pub fn longest_call(&self) -> usize {
        self.calls.iter().map(|c| c.args.len()).max().unwrap_or(0)
    }
}

/// A scratch argument that holds a role's place without memory.
fn is_empty_slot(program: &Program, v: ValueId) -> bool {
    let value = &program.values[v];
    matches!(value.kind, ValueKind::Scratch { .. }) && value.bytes == 0
}

/// Each method's part of the instruction table (`flat`: each step's flat instruction), of the
/// delegates and of the values (one method for a program with one).
fn methods<'a>(program: &'a Program, flat: &[usize]) -> Vec<MethodTable<'a>> {
    if program.methods.is_empty() {
        return vec![MethodTable {
            name: None,
            steps: 0..flat.len(),
            delegates: 0..program.delegates.len(),
            inputs: program.inputs.clone(),
            outputs: program.outputs.clone(),
        }];
    }
    program
        .methods
        .iter()
        .enumerate()
        .map(|(k, m)| {
            let calls = program.method_flat_range(k);
            MethodTable {
                name: Some(&m.name),
                steps: flat.partition_point(|&f| f < calls.start)
                    ..flat.partition_point(|&f| f < calls.end),
                delegates: m.delegates.clone(),
                inputs: m.inputs.clone(),
                outputs: m.outputs.clone(),
            }
        })
        .collect()
}
