//! The delegate scratch pipeline on native TOML models: scratch becomes part of the plan.

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::model::{parse_toml_model, Program, ValueKind};
use arenaplan_build::pipeline::{
    argument_tables, bind_scratch, insert_scratch, BufferKind, CallKind, ModelPlan, Pipeline,
    PipelineError,
};
use arenaplan_build::plan::{Buffer, Problem};
use arenaplan_build::targets::Catalogue;
use arenaplan_build::verify::verify;

fn model(text: &str) -> Program {
    parse_toml_model(&SourceText::new("test.toml", text), None).unwrap_or_else(|d| panic!("{d}"))
}

fn targets(text: &str) -> Catalogue {
    Catalogue::parse(&SourceText::new("targets.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

fn run(catalogue: &Catalogue, target: &str, program: Program) -> (Program, ModelPlan) {
    let target = catalogue.target(target).unwrap();
    let (program, plan) = Pipeline::new(target)
        .run(program)
        .unwrap_or_else(|e| panic!("{e}"));
    check(&program, &plan, catalogue, &target.name);
    (program, plan)
}

/// Every pool's plan passes the independent checker; scratch lives exactly during its call.
fn check(program: &Program, plan: &ModelPlan, catalogue: &Catalogue, target: &str) {
    let target = catalogue.target(target).unwrap();
    for pool in &plan.pools {
        let alignment = target.pool(pool.mem_id).unwrap().alignment;
        let members: Vec<_> = plan
            .buffers
            .iter()
            .filter(|b| b.mem_id == pool.mem_id)
            .collect();
        let problem = Problem::new(
            members
                .iter()
                .map(|b| Buffer::new(b.size, b.first as u64, b.last as u64 + 1))
                .collect(),
        )
        .with_alignment(alignment)
        .with_capacity(pool.size);
        let offsets: Vec<u64> = members.iter().map(|b| b.offset).collect();
        verify(&problem, &offsets).unwrap_or_else(|e| panic!("pool {}: {e}", pool.name));
        assert!(pool.size >= pool.lower_bound && pool.size <= pool.capacity);
    }
    for b in &plan.buffers {
        if b.kind == BufferKind::Scratch {
            let call = b.call.expect("scratch names its call");
            assert_eq!(
                (b.first, b.last),
                (call, call),
                "scratch lives exactly during its call"
            );
            assert!(
                matches!(program.values[b.id].kind, ValueKind::Scratch { call: c, .. } if c == call)
            );
        }
    }
}

/// x -> npu(A) -> y -> cpu -> z -> npu(B) -> out, with the given scratch declarations.
fn chain(scratch_a: &str, scratch_b: &str) -> String {
    format!(
        r#"
name = "chain"
inputs = ["x"]
outputs = ["out"]
[[tensor]]
name = "x"
dtype = "int8"
shape = [4096]
[[tensor]]
name = "y"
dtype = "int8"
shape = [4096]
[[tensor]]
name = "z"
dtype = "int8"
shape = [4096]
[[tensor]]
name = "out"
dtype = "int8"
shape = [64]
[[delegate]]
name = "a"
backend = "EthosUBackend"
scratch = [{scratch_a}]
[[delegate]]
name = "b"
backend = "EthosUBackend"
scratch = [{scratch_b}]
[[instruction]]
kind = "delegate"
delegate = "a"
inputs = ["x"]
outputs = ["y"]
[[instruction]]
kind = "kernel"
op = "relu"
inputs = ["y"]
outputs = ["z"]
[[instruction]]
kind = "delegate"
delegate = "b"
inputs = ["z"]
outputs = ["out"]
"#
    )
}

fn delegate_calls(plan: &ModelPlan) -> Vec<&arenaplan_build::pipeline::CallPlan> {
    plan.calls
        .iter()
        .filter(|c| c.kind == CallKind::Delegate)
        .collect()
}

#[test]
fn a_backend_that_declares_no_scratch_is_untouched() {
    let c = Catalogue::builtin();
    let (program, plan) = run(&c, "corstone-300", model(&chain("", "")));
    for call in delegate_calls(&plan) {
        assert_eq!((call.inputs, call.outputs, call.scratch), (1, 1, 0));
        assert_eq!(call.args.len(), 2);
    }
    assert!(program
        .values
        .iter()
        .all(|v| !matches!(v.kind, ValueKind::Scratch { .. })));
}

#[test]
fn declared_scratch_is_one_trailing_argument_and_grows_the_arena_by_at_most_its_size() {
    let c = Catalogue::builtin();
    let (_, without) = run(&c, "corstone-300", model(&chain("", "")));
    let (program, with) = run(
        &c,
        "corstone-300",
        model(&chain("{ size = 2048, pool = \"npu_scratch\" }", "")),
    );
    let call = delegate_calls(&with)[0];
    assert_eq!((call.inputs, call.outputs, call.scratch), (1, 1, 1));
    let scratch = *call.args.last().unwrap();
    assert_eq!(program.values[scratch].bytes, 2048);
    assert_eq!(with.buffer(scratch).unwrap().kind, BufferKind::Scratch);
    assert!(with.pools[0].size <= without.pools[0].size + 2048);
}

#[test]
fn each_delegate_call_gets_its_own_scratch_size() {
    let c = Catalogue::builtin();
    let (program, plan) = run(
        &c,
        "corstone-300",
        model(&chain(
            "{ size = 1536, pool = \"npu_scratch\" }",
            "{ size = 8192, pool = \"npu_scratch\" }",
        )),
    );
    let sizes: Vec<u64> = delegate_calls(&plan)
        .iter()
        .map(|c| program.values[*c.args.last().unwrap()].bytes)
        .collect();
    assert_eq!(sizes, vec![1536, 8192]);
}

#[test]
fn scratch_of_disjoint_calls_shares_memory() {
    let c = Catalogue::builtin();
    let (_, plan) = run(
        &c,
        "corstone-300",
        model(&chain(
            "{ size = 8192, pool = \"npu_scratch\" }",
            "{ size = 8192, pool = \"npu_scratch\" }",
        )),
    );
    let scratch: Vec<_> = plan
        .buffers
        .iter()
        .filter(|b| b.kind == BufferKind::Scratch)
        .collect();
    assert_eq!(scratch.len(), 2);
    assert_eq!(scratch[0].offset, scratch[1].offset, "max, not sum");
    let tensors = 4096 * 2 + 64; // the most tensor bytes alive during any call
    assert!(plan.pools[0].size < tensors + 2 * 8192);
    assert_eq!(plan.pools[0].size, plan.pools[0].lower_bound);
}

const THREE_POOLS: &str = r#"
schema_version = 1
[[target]]
name = "three-pools"
cpu = "cortex-m55"
rust_target = "thumbv8m.main-none-eabihf"
default_pool = "sram"
[[target.pool]]
mem_id = 1
name = "sram"
capacity = "256 KiB"
section = ".bss.s"
region = "SRAM"
[[target.pool]]
mem_id = 2
name = "npu_only"
capacity = "64 KiB"
section = ".bss.n"
region = "NPU"
cpu_access = false
[[target.pool]]
mem_id = 3
name = "fast"
capacity = "32 KiB"
section = ".bss.f"
region = "TCM"
[[target.pool]]
mem_id = 4
name = "off"
capacity = "32 KiB"
section = ".bss.o"
region = "X"
enabled = false
[target.specs]
fast_scratch = "fast"
sram = "sram"
npu_private = "npu_only"
disabled = "off"
"#;

#[test]
fn two_buffers_keep_declaration_order_and_their_own_pools() {
    let c = targets(THREE_POOLS);
    let (program, plan) = run(
        &c,
        "three-pools",
        model(&chain(
            "{ size = 2048, pool = \"fast_scratch\" }, { size = 512, pool = \"sram\" }",
            "",
        )),
    );
    let call = delegate_calls(&plan)[0];
    assert_eq!(call.scratch, 2);
    let [first, second] = [call.args[2], call.args[3]];
    assert_eq!(program.values[first].bytes, 2048);
    assert_eq!(program.values[second].bytes, 512);
    assert_eq!(plan.buffer(first).unwrap().mem_id, 3);
    assert_eq!(plan.buffer(second).unwrap().mem_id, 1);
    assert_eq!(plan.pool(3).unwrap().size, 2048);
}

#[test]
fn scratch_inside_a_branch_arm_is_planned() {
    let c = Catalogue::builtin();
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/models/two_npu_calls.toml"
    ))
    .unwrap();
    let (program, plan) = run(&c, "corstone-300", model(&text));
    let classifier = plan
        .calls
        .iter()
        .find(|c| c.kind == CallKind::Delegate && c.inputs == 2)
        .expect("the call inside the branch");
    assert_eq!(classifier.scratch, 1);
    let scratch = plan.buffer(*classifier.args.last().unwrap()).unwrap();
    assert_eq!(program.values[scratch.id].bytes, 500);
    // Arms run one at a time: the branch's scratch may share with the other arm's buffers.
    assert_eq!(plan.pools[0].size, plan.pools[0].lower_bound);
}

#[test]
fn building_argument_tables_without_the_pass_is_an_error() {
    let c = Catalogue::builtin();
    let target = c.target("corstone-300").unwrap();
    let program = model(&chain("{ size = 2048, pool = \"npu_scratch\" }", ""));
    let bound = bind_scratch(&program, target, &[]).unwrap();
    let err = argument_tables(&program, &bound).unwrap_err();
    assert_eq!(
        err.to_string(),
        "delegate call 0 (delegate `a`, EthosUBackend) declares 1 scratch buffer(s) but its argument list has 0: run the scratch pass (arenaplan's pipeline does) before building argument tables"
    );
    let mut passed = program.clone();
    insert_scratch(&mut passed, &bound);
    assert_eq!(argument_tables(&passed, &bound).unwrap()[0].args.len(), 3);
}

#[test]
fn running_the_pipeline_twice_is_stable() {
    let c = Catalogue::builtin();
    for (a, b) in [
        ("", ""),
        (
            "{ size = 1536, pool = \"npu_scratch\" }",
            "{ size = 96, pool = \"npu_scratch\" }",
        ),
    ] {
        let (once, plan1) = run(&c, "corstone-300", model(&chain(a, b)));
        let (twice, plan2) = run(&c, "corstone-300", once.clone());
        assert_eq!(once, twice);
        assert_eq!(plan1.to_json(), plan2.to_json());
        let target = c.target("corstone-300").unwrap();
        let bound = bind_scratch(&once, target, &[]).unwrap();
        let mut again = once.clone();
        insert_scratch(&mut again, &bound);
        assert_eq!(again, once);
    }
}

#[test]
fn scratch_survives_a_deep_copy_and_a_plan_json_round_trip() {
    let c = Catalogue::builtin();
    let (program, plan) = run(
        &c,
        "corstone-300",
        model(&chain(
            "{ size = 1536, pool = \"npu_scratch\" }",
            "{ size = 8192, pool = \"npu_scratch\" }",
        )),
    );
    let copy = program.clone();
    assert_eq!(
        copy.values
            .iter()
            .filter(|v| matches!(v.kind, ValueKind::Scratch { .. }))
            .count(),
        2
    );
    let text = plan.to_json();
    let back = ModelPlan::from_json(&text).unwrap();
    assert_eq!(back, plan);
    assert_eq!(back.to_json(), text);
    assert_eq!(
        back.buffers
            .iter()
            .filter(|b| b.kind == BufferKind::Scratch)
            .count(),
        2
    );
    assert!(text.contains("\"kind\": \"scratch\""));
    assert!(text.contains("\"call\": 2"));
}

#[test]
fn unusable_requests_are_rejected_at_declaration() {
    let c = targets(THREE_POOLS);
    let target = c.target("three-pools").unwrap();
    let cases = [
        (
            "{ size = 0, pool = \"sram\" }",
            "size must be positive, found 0",
        ),
        (
            "{ size = -16, pool = \"sram\" }",
            "size must be positive, found -16",
        ),
        (
            "{ size = 64, mem_id = 0 }",
            "mem_id must be at least 1 (0 is reserved), found 0",
        ),
        (
            "{ size = 64, pool = \"sarm\" }",
            "has no compile spec `sarm` (did you mean `sram`?)",
        ),
        (
            "{ size = 64, pool = \"disabled\" }",
            "pool `off` (mem_id 4) of target `three-pools` is disabled by default",
        ),
        ("{ size = 64, mem_id = 9 }", "has no pool with mem_id 9"),
    ];
    for (decl, expected) in cases {
        let program = model(&chain(
            &format!("{{ size = 32, pool = \"sram\" }}, {decl}"),
            "",
        ));
        let errors = bind_scratch(&program, target, &[]).unwrap_err();
        assert_eq!(errors.len(), 1);
        let message = errors[0].to_string();
        assert!(message.starts_with("test.toml:"), "{message}");
        assert!(
            message.contains("delegate `a` (EthosUBackend), scratch buffer 1: "),
            "{message}"
        );
        assert!(message.contains(expected), "{message}");
    }
    // All errors at once, not just the first.
    let program = model(&chain(
        "{ size = 0, pool = \"sram\" }",
        "{ size = 64, pool = \"nope\" }",
    ));
    assert_eq!(bind_scratch(&program, target, &[]).unwrap_err().len(), 2);
}

#[test]
fn an_odd_size_is_planned_as_declared_and_aligned() {
    let c = Catalogue::builtin();
    let (program, plan) = run(
        &c,
        "corstone-300",
        model(&chain("{ size = 500, pool = \"npu_scratch\" }", "")),
    );
    let b = plan
        .buffers
        .iter()
        .find(|b| b.kind == BufferKind::Scratch)
        .unwrap();
    assert_eq!(b.size, 500);
    assert_eq!(program.values[b.id].bytes, 500);
    assert_eq!(b.offset % 16, 0);
}

#[test]
fn scratch_never_overlaps_a_tensor_alive_across_its_call() {
    let c = Catalogue::builtin();
    // `x` is read by both calls: alive across the first call's scratch.
    let text = chain(
        "{ size = 4096, pool = \"npu_scratch\" }",
        "{ size = 4096, pool = \"npu_scratch\" }",
    )
    .replace("inputs = [\"z\"]", "inputs = [\"z\", \"x\"]");
    let (_, plan) = run(&c, "corstone-300", model(&text));
    for s in plan
        .buffers
        .iter()
        .filter(|b| b.kind == BufferKind::Scratch)
    {
        for t in plan.buffers.iter().filter(|b| b.kind == BufferKind::Tensor) {
            let alive_together = t.first <= s.first && s.first <= t.last;
            let share_bytes = s.offset < t.offset + t.size && t.offset < s.offset + s.size;
            assert!(
                !(alive_together && share_bytes),
                "scratch {} overlaps tensor {}",
                s.id,
                t.id
            );
        }
    }
}

#[test]
fn a_cpu_kernel_cannot_touch_a_pool_the_cpu_cannot_reach() {
    let c = targets(THREE_POOLS);
    let text = chain("", "").replace(
        "name = \"y\"\ndtype = \"int8\"",
        "name = \"y\"\npool = \"npu_private\"\ndtype = \"int8\"",
    );
    let err = Pipeline::new(c.target("three-pools").unwrap())
        .plan(model(&text))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tensor `y` is in pool `npu_only` (mem_id 2), which the CPU cannot reach, but CPU kernel `relu` (instruction 1) uses it; put it in a pool with cpu_access = true"
    );
}

