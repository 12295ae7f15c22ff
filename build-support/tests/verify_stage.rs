//! The verify stage runs on every plan the build emits: a plan corrupted after planning — as a
//! bug in a stage between the planner and the emitters would leave it — fails the build with
//! the problem named, and no artifact is made. One test per rule the stage enforces.

mod common;

use std::path::Path;

use arenaplan_build::build::{verify_and_emit, Artifacts};
use arenaplan_build::emit::{Emit, Symbols};
use arenaplan_build::import::load_model;
use arenaplan_build::model::Program;
use arenaplan_build::pipeline::{BufferKind, ModelPlan};
use arenaplan_build::targets::Catalogue;
use arenaplan_build::BuildError;

/// Two Ethos-U calls with their own scratch, a CPU kernel and a branch, planned for
/// corstone-300.
fn planned() -> (Program, ModelPlan) {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/models/two_npu_calls.toml");
    let catalogue = Catalogue::builtin();
    common::planned(
        catalogue.target("corstone-300").unwrap(),
        load_model(&model).unwrap(),
    )
    .unwrap()
}

/// The build's stages after planning, on `plan` (every artifact).
fn finish(program: &Program, plan: &ModelPlan) -> Result<Vec<(String, Vec<u8>)>, BuildError> {
    let catalogue = Catalogue::builtin();
    let artifacts = Artifacts {
        name: "m",
        declared: &Default::default(),
        symbols: Symbols::C,
        blobs: Default::default(),
        what: Emit::ALL,
        executorch: &[],
        all_kernel_dtypes: false,
    };
    verify_and_emit(
        program,
        plan,
        catalogue.target("corstone-300").unwrap(),
        &artifacts,
    )
}

/// Corrupts a fresh plan with `corrupt` and expects the build to fail naming `problem`.
fn refused(corrupt: impl FnOnce(&mut ModelPlan), problem: &str) {
    let (program, mut plan) = planned();
    corrupt(&mut plan);
    match finish(&program, &plan) {
        Err(BuildError::Verify(e)) => {
            let message = e.to_string();
            assert!(
                message.contains(problem),
                "expected `{problem}` in: {message}"
            );
            assert!(message.contains("a bug in arenaplan"), "{message}");
        }
        Err(e) => panic!("failed for another reason: {e}"),
        Ok(_) => panic!("a corrupted plan was emitted (expected `{problem}`)"),
    }
}

/// Two buffers of one pool alive at the same instruction, the second no larger than the first
/// and not the one that ends the arena (so moving it onto the first breaks only that rule).
fn alive_together(plan: &ModelPlan) -> (usize, usize) {
    let b = &plan.buffers;
    let arena = |k: usize| plan.pool(b[k].mem_id).unwrap().size;
    for i in 0..b.len() {
        for j in 0..b.len() {
            if i != j
                && b[i].mem_id == b[j].mem_id
                && b[i].first <= b[j].last
                && b[j].first <= b[i].last
                && b[j].size <= b[i].size
                && b[j].offset + b[j].size < arena(j)
            {
                return (i, j);
            }
        }
    }
    panic!("the fixture has buffers alive together")
}

#[test]
fn the_plan_as_planned_is_emitted() {
    let (program, plan) = planned();
    let files = finish(&program, &plan).unwrap();
    assert!(files.iter().any(|(name, _)| name == "m.h"));
}

#[test]
fn buffers_alive_together_may_not_share_bytes() {
    refused(
        |plan| {
            let (i, j) = alive_together(plan);
            plan.buffers[j].offset = plan.buffers[i].offset;
        },
        "overlap",
    );
}

#[test]
fn a_buffer_stays_on_its_pools_alignment() {
    refused(|plan| plan.buffers[0].offset += 1, "is not a multiple of");
}

#[test]
fn a_buffer_holds_its_whole_value() {
    refused(|plan| plan.buffers[0].size -= 1, "bytes planned for");
}

#[test]
fn a_buffer_stays_inside_its_arena() {
    refused(
        |plan| {
            let last = plan.buffers.len() - 1;
            plan.buffers[last].offset = plan.pools[0].size;
        },
        "past the arena",
    );
}

#[test]
fn an_arena_stays_within_its_pools_capacity() {
    refused(
        |plan| {
            let capacity = plan.pools[0].capacity;
            plan.pools[0].size = capacity + 16;
        },
        "capacity",
    );
}

#[test]
fn every_planned_value_has_a_buffer() {
    refused(
        |plan| {
            plan.buffers.remove(0);
        },
        "has no buffer",
    );
}

#[test]
fn a_buffer_lives_as_long_as_its_value() {
    refused(|plan| plan.buffers[0].last += 1, "in the program");
}

