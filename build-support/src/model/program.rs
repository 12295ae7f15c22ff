//! A program: its values, instructions (with nested control flow), delegates and methods, and
//! the plan its exporter made.

use super::{Delegate, Instruction, Value, ValueId, ValueKind};

/// A model: what the planner and the emitters work on.
///
/// ```
/// use arenaplan_build::model::{DType, Instruction, KernelCall, Program, Value};
/// let mut p = Program::new("tiny");
/// let x = p.add_value(Value::planned("x", DType::Int8, vec![1, 16]));
/// let y = p.add_value(Value::planned("y", DType::Int8, vec![1, 16]));
/// p.inputs = vec![x];
/// p.outputs = vec![y];
/// p.body.push(Instruction::Kernel(KernelCall::new("relu", vec![x], vec![y])));
/// assert_eq!(p.values[y].bytes, 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The model's name (used for generated file names unless overridden).
    pub name: String,
    /// Every tensor.
    pub values: Vec<Value>,
    /// Delegated partitions.
    pub delegates: Vec<Delegate>,
    /// The instructions, in execution order.
    pub body: Vec<Instruction>,
    /// Values the caller provides.
    pub inputs: Vec<ValueId>,
    /// Values the caller reads back.
    pub outputs: Vec<ValueId>,
    /// The memory plan the file itself carries, kept for comparison (ours replaces it).
    pub source_plan: Option<SourcePlan>,
    /// The entry points of a program with several (an ExecuTorch program's methods), each a
    /// run of top-level instructions of `body`; empty for a program with one, which `body`,
    /// `inputs` and `outputs` describe. With methods, `inputs` and `outputs` are the first's.
    pub methods: Vec<super::Method>,
    /// Values kept between runs (state shared between methods): placed for the whole program,
    /// so nothing else ever shares their memory.
    pub state: Vec<ValueId>,
    /// The name of a program's one entry point, when the file names it (an ExecuTorch
    /// program's only method, usually `forward`); `None` otherwise. A program with several
    /// names each in [`Program::methods`].
    pub entry_name: Option<String>,
    /// Values with no bytes of their own: each lies over the value it views (ExecuTorch's
    /// static view or reshape, which it emits without an instruction), which is kept alive for
    /// as long as the view is read.
    pub views: Vec<View>,
}

/// A value that lies over another's bytes ([`Program::views`]): the same place, another shape.
/// Nothing writes it; it reads whatever its viewed value holds.
///
/// ```
/// use arenaplan_build::model::{DType, Program, Value, View};
/// let mut p = Program::new("reshape");
/// let x = p.add_value(Value::planned("x", DType::Float32, vec![2, 3]));
/// let flat = p.add_value(Value::planned("flat", DType::Float32, vec![6]));
/// p.views.push(View { value: flat, viewed: x });
/// assert_eq!(p.viewed(flat), Some(x));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct View {
    /// The view.
    pub value: ValueId,
    /// The value whose bytes it is.
    pub viewed: ValueId,
}

/// A plan found in an imported file: ExecuTorch's own memory plan, or TFLite's offline plan.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct SourcePlan {
    /// Per planned buffer index (ExecuTorch `non_const_buffer_sizes`; index 0 reserved).
    pub buffer_sizes: Vec<u64>,
    /// Per value: (mem_id, offset) where the file places it.
    pub offsets: Vec<Option<(i64, u64)>>,
}

impl SourcePlan {
    /// The bytes the file's own plan provisions, given each value's bytes (in value order, as
    /// [`Program::source_arena`] passes them): its buffers' sizes (ExecuTorch), or else the end
    /// of the last value it places (TFLite's `OfflineMemoryAllocation`, which Vela writes: one
    /// arena).
    ///
    /// ```
    /// use arenaplan_build::model::SourcePlan;
    /// let plan = SourcePlan { buffer_sizes: vec![], offsets: vec![Some((1, 0)), Some((1, 64))] };
    /// assert_eq!(plan.arena(&[48, 16]), 80);
    /// ```
    pub fn arena(&self, value_bytes: &[u64]) -> u64 {
        if !self.buffer_sizes.is_empty() {
            return self.buffer_sizes.iter().sum();
        }
        self.offsets
            .iter()
            .zip(value_bytes)
            .filter_map(|(o, &bytes)| o.map(|(_, offset)| offset.saturating_add(bytes)))
            .max()
            .unwrap_or(0)
    }
}

/// What a value a model leaves without memory ([`ValueKind::Unmanaged`]) can be, for messages
/// that refuse it as a call argument.
pub const UNPLACED: &str =
    "an ExecuTorch tensor list, or an int list with an item known only at run time";

