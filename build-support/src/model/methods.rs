//! Programs with several entry points (an ExecuTorch program's methods) as one program.
//!
//! The methods' instructions are laid end to end, so the planner sees one timeline: a method's
//! values are alive only while it runs, so methods share memory with each other as arms of a
//! branch do (one method runs at a time). A value the methods share — state, such as a cache
//! one method writes and another reads — is one value, alive over the whole timeline, so
//! nothing else is ever placed over it and it keeps its contents from one run to the next.

use std::collections::BTreeMap;
use std::ops::Range;

use super::{Instruction, Program, SourcePlan, ValueId};

/// One entry point of a program with several.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Method {
    /// Its name (ExecuTorch's method name, e.g. `forward`).
    pub name: String,
    /// Values its caller provides.
    pub inputs: Vec<ValueId>,
    /// Values its caller reads back.
    pub outputs: Vec<ValueId>,
    /// Its top-level instructions in the program's `body`.
    pub body: Range<usize>,
    /// Its delegates in the program's `delegates`.
    pub delegates: Range<usize>,
}

impl Program {
    /// One program running `methods`, each a program of its own (each method's own `state`
    /// stays state). `state(m, method, v)` names
    /// method `m`'s values that are state shared between methods (the same name in two methods is one
    /// value); every other value, delegate and instruction is the method's own. Value and
    /// delegate names get their method's name in front (`forward.v3`); a state value is named
    /// by its key.
    ///
    /// ```
    /// use arenaplan_build::model::{DType, Program, Value};
    /// let method = |name: &str| {
    ///     let mut p = Program::new(name);
    ///     let x = p.add_value(Value::planned("x", DType::Int8, vec![4]));
    ///     let cache = p.add_value(Value::planned("cache", DType::Int8, vec![64]));
    ///     p.inputs = vec![x];
    ///     p.outputs = vec![cache];
    ///     p
    /// };
    /// let joined = Program::join_methods(
    ///     "model",
    ///     vec![("forward".into(), method("f")), ("update".into(), method("u"))],
    ///     |_, p, v| (p.values[v].name == "cache").then(|| "cache".to_owned()),
    /// );
    /// assert_eq!(joined.values.len(), 3); // two inputs, one shared cache
    /// assert_eq!(joined.state, vec![1]);
    /// assert_eq!(joined.methods[1].outputs, vec![1]);
    /// ```
    pub fn join_methods(
        name: &str,
        methods: Vec<(String, Program)>,
        state: impl Fn(usize, &Program, ValueId) -> Option<String>,
    ) -> Program {
        let mut joined = Program::new(name);
        let mut keys: BTreeMap<String, ValueId> = BTreeMap::new();
        let mut plans: Vec<(Vec<ValueId>, Option<SourcePlan>)> = Vec::new();
        for (m, (method_name, program)) in methods.into_iter().enumerate() {
            let mut remap = Vec::with_capacity(program.values.len());
            for (v, value) in program.values.iter().enumerate() {
                let id = match state(m, &program, v) {
                    Some(key) if keys.contains_key(&key) => {
                        let id = keys[&key];
                        // Initial contents from whichever method gives them.
                        if joined.values[id].data.is_none() {
                            joined.values[id].data = value.data.clone();
                        }
                        id
                    }
                    Some(key) => *keys.entry(key.clone()).or_insert_with(|| {
                        let mut shared = value.clone();
                        shared.name = key;
                        // A file's memory id for shared state names the extra buffer
                        // ExecuTorch appends for it, not a memory: the target's default pool
                        // holds it unless a declaration says otherwise.
                        shared.pool = None;
                        joined.state.push(joined.values.len());
                        joined.add_value(shared)
                    }),
                    None => {
                        let mut own = value.clone();
                        own.name = format!("{method_name}.{}", value.name);
                        joined.add_value(own)
                    }
                };
                remap.push(id);
            }
            joined
                .views
                .extend(program.views.iter().map(|w| super::View {
                    value: remap[w.value],
                    viewed: remap[w.viewed],
                }));
            // The method's own state stays state (kept between its runs).
            for &v in &program.state {
                if !joined.state.contains(&remap[v]) {
                    joined.state.push(remap[v]);
                }
            }
            let first_delegate = joined.delegates.len();
            for delegate in &program.delegates {
                let mut own = delegate.clone();
                own.name = format!("{method_name}.{}", delegate.name);
                joined.delegates.push(own);
            }
            let start = joined.body.len();
            let mut body = program.body;
            for instruction in &mut body {
                renumber(instruction, &remap, first_delegate);
            }
            joined.body.extend(body);
            joined.methods.push(Method {
                name: method_name,
                inputs: program.inputs.iter().map(|&v| remap[v]).collect(),
                outputs: program.outputs.iter().map(|&v| remap[v]).collect(),
                body: start..joined.body.len(),
                delegates: first_delegate..joined.delegates.len(),
            });
            plans.push((remap, program.source_plan));
        }
        if let Some(first) = joined.methods.first() {
            joined.inputs = first.inputs.clone();
            joined.outputs = first.outputs.clone();
        }
        joined.source_plan = join_source_plans(joined.values.len(), plans);
        joined
    }

