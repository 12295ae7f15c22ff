//! Programs with several methods (ExecuTorch's, sharing state as `share_mutable_buffers` lays it
//! out): every method is imported and planned on one timeline, the state is placed once and
//! apart from everything else, the methods' other buffers share memory, and the generated APIs
//! expose each method. (Running both methods through the generated C and Arm's driver:
//! `examples/c-integrator/methods.c`, `make -C examples/c-integrator methods` in CI.)

mod common;

use std::path::Path;

use arenaplan_build::import::load_pte;
use arenaplan_build::model::{PoolChoice, Program};
use arenaplan_build::pipeline::{ModelPlan, Pipeline};
use arenaplan_build::targets::Catalogue;
use arenaplan_build::{Emit, Symbols};

fn fixture() -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/fixtures/ethosu_u55_two_methods_shared_state.pte");
    load_pte(&path).unwrap()
}

fn plan(program: Program) -> Result<(Program, ModelPlan), String> {
    let catalogue = Catalogue::builtin();
    common::planned(catalogue.target("corstone-300").unwrap(), program).map_err(|e| e.to_string())
}

#[test]
fn every_method_is_imported_and_the_state_they_share_is_one_value() {
    let program = fixture();
    let names: Vec<&str> = program.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["forward", "update"]);
    assert_eq!(program.state.len(), 1);
    let state = program.state[0];
    // `update` writes it, `forward` reads it: one value in both.
    assert_eq!(program.methods[1].outputs, Vec::<usize>::new());
    assert!(program.methods[1].body.len() == 1 && program.methods[0].body.len() == 2);
    assert_eq!(program.values[state].bytes, 512);
    // Its initial contents, from the program's mutable data segment.
    let initial = program.values[state].data.as_ref().expect("initial state");
    assert!(initial
        .bytes()
        .iter()
        .enumerate()
        .all(|(i, &b)| b == (7 * i + 1) as u8));
    // The file's mem_id 2 is ExecuTorch's buffer for shared state, not a memory.
    assert_eq!(program.values[state].pool, None);
    assert_eq!(program.methods[0].delegates, 0..2);
    assert_eq!(program.methods[1].delegates, 2..3);
}

#[test]
fn the_state_is_placed_for_the_whole_timeline_and_the_methods_share_the_rest() {
    let program = fixture();
    let state = program.state[0];
    let (planned, plan) = plan(program).unwrap();
    let last = planned.flat_instructions().len() - 1;
    let s = plan.buffers.iter().find(|b| b.id == state).unwrap();
    assert_eq!((s.first, s.last), (0, last));
    // Nothing else ever touches the state's bytes.
    for b in plan.buffers.iter().filter(|b| b.id != state) {
        assert!(
            b.offset + b.size <= s.offset || s.offset + s.size <= b.offset,
            "buffer {} overlaps the state",
            b.id
        );
    }
    // A buffer of `forward` and one of `update` share memory (one method runs at a time).
    let range = |k: usize| planned.method_flat_range(k);
    let shared = plan.buffers.iter().any(|a| {
        range(0).contains(&a.first)
            && plan.buffers.iter().any(|b| {
                range(1).contains(&b.first)
                    && b.id != state
                    && a.id != state
                    && a.offset < b.offset + b.size
                    && b.offset < a.offset + a.size
            })
    });
    assert!(shared, "the methods' buffers share no memory");
    // A method's inputs and outputs are alive over its own instructions only: the caller fills
    // them just before its run and reads them just after (ExecuTorch runs one method at a
    // time).
    for (k, m) in planned.methods.iter().enumerate() {
        let range = range(k);
        for &v in m.inputs.iter().chain(&m.outputs) {
            let a = plan.buffers.iter().find(|b| b.id == v).unwrap();
            assert!(
                range.contains(&a.first) && range.contains(&a.last),
                "{} of `{}` alive over {}..={} outside {range:?}",
                planned.values[v].name,
                m.name,
                a.first,
                a.last
            );
        }
    }
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let apart = Pipeline::new(target)
        .io_in_scratch(false)
        .plan(fixture())
        .unwrap();
    // The arena is the larger method's needs plus the state: `forward`, inputs and outputs
    // apart from the scratch, needs 256 + 512 + 768 B at its first call (its second: 512 +
    // 128 + 640); `update` 256 + 768. With the state's 512: 2048 (was 2432, every method's
    // inputs and outputs kept alive throughout).
    assert_eq!(apart.pools[0].size, 256 + 512 + 768 + 512);
    // At its slot in its call's scratch, `forward`'s needs are its second call's 512 + 640:
    // 1664 (was 2304).
    assert_eq!(plan.pools[0].size, 512 + 640 + 512);
}

