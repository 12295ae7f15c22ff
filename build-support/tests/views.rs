//! ExecuTorch's static views on the real exporter's programs: a view only CPU kernels read
//! lies on its viewed tensor's bytes (as ExecuTorch's own plan puts it), with no copy, and the
//! viewed tensor stays alive while the view is read. (That the outputs stay ExecuTorch's
//! runtime's: `cli/tests/run_exported.rs`.)

mod common;

use std::path::Path;

use arenaplan_build::import::load_pte;
use arenaplan_build::model::{Instruction, Program};
use arenaplan_build::targets::Catalogue;

fn exported(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/exported")
        .join(name)
        .join("program.pte");
    load_pte(&path).unwrap()
}

fn moves(program: &Program) -> usize {
    program
        .flat_instructions()
        .iter()
        .filter(|(_, i)| matches!(i, Instruction::Kernel(k) if k.op == "et:move"))
        .count()
}

#[test]
fn a_gru_s_views_share_their_tensors_bytes_and_cost_no_copy() {
    let program = exported("rnn_gru");
    assert!(!program.views.is_empty(), "the GRU's reshapes are views");
    assert_eq!(moves(&program), 0, "no view is copied");
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let own = program.source_arena().unwrap();
    let (planned, plan) = common::planned(target, program).unwrap();
    let buffer = |v: usize| plan.buffers.iter().find(|b| b.id == v).unwrap();
    for view in &planned.views {
        let (v, w) = (buffer(view.value), buffer(view.viewed));
        assert_eq!((v.mem_id, v.offset), (w.mem_id, w.offset));
        assert!(
            w.first <= v.first && v.last <= w.last,
            "the viewed outlives the view"
        );
    }
    // ExecuTorch's plan: 2,928 B; with a copy per view arenaplan needed 2,832 B.
    let arena: u64 = plan.pools.iter().map(|p| p.size).sum();
    assert!(arena <= own, "{arena} B against ExecuTorch's {own} B");
    assert_eq!(arena, 2784);
}

/// State read only through a view is still state: kept for the whole run (the pipeline and
/// the verify stage both count the view's reads before they widen state).
#[test]
fn state_read_only_through_a_view_is_kept_whole() {
    use arenaplan_build::model::{DType, KernelCall, Value, View};
    let mut p = Program::new("viewed_state");
    let x = p.add_value(Value::planned("x", DType::Int8, vec![16]));
    let y = p.add_value(Value::planned("y", DType::Int8, vec![16]));
    let s = p.add_value(Value::planned("s", DType::Int8, vec![4, 4]));
    let v = p.add_value(Value::planned("v", DType::Int8, vec![16]));
    let z = p.add_value(Value::planned("z", DType::Int8, vec![16]));
    p.inputs = vec![x];
    p.outputs = vec![y, z];
    p.state = vec![s];
    p.views.push(View {
        value: v,
        viewed: s,
    });
    p.body = vec![
        Instruction::Kernel(KernelCall::new("et:move", vec![x], vec![y])),
        Instruction::Kernel(KernelCall::new("et:move", vec![v], vec![z])),
    ];
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (planned, plan) = common::planned(target, p).unwrap();
    let last = planned.flat_instructions().len() - 1;
    let state = plan.buffers.iter().find(|b| b.id == s).unwrap();
    assert_eq!((state.first, state.last), (0, last));
    let view = plan.buffers.iter().find(|b| b.id == v).unwrap();
    assert_eq!(view.offset, state.offset);
}
