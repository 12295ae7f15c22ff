//! Where constants go: every constant a call uses or the caller reads back, and the model
//! carries bytes for, is one array in flash (a program input never is: the caller writes it), aligned for its consumer (16 bytes where a delegate reads it,
//! for NPU DMA; its element size otherwise). Constants with the same bytes share one array.

use std::collections::HashMap;

use crate::model::{Instruction, Program, ValueId, ValueKind};

/// One array of constant bytes in the generated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlashConstant {
    /// The values that read it (the first one's data is the array's).
    pub values: Vec<ValueId>,
    /// Its alignment in bytes.
    pub align: u64,
    /// Its size in bytes.
    pub len: u64,
}

/// The constants of `program` as the generated program lays them out, in the order of their
/// first value; [`ConstantLayout::of`] finds a value's array.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ConstantLayout {
    /// The arrays.
    pub arrays: Vec<FlashConstant>,
    by_value: HashMap<ValueId, usize>,
}

impl ConstantLayout {
    /// The layout of `program`'s used constants.
    ///
    /// ```
    /// use arenaplan_build::model::{ConstantData, DType, Instruction, KernelCall, Program, Value, ValueKind};
    /// use arenaplan_build::pipeline::ConstantLayout;
    /// let mut p = Program::new("m");
    /// let mut w = Value::planned("w", DType::Float32, vec![2]);
    /// w.kind = ValueKind::Constant;
    /// w.data = Some(ConstantData::new(vec![0; 8]));
    /// let w = p.add_value(w);
    /// let y = p.add_value(Value::planned("y", DType::Float32, vec![2]));
    /// p.body.push(Instruction::Kernel(KernelCall::new("neg", vec![w], vec![y])));
    /// let layout = ConstantLayout::new(&p);
    /// assert_eq!((layout.arrays[0].len, layout.arrays[0].align), (8, 4));
    /// assert_eq!(layout.of(w), Some(0));
    /// ```
    pub fn new(program: &Program) -> Self {
        let mut used = vec![false; program.values.len()];
        let mut by_delegate = vec![false; program.values.len()];
        for (_, instruction) in program.flat_instructions() {
            let delegate = matches!(instruction, Instruction::Delegate(_));
            for v in instruction.touched() {
                if let Some(u) = used.get_mut(v) {
                    *u = true;
                    by_delegate[v] |= delegate;
                }
            }
        }
        // Every method's outputs and inputs (a program with one: its own).
        let outputs = program
            .outputs
            .iter()
            .chain(program.methods.iter().flat_map(|m| &m.outputs));
        let inputs = program
            .inputs
            .iter()
            .chain(program.methods.iter().flat_map(|m| &m.inputs));
        for &v in outputs {
            if let Some(u) = used.get_mut(v) {
                *u = true;
            }
        }
        // The caller writes an input: never flash (it gets no memory instead).
        for &v in inputs {
            if let Some(u) = used.get_mut(v) {
                *u = false;
            }
        }
        let mut layout = ConstantLayout::default();
        let mut by_bytes: HashMap<&[u8], usize> = HashMap::new();
        for (v, value) in program.values.iter().enumerate() {
            let (true, ValueKind::Constant, Some(data)) = (used[v], &value.kind, &value.data)
            else {
                continue;
            };
            // An empty tensor needs no array: it is NULL, 0 bytes, like any absent value.
            if data.bytes().is_empty() {
                continue;
            }
            let align = if by_delegate[v] {
                16
            } else {
                value.dtype.size().clamp(1, 8)
            };
            let index = *by_bytes.entry(data.bytes()).or_insert_with(|| {
                layout.arrays.push(FlashConstant {
                    values: Vec::new(),
                    align,
                    len: data.bytes().len() as u64,
                });
                layout.arrays.len() - 1
            });
            let array = &mut layout.arrays[index];
            array.values.push(v);
            array.align = array.align.max(align);
            layout.by_value.insert(v, index);
        }
        layout
    }

    /// The array value `v` reads, if it is a used constant with bytes.
    pub fn of(&self, v: ValueId) -> Option<usize> {
        self.by_value.get(&v).copied()
    }

    /// Bytes of all arrays (alignment padding not counted: the linker decides it).
    pub fn bytes(&self) -> u64 {
        self.arrays.iter().map(|a| a.len).sum()
    }
}