#[test]
fn a_calls_trailing_arguments_are_its_own_scratch() {
    refused(
        |plan| {
            let scratch: Vec<usize> = plan
                .buffers
                .iter()
                .filter(|b| b.kind == BufferKind::Scratch)
                .map(|b| b.id)
                .collect();
            // The first call's list names the second call's scratch.
            let call = plan.calls.iter_mut().find(|c| c.scratch > 0).unwrap();
            let last = call.args.len() - 1;
            let other = *scratch.iter().find(|&&s| s != call.args[last]).unwrap();
            call.args[last] = other;
        },
        "call ",
    );
}

#[test]
fn a_calls_arguments_are_the_programs() {
    refused(
        |plan| {
            let call = plan.calls.iter_mut().find(|c| c.inputs > 0).unwrap();
            call.args.swap(0, call.inputs);
        },
        "arguments",
    );
}

#[test]
fn the_plan_is_for_the_target_it_is_emitted_for() {
    refused(|plan| plan.target = "corstone-320".into(), "names target");
}

#[test]
fn a_buffer_is_what_its_value_is() {
    refused(
        |plan| {
            let b = plan
                .buffers
                .iter_mut()
                .find(|b| b.kind == BufferKind::Scratch)
                .unwrap();
            b.kind = BufferKind::Tensor;
            b.call = None;
        },
        "in the program",
    );
}

#[test]
fn an_arena_is_named_as_the_targets_pool() {
    refused(|plan| plan.pools[0].name = "ddr".into(), "named `ddr`");
}

#[test]
fn every_call_of_the_program_is_in_the_plan_once_in_order() {
    refused(
        |plan| {
            plan.calls.remove(0);
        },
        "in the program",
    );
    refused(|plan| plan.calls.swap(0, 1), "in the program");
}

#[test]
fn a_delegate_call_names_its_backend() {
    refused(
        |plan| {
            let call = plan.calls.iter_mut().find(|c| c.backend.is_some()).unwrap();
            call.backend = Some("NeutronBackend".into());
        },
        "backend",
    );
}

#[test]
fn a_calls_counts_split_its_arguments_as_the_program_does() {
    refused(
        |plan| {
            let call = plan.calls.iter_mut().find(|c| c.inputs > 0).unwrap();
            call.inputs -= 1;
            call.outputs += 1;
        },
        "arguments",
    );
}

#[test]
fn a_branch_the_runtime_cannot_run() {
    // A third arm: the runtime runs if/else, and the emitted jumps would be wrong.
    let (mut program, plan) = planned();
    let branch = program
        .body
        .iter_mut()
        .find_map(|i| match i {
            arenaplan_build::model::Instruction::Branch(b) => Some(b),
            _ => None,
        })
        .expect("the fixture has a branch");
    branch.arms.push(Vec::new());
    match finish(&program, &plan) {
        Err(BuildError::Verify(e)) => assert!(e.to_string().contains("arms"), "{e}"),
        other => panic!(
            "expected the verify stage to refuse it: {:?}",
            other.map(|_| ())
        ),
    }
}

/// The one door to emission checks every call against the declarations it emits with: a plan
/// made without a kernel's `#[kernel(scratch = ...)]` (its call has no scratch) is refused, and
/// no file is made (it once wrote ten).
#[test]
fn a_call_missing_its_declared_scratch_is_not_emitted() {
    use arenaplan_build::model::{Origin, PoolChoice, ScratchSpec};
    use arenaplan_build::pipeline::{Declarations, KernelScratch};
    let (program, plan) = planned();
    let declared = Declarations {
        backends: Vec::new(),
        kernels: vec![KernelScratch {
            op: "app_max_pool".into(),
            scratch: vec![ScratchSpec {
                size: 256,
                pool: PoolChoice::Spec("cpu_scratch".into()),
                label: None,
                origin: Origin::Unknown,
                role: None,
            }],
        }],
    };
    let catalogue = Catalogue::builtin();
    let artifacts = Artifacts {
        name: "m",
        declared: &declared,
        symbols: Symbols::C,
        blobs: Default::default(),
        what: Emit::ALL,
        executorch: &[],
        all_kernel_dtypes: false,
    };
    match verify_and_emit(
        &program,
        &plan,
        catalogue.target("corstone-300").unwrap(),
        &artifacts,
    ) {
        Err(BuildError::Verify(e)) => assert!(
            e.to_string().contains(
                "(kernel `app_max_pool`) passes 0 scratch buffers, but its declaration has 1"
            ),
            "{e}"
        ),
        Err(e) => panic!("failed for another reason: {e}"),
        Ok(files) => panic!("emitted {} files", files.len()),
    }
}
