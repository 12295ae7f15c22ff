//! Instructions: kernel calls, delegate calls and branches, each call's flat argument list
//! (inputs, outputs, then scratch).

use super::{DelegateId, ScratchByIsa, ValueId};

/// One step of the program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Instruction {
    /// A CPU kernel.
    Kernel(KernelCall),
    /// A call into a delegate's compiled partition.
    Delegate(DelegateCall),
    /// Control flow: exactly one arm runs, chosen by `predicate`.
    Branch(Branch),
}

/// A CPU kernel call. Its argument list is `inputs ++ outputs ++ scratch`, like a delegate
/// call's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelCall {
    /// The operator, e.g. `aten::add.out`.
    pub op: String,
    /// Values read.
    pub inputs: Vec<ValueId>,
    /// Values written.
    pub outputs: Vec<ValueId>,
    /// Scratch buffers the scratch pass appended, in the order the kernel's `#[kernel]`
    /// declares them (none for a kernel that declares none).
    pub scratch: Vec<ValueId>,
    /// The scratch this call's kernel library needs, computed from the model's shapes (a
    /// TFLite operator on CMSIS-NN): one buffer, planned in the target's `cpu_scratch` pool
    /// with the size for the target's instruction set, unless a `#[kernel]` declaration for
    /// the operator says otherwise. `None`: the kernel needs none of its own.
    pub scratch_need: Option<ScratchByIsa>,
    /// The library scratch this call runs without: the pipeline chose its slower scratch-free
    /// variant (same output bytes) because the scratch would have made the arena larger
    /// ([`KernelVariants`](crate::pipeline::KernelVariants)). Kept so the report can say which
    /// calls run slower, and by how much memory they would run faster.
    pub scratch_free: Option<DroppedScratch>,
}

/// The library scratch a kernel call runs without ([`KernelCall::scratch_free`]): what its fast
/// variant would need on the instruction set the plan is for.
///
/// ```
/// use arenaplan_build::model::DroppedScratch;
/// let d = DroppedScratch { bytes: 1152, function: "arm_convolve_wrapper_s8_get_buffer_size_mve".into() };
/// assert_eq!(d.bytes, 1152);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DroppedScratch {
    /// Its bytes.
    pub bytes: u64,
    /// The library function that sizes it, with the variant's suffix.
    pub function: String,
}

impl KernelCall {
    /// A call of `op` without scratch (the scratch pass adds what its kernel declares).
    pub fn new(op: impl Into<String>, inputs: Vec<ValueId>, outputs: Vec<ValueId>) -> Self {
        KernelCall {
            op: op.into(),
            inputs,
            outputs,
            scratch: Vec::new(),
            scratch_need: None,
            scratch_free: None,
        }
    }

    /// The flat argument list the runtime hands the kernel.
    pub fn args(&self) -> impl Iterator<Item = ValueId> + '_ {
        flat_args(&self.inputs, &self.outputs, &self.scratch)
    }
}

/// A call's flat argument list: inputs, outputs, then scratch (the runtime's contract).
fn flat_args<'a>(
    inputs: &'a [ValueId],
    outputs: &'a [ValueId],
    scratch: &'a [ValueId],
) -> impl Iterator<Item = ValueId> + 'a {
    inputs.iter().chain(outputs).chain(scratch).copied()
}

/// A delegate call. Its argument list is `inputs ++ outputs ++ scratch`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DelegateCall {
    /// The delegate it runs.
    pub delegate: DelegateId,
    /// Values read.
    pub inputs: Vec<ValueId>,
    /// Values written.
    pub outputs: Vec<ValueId>,
    /// Scratch buffers appended by the scratch pass: by role slot for a backend with slots,
    /// else in declaration order. A slot the call does not need holds an empty value.
    pub scratch: Vec<ValueId>,
}

impl DelegateCall {
    /// The flat argument list the runtime hands the backend.
    pub fn args(&self) -> impl Iterator<Item = ValueId> + '_ {
        flat_args(&self.inputs, &self.outputs, &self.scratch)
    }
}

/// Control flow with nested sub-graphs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Branch {
    /// The value that selects the arm.
    pub predicate: ValueId,
    /// The arms; exactly one runs.
    pub arms: Vec<Vec<Instruction>>,
}

impl Instruction {
    /// Applies `f` to every value id this instruction itself names (not those of nested
    /// arms): a call's inputs, outputs and scratch, a branch's predicate. For renumbering.
    ///
    /// ```
    /// use arenaplan_build::model::{Instruction, KernelCall};
    /// let mut i = Instruction::Kernel(KernelCall::new("relu", vec![0], vec![1]));
    /// i.for_each_value_mut(|v| *v += 10);
    /// assert_eq!(i.touched(), [10, 11]);
    /// ```
    pub fn for_each_value_mut(&mut self, mut f: impl FnMut(&mut ValueId)) {
        match self {
            Instruction::Kernel(k) => k
                .inputs
                .iter_mut()
                .chain(&mut k.outputs)
                .chain(&mut k.scratch)
                .for_each(f),
            Instruction::Delegate(d) => d
                .inputs
                .iter_mut()
                .chain(&mut d.outputs)
                .chain(&mut d.scratch)
                .for_each(f),
            Instruction::Branch(b) => f(&mut b.predicate),
        }
    }

    /// Values this instruction itself reads or writes (not those of nested arms).
    pub fn touched(&self) -> Vec<ValueId> {
        match self {
            Instruction::Kernel(k) => k.args().collect(),
            Instruction::Delegate(d) => d.args().collect(),
            Instruction::Branch(b) => vec![b.predicate],
        }
    }
}
