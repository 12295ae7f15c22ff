//! A `.tflite` operator's operands are read by position: -1 marks an omitted optional operand
//! and keeps its place; any other negative index is refused at import naming the operator and
//! the operand (exit 2), never shifted into the next operand's place. One test per rule, each
//! on a file TensorFlow's converter or Vela wrote, one index patched.

use std::path::Path;

use arenaplan_build::import::{read_tflite, ImportError};
use arenaplan_build::model::Instruction;

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata")
            .join(path),
    )
    .unwrap()
}

/// `data` with operand `k` of the operator whose input list is `inputs` set to `to`: the list
/// is found as the flatbuffer stores it (its length, then each index, little-endian).
fn patched(data: &[u8], inputs: &[i32], k: usize, to: i32) -> Vec<u8> {
    let mut pattern = (inputs.len() as u32).to_le_bytes().to_vec();
    pattern.extend(inputs.iter().flat_map(|i| i.to_le_bytes()));
    let at: Vec<usize> = (0..data.len().saturating_sub(pattern.len()))
        .filter(|&i| data[i..].starts_with(&pattern))
        .collect();
    assert_eq!(
        at.len(),
        1,
        "the input list {inputs:?} is not in the file once"
    );
    let mut out = data.to_vec();
    let place = at[0] + 4 + 4 * k;
    out[place..place + 4].copy_from_slice(&to.to_le_bytes());
    out
}

/// The first call of `op` in `data`: its operator's index, the tensors its operator lists as
/// its first `operands` inputs (a lowering appends its parameters after them), and its outputs.
fn call_of(data: &[u8], op: &str, operands: usize) -> (usize, Vec<i32>, Vec<i32>) {
    let program = read_tflite(data, "m").unwrap();
    let ids = |v: &[usize]| v.iter().map(|&v| v as i32).collect::<Vec<_>>();
    program
        .body
        .iter()
        .enumerate()
        .find_map(|(o, i)| match i {
            Instruction::Kernel(k) if k.op == op => {
                Some((o, ids(&k.inputs[..operands]), ids(&k.outputs)))
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {op} call"))
}

fn invalid(result: Result<arenaplan_build::model::Program, ImportError>) -> String {
    match result {
        Err(ImportError::Invalid(message)) => message,
        other => panic!("not refused as invalid: {:?}", other.map(|p| p.name)),
    }
}

#[test]
fn a_negative_index_other_than_minus_one_is_refused_naming_the_operand() {
    let data = fixture("tflite-ops/tf_int8_ops2.tflite");
    let (o, inputs, _) = call_of(&data, "tflite:CONV_2D", 3);
    for bad in [-2, -1000, i32::MIN] {
        let message = invalid(read_tflite(&patched(&data, &inputs, 1, bad), "m"));
        assert!(
            message.contains(&format!("operator {o} (CONV_2D)'s input 1 is tensor {bad}")),
            "{message}"
        );
    }
}

#[test]
fn an_omitted_operand_keeps_its_place_and_no_lowering_reads_past_it() {
    let data = fixture("tflite-ops/tf_int8_ops2.tflite");
    let (o, inputs, _) = call_of(&data, "tflite:CONV_2D", 3);
    // The filter omitted: the bias must not be taken for it. The call stays one no kernel
    // runs (the build then refuses it, naming the operator), its operands the two present.
    let program = read_tflite(&patched(&data, &inputs, 1, -1), "m").unwrap();
    let Instruction::Kernel(k) = &program.body[o] else {
        panic!("operator {o} is no kernel call");
    };
    assert_eq!(k.op, "builtin:3");
    assert_eq!(k.inputs, [inputs[0] as usize, inputs[2] as usize]);
}

#[test]
fn an_output_of_minus_one_is_refused() {
    let data = fixture("tflite-ops/tf_int8_ops2.tflite");
    let (o, _, outputs) = call_of(&data, "tflite:QUANTIZE", 1);
    let message = invalid(read_tflite(&patched(&data, &outputs, 0, -1), "m"));
    assert!(
        message.contains(&format!("operator {o} (QUANTIZE)'s output 0 is -1")),
        "{message}"
    );
}

#[test]
fn a_vela_operator_with_an_omitted_operand_is_refused() {
    let data = fixture("fixtures/fixture_conv_vela_u55.tflite");
    assert!(matches!(
        read_tflite(&data, "m").unwrap().body.first(),
        Some(Instruction::Delegate(_))
    ));
    // Vela's operands: command stream, flash, scratch, fast scratch, then the feature maps.
    let inputs = vela_operands(&data);
    let message = invalid(read_tflite(&patched(&data, &inputs, 1, -1), "m"));
    assert!(
        message.contains("operator 0 (ethos-u)'s input 1 is -1"),
        "{message}"
    );
}

/// The ethos-u operator's input list (five operands): of the lists of five small tensor
/// indices the file holds, the one whose second operand, omitted, the importer names as the
/// ethos-u operator's (none does when the rule is gone: the test then fails here).
fn vela_operands(data: &[u8]) -> Vec<i32> {
    for start in 0..data.len().saturating_sub(24) {
        if data[start..start + 4] != 5u32.to_le_bytes() {
            continue;
        }
        let list: Vec<i32> = (0..5)
            .map(|i| {
                i32::from_le_bytes(
                    data[start + 4 + 4 * i..start + 8 + 4 * i]
                        .try_into()
                        .unwrap(),
                )
            })
            .collect();
        if list.iter().all(|&t| (0..16).contains(&t)) {
            let patched = {
                let mut d = data.to_vec();
                d[start + 8..start + 12].copy_from_slice(&(-1i32).to_le_bytes());
                d
            };
            if let Err(ImportError::Invalid(m)) = read_tflite(&patched, "m") {
                if m.contains("(ethos-u)'s input 1 is -1") {
                    return list;
                }
            }
        }
    }
    panic!("no Vela operator input list found")
}