    /// Method `k`'s instructions as flat indices ([`Program::flat_instructions`]).
    pub fn method_flat_range(&self, k: usize) -> Range<usize> {
        let starts = self.top_level_starts();
        match self.methods.get(k) {
            Some(m) => starts[m.body.start]..starts[m.body.end],
            None => 0..0,
        }
    }

    /// The flat index of each top-level instruction, then the count of all instructions.
    pub fn top_level_starts(&self) -> Vec<usize> {
        fn count(instruction: &Instruction) -> usize {
            match instruction {
                Instruction::Branch(b) => 1 + b.arms.iter().flatten().map(count).sum::<usize>(),
                _ => 1,
            }
        }
        let mut starts = Vec::with_capacity(self.body.len() + 1);
        let mut at = 0;
        for instruction in &self.body {
            starts.push(at);
            at += count(instruction);
        }
        starts.push(at);
        starts
    }
}

/// Renumbers an instruction's values through `remap` and its delegate by `first_delegate`.
fn renumber(instruction: &mut Instruction, remap: &[ValueId], first_delegate: usize) {
    instruction.for_each_value_mut(|v| *v = remap[*v]);
    match instruction {
        Instruction::Delegate(d) => d.delegate += first_delegate,
        Instruction::Branch(b) => {
            for arm in &mut b.arms {
                for i in arm {
                    renumber(i, remap, first_delegate);
                }
            }
        }
        Instruction::Kernel(_) => {}
    }
}

/// The files' own plans side by side: each value's place as its method's file gave it, and per
/// planned buffer the largest any method needs (methods run one at a time).
fn join_source_plans(
    values: usize,
    plans: Vec<(Vec<ValueId>, Option<SourcePlan>)>,
) -> Option<SourcePlan> {
    if plans.iter().all(|(_, p)| p.is_none()) {
        return None;
    }
    let mut joined = SourcePlan {
        buffer_sizes: Vec::new(),
        offsets: vec![None; values],
    };
    for (remap, plan) in plans {
        let Some(plan) = plan else { continue };
        for (k, &size) in plan.buffer_sizes.iter().enumerate() {
            if k >= joined.buffer_sizes.len() {
                joined.buffer_sizes.push(size);
            } else {
                joined.buffer_sizes[k] = joined.buffer_sizes[k].max(size);
            }
        }
        for (v, offset) in plan.offsets.into_iter().enumerate() {
            if let Some(&id) = remap.get(v) {
                joined.offsets[id] = joined.offsets[id].or(offset);
            }
        }
    }
    Some(joined)
}