#[test]
fn an_overflowing_pool_names_the_largest_buffers_at_the_peak() {
    let c = targets(THREE_POOLS);
    let err = Pipeline::new(c.target("three-pools").unwrap())
        .plan(model(&chain(
            "{ size = 40000, pool = \"fast_scratch\" }",
            "",
        )))
        .unwrap_err();
    assert!(matches!(err, PipelineError::Overflow(_)));
    assert_eq!(
        err.to_string(),
        "pool `fast` (mem_id 3) needs 40000 bytes but has 32768 (7232 over; lower bound 40000); largest buffers alive at instruction 0: scratch of delegate `a` at call 0 (40000 bytes)"
    );
}

#[test]
fn scratch_can_come_from_a_backend_declaration() {
    use arenaplan_build::model::{Origin, PoolChoice, ScratchSpec};
    use arenaplan_build::pipeline::{BackendScratch, DeclaredScratch};
    let c = Catalogue::builtin();
    let target = c.target("corstone-320").unwrap();
    let mut pipeline = Pipeline::new(target);
    pipeline.declare(BackendScratch {
        backend: "EthosUBackend".into(),
        scratch: DeclaredScratch::Sizes(vec![
            ScratchSpec {
                size: 4096,
                pool: PoolChoice::Spec("npu_scratch".into()),
                label: None,
                origin: Origin::Unknown,
            },
            ScratchSpec {
                size: 1024,
                pool: PoolChoice::Spec("fast_scratch".into()),
                label: None,
                origin: Origin::Unknown,
            },
        ]),
    });
    let plan = pipeline.plan(model(&chain("", ""))).unwrap();
    for call in delegate_calls(&plan) {
        assert_eq!(call.scratch, 2);
    }
    // Dedicated_Sram: scratch in DDR, fast scratch in SRAM.
    let pools: Vec<u32> = plan
        .buffers
        .iter()
        .filter(|b| b.kind == BufferKind::Scratch)
        .map(|b| b.mem_id)
        .collect();
    assert_eq!(pools, vec![2, 1, 2, 1]);
}
