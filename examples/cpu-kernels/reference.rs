//! A reference evaluation of the program over its IR, independent of the runtime's tables: the
//! example's inputs (`input(i)[j] = 0.5 * (j + 1) + i` as float32), the constants' bytes, and
//! the float32 semantics of `aten::mul.out` (a * b) and `aten::add.out` (a + alpha * b), a
//! one-element operand broadcast. Its result becomes `EXPECTED` for the example to compare.

use arenaplan_build::model::{DType, Instruction, Program, ValueKind};

/// The example's input value `j` of input `i`.
pub fn input_value(i: usize, j: usize) -> f32 {
    0.5 * (j + 1) as f32 + i as f32
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `EXPECTED`: the outputs' bytes, as Rust source.
pub fn evaluate(program: &Program) -> Result<String, String> {
    let mut values: Vec<Option<Vec<f32>>> = vec![None; program.values.len()];
    for (v, value) in program.values.iter().enumerate() {
        if let (ValueKind::Constant, Some(data), DType::Float32) =
            (&value.kind, &value.data, value.dtype)
        {
            values[v] = Some(floats(data.bytes()));
        }
    }
    for (i, &v) in program.inputs.iter().enumerate() {
        let n = program.values[v].bytes as usize / 4;
        values[v] = Some((0..n).map(|j| input_value(i, j)).collect());
    }
    for (index, instruction) in program.flat_instructions() {
        let Instruction::Kernel(k) = instruction else {
            return Err(format!("instruction {index} is not a kernel call"));
        };
        let operand = |n: usize| -> Result<&Vec<f32>, String> {
            k.inputs
                .get(n)
                .and_then(|&v| values[v].as_ref())
                .ok_or_else(|| {
                    format!(
                        "instruction {index} ({}): operand {n} has no float32 value",
                        k.op
                    )
                })
        };
        let (a, b) = (operand(0)?, operand(1)?);
        let alpha = match k.inputs.get(2).map(|&v| &program.values[v]) {
            Some(value) => match (&value.data, value.dtype) {
                (Some(d), DType::Int64) => {
                    i64::from_le_bytes(d.bytes().try_into().map_err(|_| "alpha is not 8 bytes")?)
                        as f32
                }
                _ => return Err(format!("instruction {index}: alpha is not an int constant")),
            },
            None => 1.0,
        };
        let n = a.len().max(b.len());
        let at = |x: &Vec<f32>, j: usize| if x.len() == 1 { x[0] } else { x[j] };
        let result: Vec<f32> = match k.op.as_str() {
            "aten::mul.out" => (0..n).map(|j| at(a, j) * at(b, j)).collect(),
            "aten::add.out" => (0..n).map(|j| at(a, j) + alpha * at(b, j)).collect(),
            other => return Err(format!("the example has no kernel for `{other}`")),
        };
        let &[out] = k.outputs.as_slice() else {
            return Err(format!("instruction {index}: {} outputs", k.outputs.len()));
        };
        values[out] = Some(result);
    }
    let mut text = String::from("/// Each output's float32 values from the reference evaluation.\npub const EXPECTED: &[&[f32]] = &[\n");
    for &v in &program.outputs {
        let out = values[v].as_ref().ok_or("an output is never written")?;
        let list: Vec<String> = out
            .iter()
            .map(|x| format!("f32::from_bits({:#x})", x.to_bits()))
            .collect();
        text.push_str(&format!("    &[{}],\n", list.join(", ")));
    }
    text.push_str("];\n");
    Ok(text)
}
