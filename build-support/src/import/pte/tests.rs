//! Unit tests of the `.pte` reader's private steps.
use super::chain::{kernel_args, split_out_args, structure, Raw};
use super::values::resolve_int_lists;
use crate::model::{
    Branch, ConstantData, DType, EValue, Instruction, KernelCall, Program, Value, ValueKind,
};
use std::collections::BTreeMap;

fn call(op: &str) -> Raw {
    Raw::Call(Instruction::Kernel(KernelCall::new(op, vec![], vec![])))
}

fn values() -> Vec<Value> {
    let condition = Value::planned("c", DType::Bool, vec![1]);
    let mut never = Value::planned("false", DType::Bool, vec![]);
    never.kind = ValueKind::Constant;
    never.data = Some(ConstantData::new(vec![0]));
    vec![condition, never]
}

fn kernel(op: &str) -> Instruction {
    Instruction::Kernel(KernelCall::new(op, vec![], vec![]))
}

/// `relu_(v) -> v` is emitted `[v, v]`: one read and one write of `v`, not a write alone
/// (which would lose the input). The model check then gives it the TOML verdict.
#[test]
fn a_pte_in_place_kernel_keeps_its_input() {
    let lists = BTreeMap::new();
    assert_eq!(
        kernel_args("aten::relu_", vec![1, 1], &lists),
        (vec![1], vec![1])
    );
    assert_eq!(
        kernel_args("aten::add_.Tensor", vec![1, 2, 3, 1], &lists),
        (vec![1, 2, 3], vec![1])
    );
    // An out-variant op returning its out tensor keeps the repeated tail once.
    assert_eq!(
        kernel_args("aten::add.out", vec![1, 2, 3, 4, 4], &lists),
        (vec![1, 2, 3], vec![4])
    );
}

#[test]
fn executorch_cond_becomes_an_if_else_branch() {
    // 0: if !c goto 3; 1: a; 2: goto 4 (jump_false on a constant false); 3: b; 4: after.
    let mut raw = vec![
        Raw::JumpFalse {
            condition: 0,
            to: 3,
        },
        call("a"),
        Raw::JumpFalse {
            condition: 1,
            to: 4,
        },
        call("b"),
        call("after"),
    ];
    let body = structure(&mut raw, 0, 5, &values(), 0).unwrap();
    assert_eq!(
        body,
        [
            Instruction::Branch(Branch {
                predicate: 0,
                arms: vec![vec![kernel("a")], vec![kernel("b")]],
            }),
            kernel("after"),
        ]
    );
    // Without the jump at the end of the true arm: an if without else.
    let mut raw = vec![
        Raw::JumpFalse {
            condition: 0,
            to: 2,
        },
        call("a"),
        call("after"),
    ];
    let body = structure(&mut raw, 0, 3, &values(), 0).unwrap();
    assert_eq!(body.len(), 2);
    // A jump out of its block is refused.
    let mut raw = vec![
        Raw::JumpFalse {
            condition: 0,
            to: 2,
        },
        Raw::JumpFalse {
            condition: 0,
            to: 4,
        },
        call("a"),
        call("b"),
    ];
    assert!(structure(&mut raw, 0, 4, &values(), 0).is_err());
}

/// An int list takes its items' values; one with an item only known at run time (an int
/// a kernel writes, such as a `sym_size`) gets no data, and the call taking it is the one
/// named when the program is refused.
#[test]
fn int_lists_take_their_items_or_are_refused_by_the_call_that_takes_them() {
    let mut p = Program::new("lists");
    let int = |v: i64| Value {
        name: format!("int{v}"),
        dtype: DType::Int64,
        shape: vec![],
        bytes: 8,
        kind: ValueKind::Constant,
        pool: None,
        data: Some(ConstantData::new(v.to_le_bytes().to_vec())),
        evalue: EValue::Int,
        dim_order: Vec::new(),
        quant: None,
    };
    let list = || Value {
        name: "list".into(),
        dtype: DType::Int64,
        shape: vec![],
        bytes: 0,
        kind: ValueKind::Constant,
        pool: None,
        data: None,
        evalue: EValue::IntList,
        dim_order: Vec::new(),
        quant: None,
    };
    let two = p.add_value(int(2));
    let three = p.add_value(int(3));
    let mut written = int(0);
    written.kind = ValueKind::Planned; // a size a kernel computes
    written.data = None;
    let dynamic = p.add_value(written);
    let known = p.add_value(list());
    let unknown = p.add_value(list());
    let x = p.add_value(Value::planned("x", DType::Float32, vec![2, 3]));
    let y = p.add_value(Value::planned("y", DType::Float32, vec![3, 2]));
    p.body.push(Instruction::Kernel(KernelCall::new(
        "aten::permute_copy.out",
        vec![x, known],
        vec![y],
    )));
    p.body.push(Instruction::Kernel(KernelCall::new(
        "aten::view_copy.out",
        vec![y, unknown],
        vec![x],
    )));
    let items = BTreeMap::from([
        (known, vec![two as i64, three as i64]),
        (unknown, vec![two as i64, dynamic as i64]),
    ]);
    resolve_int_lists(&mut p, &items);
    let bytes: Vec<u8> = [2i64, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(
        p.values[known].data.as_ref().map(|d| d.bytes().to_vec()),
        Some(bytes)
    );
    assert_eq!(p.values[known].shape, [2]);
    assert_eq!(p.values[unknown].kind, ValueKind::Unmanaged);
    assert_eq!(p.unplaced_argument(), Some((1, unknown)));
}

#[test]
fn outputs_by_the_emitters_return_conventions() {
    let none = std::collections::BTreeMap::new();
    // An out tensor returned as itself.
    assert_eq!(
        split_out_args(vec![1, 0, 3, 2, 2], &none),
        (vec![1, 0, 3], vec![2])
    );
    assert_eq!(split_out_args(vec![7, 7], &none), (vec![], vec![7]));
    // Several out tensors returned as a new list of them.
    let lists = std::collections::BTreeMap::from([(6usize, vec![4i64, 5])]);
    assert_eq!(
        split_out_args(vec![0, 4, 5, 6], &lists),
        (vec![0], vec![4, 5])
    );
    // A tensor list written (split_copy): its out list, then the returned one; the
    // items are the outputs.
    let lists = std::collections::BTreeMap::from([(6usize, vec![4i64, 5]), (7, vec![4, 5])]);
    assert_eq!(
        split_out_args(vec![0, 2, 6, 7], &lists),
        (vec![0, 2], vec![4, 5])
    );
    // A returned scalar (sym_size): the last argument, written by the op.
    assert_eq!(split_out_args(vec![0, 1, 2], &none), (vec![0, 1], vec![2]));
    assert_eq!(split_out_args(vec![], &none), (vec![], vec![]));
}
