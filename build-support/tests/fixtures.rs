//! The repository's own fixtures (`testdata/fixtures/`, made by `scripts/make_fixtures.py` with
//! Arm's Vela): imported and planned without Python, checked against the numbers Vela wrote.

mod common;

use std::path::{Path, PathBuf};

use arenaplan_build::import::{load_pte, load_tflite};
use arenaplan_build::model::{Instruction, Origin};
use arenaplan_build::pipeline::{BufferKind, CallKind, ModelPlan, Pipeline};
use arenaplan_build::targets::Catalogue;
use arenaplan_build::verify::verify;
use arenaplan_build::{Build, Emit};
use serde_json::Value as Json;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fixtures")
}

fn json(name: &str) -> Json {
    serde_json::from_str(&std::fs::read_to_string(dir().join(name)).unwrap()).unwrap()
}

fn scratch_of_calls(plan: &ModelPlan) -> Vec<Vec<(u64, u32)>> {
    plan.calls
        .iter()
        .filter(|c| c.kind == CallKind::Delegate)
        .map(|c| {
            c.args[c.inputs + c.outputs..]
                .iter()
                .map(|&a| {
                    let b = plan.buffer(a).unwrap();
                    assert_eq!(b.kind, BufferKind::Scratch);
                    (b.size, b.mem_id)
                })
                .collect()
        })
        .collect()
}