impl Program {
    /// The bytes the file's own memory plan provisions ([`SourcePlan::arena`]), when the file
    /// carries one: the NPU compiler's figure for a Vela `.tflite`, ExecuTorch's for a `.pte`.
    pub fn source_arena(&self) -> Option<u64> {
        let bytes: Vec<u64> = self.values.iter().map(|v| v.bytes).collect();
        self.source_plan.as_ref().map(|plan| plan.arena(&bytes))
    }

    /// An empty program.
    pub fn new(name: impl Into<String>) -> Self {
        Program {
            name: name.into(),
            values: Vec::new(),
            delegates: Vec::new(),
            body: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            source_plan: None,
            methods: Vec::new(),
            state: Vec::new(),
            entry_name: None,
            views: Vec::new(),
        }
    }

    /// The value whose bytes `v` is, when `v` is a view ([`Program::views`]).
    pub fn viewed(&self, v: ValueId) -> Option<ValueId> {
        self.views.iter().find(|w| w.value == v).map(|w| w.viewed)
    }

    /// Adds a value and returns its id.
    pub fn add_value(&mut self, value: Value) -> ValueId {
        self.values.push(value);
        self.values.len() - 1
    }

    /// Every instruction with its flat index, in execution order (an arm's instructions follow
    /// the branch that runs them).
    pub fn flat_instructions(&self) -> Vec<(usize, &Instruction)> {
        fn walk<'a>(body: &'a [Instruction], out: &mut Vec<(usize, &'a Instruction)>) {
            for instruction in body {
                out.push((out.len(), instruction));
                if let Instruction::Branch(b) = instruction {
                    for arm in &b.arms {
                        walk(arm, out);
                    }
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.body, &mut out);
        out
    }

    /// The first call argument with no memory (see [`UNPLACED`]) the runtime could pass (a value the file leaves
    /// unplanned, such as a TFLite variable tensor): its instruction's flat index and its id.
    /// A branch's predicate counts too.
    pub fn unplaced_argument(&self) -> Option<(usize, ValueId)> {
        self.flat_instructions()
            .into_iter()
            .find_map(|(at, instruction)| {
                instruction
                    .touched()
                    .into_iter()
                    .find(|&v| self.values[v].kind == ValueKind::Unmanaged)
                    .map(|v| (at, v))
            })
    }

    /// Removes the values `remove` marks (indexed by value id) and renumbers every reference
    /// to the others: inputs, outputs, every call's arguments, branch predicates. References
    /// to a removed value are dropped (a removed predicate keeps its old id; remove none).
    pub fn remove_values(&mut self, remove: &[bool]) {
        let mut remap: Vec<Option<ValueId>> = Vec::with_capacity(self.values.len());
        let mut kept = 0;
        for v in 0..self.values.len() {
            if remove.get(v).copied().unwrap_or(false) {
                remap.push(None);
            } else {
                remap.push(Some(kept));
                kept += 1;
            }
        }
        let mut i = 0;
        self.values.retain(|_| {
            i += 1;
            remap[i - 1].is_some()
        });
        let map = |ids: &mut Vec<ValueId>| {
            ids.retain(|&v| remap.get(v).copied().flatten().is_some());
            for v in ids.iter_mut() {
                *v = remap[*v].unwrap_or(*v);
            }
        };
        map(&mut self.inputs);
        map(&mut self.outputs);
        map(&mut self.state);
        for method in &mut self.methods {
            map(&mut method.inputs);
            map(&mut method.outputs);
        }
        // A view goes with either of its values.
        self.views
            .retain_mut(|w| match (remap.get(w.value), remap.get(w.viewed)) {
                (Some(&Some(value)), Some(&Some(viewed))) => {
                    *w = View { value, viewed };
                    true
                }
                _ => false,
            });
        self.for_each_instruction_mut(|_, instruction| match instruction {
            Instruction::Kernel(k) => {
                map(&mut k.inputs);
                map(&mut k.outputs);
                map(&mut k.scratch);
            }
            Instruction::Delegate(d) => {
                map(&mut d.inputs);
                map(&mut d.outputs);
                map(&mut d.scratch);
            }
            Instruction::Branch(b) => {
                b.predicate = remap
                    .get(b.predicate)
                    .copied()
                    .flatten()
                    .unwrap_or(b.predicate);
            }
        });
    }

    /// Applies `f` to every instruction with its flat index, in execution order (a branch
    /// before its arms' instructions, as in [`Program::flat_instructions`]).
    pub fn for_each_instruction_mut(&mut self, mut f: impl FnMut(usize, &mut Instruction)) {
        fn walk(
            body: &mut [Instruction],
            next: &mut usize,
            f: &mut dyn FnMut(usize, &mut Instruction),
        ) {
            for instruction in body {
                let index = *next;
                *next += 1;
                f(index, instruction);
                if let Instruction::Branch(b) = instruction {
                    for arm in &mut b.arms {
                        walk(arm, next, f);
                    }
                }
            }
        }
        walk(&mut self.body, &mut 0, &mut f);
    }
}
