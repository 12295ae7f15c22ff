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
/// assert_eq!(metas.order_of(x), None); // contiguous: no dim order array
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ValueMetas {
    /// Per value: its kind, ScalarType code and dimensions ([`crate::model::Value::runtime_meta`]).
    pub entries: Vec<(EValue, u8, Vec<u32>)>,
    /// The distinct non-empty shapes, in order of first use: one dimensions array each.
    pub shapes: Vec<Vec<u32>>,
    /// Per value: a tensor's dim order, empty when contiguous (no array: NULL in the table).
    pub dim_orders: Vec<Vec<u8>>,
    /// The distinct non-contiguous dim orders, in order of first use: one array each.
    pub orders: Vec<Vec<u8>>,
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
        // A dim order goes with a tensor's entry only (a value the table calls None has none).
        let dim_orders: Vec<Vec<u8>> = (0..program.values.len())
            .map(|v| match entries[v].0 {
                EValue::Tensor if !entries[v].2.is_empty() => program.values[v].dim_order.clone(),
                _ => Vec::new(),
            })
            .collect();
        let mut orders: Vec<Vec<u8>> = Vec::new();
        for order in &dim_orders {
            if !order.is_empty() && !orders.contains(order) {
                orders.push(order.clone());
            }
        }
        ValueMetas {
            entries,
            shapes,
            dim_orders,
            orders,
        }
    }

    /// The index in [`ValueMetas::orders`] of value `v`'s dim order (none when contiguous).
    pub fn order_of(&self, v: usize) -> Option<usize> {
        let order = self.dim_orders.get(v)?;
        if order.is_empty() {
            return None;
        }
        self.orders.iter().position(|o| o == order)
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