#[test]
fn ethos_u_and_neutron_programs_import_and_plan_as_vela_says() {
    let catalogue = Catalogue::builtin();
    for (file, target) in [
        ("ethosu_u55_one_call", "corstone-300"),
        ("ethosu_u55_two_calls", "corstone-300"),
        ("ethosu_u55_two_calls_carried_scratch", "corstone-300"),
        ("ethosu_u85_one_call", "corstone-320"),
        ("neutron_v0_one_call", "imxrt700"),
        ("neutron_v0_one_call_mcxn94x", "mcxn947"),
    ] {
        let expect = json(&format!("{file}.expect.json"));
        let program =
            load_pte(&dir().join(format!("{file}.pte"))).unwrap_or_else(|e| panic!("{file}: {e}"));
        let sizes: Vec<u64> = expect["non_const_buffer_sizes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(
            program.source_plan.as_ref().unwrap().buffer_sizes,
            sizes,
            "{file}"
        );
        let calls: Vec<_> = program
            .flat_instructions()
            .into_iter()
            .filter_map(|(_, i)| match i {
                Instruction::Delegate(d) => Some(d.clone()),
                _ => None,
            })
            .collect();
        let expected = expect["delegate_calls"].as_array().unwrap();
        assert_eq!(calls.len(), expected.len(), "{file}");
        for (call, e) in calls.iter().zip(expected) {
            let delegate = &program.delegates[call.delegate];
            assert_eq!(delegate.backend, e["backend_id"].as_str().unwrap());
            assert_eq!(
                call.inputs.len() as u64,
                e["num_inputs"].as_u64().unwrap(),
                "{file}"
            );
            assert_eq!(
                call.outputs.len() as u64,
                e["num_outputs"].as_u64().unwrap(),
                "{file}"
            );
            let declared: Vec<u64> = delegate.scratch.iter().map(|s| s.size as u64).collect();
            let vela: Vec<u64> = e["scratch"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(declared, vela, "{file}: scratch sizes");
        }
        let target = catalogue.target(target).unwrap();
        let (_, plan) = common::planned(target, program).unwrap_or_else(|e| panic!("{file}: {e}"));
        for (planned, e) in scratch_of_calls(&plan).iter().zip(expected) {
            let vela: Vec<u64> = e["scratch"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(
                planned
                    .iter()
                    .map(|s| s.0)
                    .take(vela.len())
                    .collect::<Vec<_>>(),
                vela,
                "{file}"
            );
            if file.starts_with("ethosu_u85") {
                // Dedicated_Sram: fast scratch from the target, in its SRAM pool.
                let fast = target.npu.as_ref().unwrap().fast_scratch_size.unwrap();
                assert_eq!(
                    planned[1],
                    (fast, target.resolve_spec("fast_scratch").unwrap().mem_id)
                );
            }
        }
    }
}

#[test]
fn two_chained_calls_share_their_scratch() {
    // With every tensor apart from the scratch, the calls' scratch shares memory.
    let program = load_pte(&dir().join("ethosu_u55_two_calls.pte")).unwrap();
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (planned, apart) = Pipeline::new(target)
        .io_in_scratch(false)
        .run(program.clone())
        .unwrap();
    verify(&planned, &apart, target).unwrap();
    let scratch = |plan: &ModelPlan| -> Vec<u64> {
        plan.buffers
            .iter()
            .filter(|b| b.kind == BufferKind::Scratch)
            .map(|b| b.offset)
            .collect()
    };
    let offsets = scratch(&apart);
    assert_eq!(offsets.len(), 2);
    assert_eq!(
        offsets[0], offsets[1],
        "scratch of consecutive calls shares memory"
    );
    // With the I/O at its slots (x and the 512-byte y in call 0's scratch, z in call 1's),
    // y keeps its slot into call 1, which copies it into its own scratch beside it: 512 + 640
    // bytes instead of x, y and call 0's scratch side by side (256 + 512 + 768).
    let (_, inside) = common::planned(target, program).unwrap();
    assert_eq!(apart.pools[0].size, 1536);
    assert_eq!(inside.pools[0].size, 1152);
    assert_eq!(inside.buffers[1].within, Some(3));
    assert_eq!(inside.buffers[2].within, Some(4));
}

#[test]
fn a_program_carrying_its_scratch_plans_as_the_one_without() {
    // The same two calls, each with its Vela scratch as a trailing 1-D byte tensor (what
    // ExecuTorch's delegate-scratch pass emits): recognised, stripped, planned again.
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let carried = load_pte(&dir().join("ethosu_u55_two_calls_carried_scratch.pte")).unwrap();
    let bare = load_pte(&dir().join("ethosu_u55_two_calls.pte")).unwrap();
    assert_eq!(
        carried.values.len(),
        bare.values.len(),
        "the carried scratch tensors are gone"
    );
    assert_eq!(carried.body, bare.body);
    let (planned_carried, plan_carried) = common::planned(target, carried).unwrap();
    let (planned_bare, plan_bare) = common::planned(target, bare).unwrap();
    assert_eq!(plan_carried, plan_bare);
    assert_eq!(planned_carried.values, planned_bare.values);
    // Idempotent: the planned program, whose calls carry scratch again, plans the same.
    let (_, again) = common::planned(target, planned_carried).unwrap();
    assert_eq!(again, plan_bare);
}

#[test]
fn vela_models_give_their_scratch_tensors_as_scratch() {
    let facts = json("vela.expect.json");
    for (file, f) in facts.as_object().unwrap() {
        let program = load_tflite(&dir().join(file)).unwrap();
        let delegate = &program.delegates[0];
        assert!(delegate
            .scratch
            .iter()
            .all(|s| matches!(s.origin, Origin::ModelTensor { .. })));
        let sizes: Vec<u64> = delegate.scratch.iter().map(|s| s.size as u64).collect();
        let mut expected = vec![f["scratch_size"].as_u64().unwrap()];
        let fast = f["fast_scratch_size"].as_u64().unwrap();
        if !f["shared_sram"].as_bool().unwrap() && fast > 0 {
            expected.push(fast);
        }
        assert_eq!(sizes, expected, "{file}");
    }
    // The unconverted models are plain CPU graphs.
    let plain = load_tflite(&dir().join("fixture_conv.tflite")).unwrap();
    assert!(plain.delegates.is_empty());
    assert_eq!(plain.body.len(), 1);
}

#[test]
fn vela_scratch_sizes_reach_plan_json() {
    for (model, target, scratch) in [
        ("fixture_conv_vela_u55.tflite", "corstone-300", 768),
        ("ethosu_u55_one_call.pte", "corstone-300", 768),
    ] {
        let mut json_only = Emit::NONE;
        json_only.json = true;
        let rendered = Build::new()
            .model(dir().join(model))
            .target(target)
            .sources(Vec::<PathBuf>::new())
            .name("fixture")
            .emit(json_only)
            .try_render()
            .unwrap_or_else(|e| panic!("{model}: {e}"));
        let (file, json) = &rendered.files[0];
        assert_eq!(file, "fixture.plan.json");
        let plan = ModelPlan::from_json(std::str::from_utf8(json).unwrap()).unwrap();
        let sizes: Vec<u64> = plan
            .buffers
            .iter()
            .filter(|b| b.kind == BufferKind::Scratch)
            .map(|b| b.size)
            .collect();
        assert_eq!(sizes, vec![scratch], "{model}");
    }
}
