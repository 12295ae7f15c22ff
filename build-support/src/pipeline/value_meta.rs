//! The runtime's value table (`ap_value_meta_t`, one entry per value) and the dimension arrays
//! it points to, one per distinct shape: what the generated program, the host runner and the
//! report's size figures all lay out the same way.

use crate::model::{EValue, Program};

use super::{ConstantLayout, ModelPlan};

/// Each value's entry, and the distinct shapes they use.
///
/// ```
/// use arenaplan_build::model::{DType, EValue, Instruction, KernelCall, Program, Value};
/// use arenaplan_build::pipeline::{Pipeline, ValueMetas};
/// use arenaplan_build::targets::Catalogue;
/// let mut p = Program::new("m");
/// let x = p.add_value(Value::planned("x", DType::Float32, vec![2, 3]));
/// let y = p.add_value(Value::planned("y", DType::Float32, vec![2, 3]));
/// p.inputs = vec![x];
/// p.outputs = vec![y];
/// p.body.push(Instruction::Kernel(KernelCall::new("aten::relu.out", vec![x], vec![y])));
/// let catalogue = Catalogue::builtin();
/// let target = catalogue.target("corstone-300").unwrap();
/// let (p, plan) = Pipeline::new(target).run(p).unwrap();
/// let metas = ValueMetas::new(&p, &plan);
/// assert_eq!(metas.entries[x], (EValue::Tensor, 6, vec![2, 3])); // float32 [2, 3]
/// assert_eq!(metas.shapes, [vec![2, 3]]); // one array for both
/// assert_eq!(metas.shape_of(y), Some(0));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValueMetas {
    /// Per value: its kind, ScalarType code and dimensions ([`crate::model::Value::runtime_meta`]).
    pub entries: Vec<(EValue, u8, Vec<u32>)>,
    /// The distinct non-empty shapes, in order of first use: one dimensions array each.
    pub shapes: Vec<Vec<u32>>,
}

impl ValueMetas {
    /// The table for `program` as `plan` placed it: a value has memory when the plan places
    /// it or it is a constant with bytes in flash.
    pub fn new(program: &Program, plan: &ModelPlan) -> Self {
        let constants = ConstantLayout::new(program);
        let entries: Vec<_> = (0..program.values.len())
            .map(|v| {
                let memory = plan.buffer(v).is_some() || constants.of(v).is_some();
                program.values[v].runtime_meta(memory)
            })
            .collect();
        let mut shapes: Vec<Vec<u32>> = Vec::new();
        for (_, _, dims) in &entries {
            if !dims.is_empty() && !shapes.contains(dims) {
                shapes.push(dims.clone());
            }
        }
        ValueMetas { entries, shapes }
    }

    /// The index in [`ValueMetas::shapes`] of value `v`'s dimensions (none for a value
    /// without any).
    pub fn shape_of(&self, v: usize) -> Option<usize> {
        let dims = &self.entries.get(v)?.2;
        if dims.is_empty() {
            return None;
        }
        self.shapes.iter().position(|s| s == dims)
    }
}