#[test]
fn the_generated_apis_expose_each_method() {
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (program, plan) = plan(fixture()).unwrap();
    let files = common::emit_files(&program, &plan, target, "mm", Symbols::Rust, Emit::ALL);
    let text = |name: &str| common::text(&files, name);
    let header = text("mm.h");
    for f in [
        "mm_update_input",
        "mm_update_run",
        "mm_update_output",
        "mm_update_failed_call",
    ] {
        assert!(header.contains(f), "{f} missing from mm.h");
    }
    assert!(
        header.contains("#define MM_UPDATE_INPUT_COUNT 1u"),
        "{header}"
    );
    let program_c = text("mm_program.c");
    // Each method its own tables over the program's values; delegates from its own.
    assert!(program_c.contains("const ap_program_t mm_update_program"));
    assert!(program_c.contains("mm_delegates + 2, 1u,"), "{program_c}");
    assert!(program_c.contains("ap_method_init_bound(&mm_update_method, &mm_update_bound)"));
    // Init gives the state its initial contents, before the methods.
    let state = plan.buffer(program.state[0]).unwrap().offset;
    assert!(
        program_c.contains(&format!(
            "memcpy(mm_arena_sram + {state}u, mm_initial0, sizeof mm_initial0);"
        )),
        "{program_c}"
    );
    let rust = text("mm.rs");
    // The runtime's generic `Model` runs each method through the functions named here.
    for f in [
        "\"update\"",
        "\"mm_update_input\"",
        "\"mm_update_run\"",
        "\"mm_update_output\"",
        "\"mm_update_failed_call\"",
        "pub const UPDATE: usize = 1;",
    ] {
        assert!(rust.contains(f), "{f} missing from mm.rs");
    }
}

#[test]
fn state_shared_between_methods_outside_the_default_pool_is_refused() {
    let mut program = fixture();
    let state = program.state[0];
    // As if the program asked for the state in the DDR pool (mem_id 2 on corstone-300).
    program.values[state].pool = Some(PoolChoice::MemId(2));
    let e = plan(program).unwrap_err();
    assert!(
        e.contains("method `forward`: buffer `state@0` is state shared between methods, but it is in pool `ddr` (mem_id 2)"),
        "{e}"
    );
    assert!(e.contains("default pool `sram` (mem_id 1)"), "{e}");
}

/// Two methods, `forward` (relu of its input) and `get`, which returns its input and runs
/// nothing: `get` has no span of its own, so its input and output are alive throughout, and
/// the pipeline and the verify stage (which works it out on its own) agree.
#[test]
fn a_method_without_instructions_keeps_its_inputs_and_outputs_throughout() {
    use arenaplan_build::model::{DType, Instruction, KernelCall, Value};
    let forward = {
        let mut p = Program::new("forward");
        let x = p.add_value(Value::planned("x", DType::Int8, vec![16]));
        let y = p.add_value(Value::planned("y", DType::Int8, vec![16]));
        p.inputs = vec![x];
        p.outputs = vec![y];
        p.body = vec![Instruction::Kernel(KernelCall::new(
            "et:move",
            vec![x],
            vec![y],
        ))];
        p
    };
    let get = {
        let mut p = Program::new("get");
        let a = p.add_value(Value::planned("a", DType::Int8, vec![16]));
        let b = p.add_value(Value::planned("b", DType::Int8, vec![16]));
        p.inputs = vec![a, b];
        p.outputs = vec![a];
        p
    };
    let joined = Program::join_methods(
        "two",
        vec![("forward".into(), forward), ("get".into(), get)],
        |_, _, _| None,
    );
    let (planned, plan) = plan(joined).unwrap();
    let last = planned.flat_instructions().len() - 1;
    for &v in &planned.methods[1].inputs {
        let b = plan.buffers.iter().find(|b| b.id == v).unwrap();
        assert_eq!((b.first, b.last), (0, last), "{}", planned.values[v].name);
    }
}
