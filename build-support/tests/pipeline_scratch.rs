//! The delegate scratch pipeline on native TOML models: scratch becomes part of the plan.

mod common;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::model::{Program, ValueKind};
use arenaplan_build::pipeline::{
    argument_lists, bind_scratch, insert_scratch, BufferKind, CallKind, ModelPlan, Pipeline,
    PipelineError,
};
use arenaplan_build::targets::Catalogue;
use arenaplan_planner::verify::verify;
use arenaplan_planner::{Buffer, Problem};

fn model(text: &str) -> Program {
    parse_toml_model(&SourceText::new("test.toml", text), None).unwrap_or_else(|d| panic!("{d}"))
}

fn targets(text: &str) -> Catalogue {
    Catalogue::parse(&SourceText::new("targets.toml", text)).unwrap_or_else(|d| panic!("{d}"))
}

fn run(catalogue: &Catalogue, target: &str, program: Program) -> (Program, ModelPlan) {
    let target = catalogue.target(target).unwrap();
    let (program, plan) = common::planned(target, program).unwrap_or_else(|e| panic!("{e}"));
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
section = ".arenaplan.s"
region = "SRAM"
[[target.pool]]
mem_id = 2
name = "npu_only"
capacity = "64 KiB"
section = ".arenaplan.n"
region = "NPU"
cpu_access = false
[[target.pool]]
mem_id = 3
name = "fast"
capacity = "32 KiB"
section = ".arenaplan.f"
region = "TCM"
[[target.pool]]
mem_id = 4
name = "off"
capacity = "32 KiB"
section = ".arenaplan.o"
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
fn building_argument_lists_without_the_pass_is_an_error() {
    let c = Catalogue::builtin();
    let target = c.target("corstone-300").unwrap();
    let program = model(&chain("{ size = 2048, pool = \"npu_scratch\" }", ""));
    let bound = bind_scratch(&program, target, &[], &[], None).unwrap();
    let err = argument_lists(&program, &bound).unwrap_err();
    assert_eq!(
        err.to_string(),
        "call 0 of delegate `a` (EthosUBackend) declares 1 scratch buffer(s) but its argument list has 0: run the scratch pass (arenaplan's pipeline does) before building argument lists"
    );
    let mut passed = program.clone();
    insert_scratch(&mut passed, &bound);
    assert_eq!(argument_lists(&passed, &bound).unwrap()[0].args.len(), 3);
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
        let bound = bind_scratch(&once, target, &[], &[], None).unwrap();
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
        let errors = bind_scratch(&program, target, &[], &[], None).unwrap_err();
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
    assert_eq!(
        bind_scratch(&program, target, &[], &[], None)
            .unwrap_err()
            .len(),
        2
    );
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
    // The value keeps the declared bytes; its buffer owns whole 32-byte cache lines (Cortex-M55).
    assert_eq!(program.values[b.id].bytes, 500);
    assert_eq!(b.size, 512);
    assert_eq!(b.offset % 32, 0);
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
    // A backend whose NPU reads its inputs where they are: only the kernel touches `y`.
    let text = chain("", "")
        .replace(
            "name = \"y\"\ndtype = \"int8\"",
            "name = \"y\"\npool = \"npu_private\"\ndtype = \"int8\"",
        )
        .replace("EthosUBackend", "VendorNpu");
    let err = Pipeline::new(c.target("three-pools").unwrap())
        .plan(model(&text))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "tensor `y` is in pool `npu_only` (mem_id 2), which the CPU cannot reach, but the CPU touches it in `relu` (instruction 1: a kernel, or a backend that copies its inputs and outputs with the CPU); put it in a pool with cpu_access = true"
    );
}

/// The Ethos-U backend copies a call's inputs and outputs through Vela's scratch with the CPU:
/// an input, or that scratch, in a pool the CPU cannot reach is refused at build time (on the
/// board it faulted).
#[test]
fn ethos_u_io_and_its_scratch_must_be_cpu_reachable() {
    let c = targets(THREE_POOLS);
    let target = c.target("three-pools").unwrap();
    // An input in the NPU's private pool.
    let text = chain("", "").replace(
        "name = \"x\"\ndtype = \"int8\"",
        "name = \"x\"\npool = \"npu_private\"\ndtype = \"int8\"",
    );
    let err = Pipeline::new(target).plan(model(&text)).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("tensor `x` is in pool `npu_only`")
            && err.to_string().contains("`EthosUBackend` (instruction 0"),
        "{err}"
    );
    // Vela's scratch (region 1, from the blob) in that pool, through the compile spec.
    // (With the Ethos-U55 the fixture was compiled for: the build refuses a blob for another.)
    let private = THREE_POOLS
        .replace(
            "sram = \"sram\"",
            "sram = \"sram\"\nnpu_scratch = \"npu_only\"",
        )
        .replacen(
            "default_pool = \"sram\"\n",
            "default_pool = \"sram\"\n[target.npu]\nbackend = \"EthosUBackend\"\nconfig = \"ethos-u55-128\"\n",
            1,
        );
    let c = targets(&private);
    let pte = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/fixtures/ethosu_u55_two_calls.pte");
    let program = arenaplan_build::import::load_pte(&pte).unwrap();
    let err = Pipeline::new(c.target("three-pools").unwrap())
        .plan(program)
        .unwrap_err();
    assert!(err.to_string().contains("`EthosUBackend`"), "{err}");
    assert!(err.to_string().contains("pool `npu_only`"), "{err}");
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
        rust: false,
        scratch: DeclaredScratch::Sizes(vec![
            ScratchSpec {
                size: 4096,
                pool: PoolChoice::Spec("npu_scratch".into()),
                label: None,
                origin: Origin::Unknown,
                role: None,
            },
            ScratchSpec {
                size: 1024,
                pool: PoolChoice::Spec("fast_scratch".into()),
                label: None,
                origin: Origin::Unknown,
                role: None,
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

// ---------------------------------------------------------------------------------------------
// Scratch roles keep their slots: blobs built here, byte by byte, to the documented layouts.

mod slots {
    use arenaplan_build::backends::ScratchRole;
    use arenaplan_build::emit::{Emit, Symbols};
    use arenaplan_build::model::{Program, ValueKind};
    use arenaplan_build::pipeline::{CallPlan, ModelPlan, Pipeline};
    use arenaplan_build::report::report;
    use arenaplan_build::targets::Catalogue;

    /// A Neutron payload with one input and one output (format bytes 0), a 64-byte microcode
    /// whose words are the magic, sizes, I/O counts and `words`, then weights and kernels.
    fn neutron(version: u8, words: &[(usize, u32)]) -> Vec<u8> {
        let mut v = vec![1u8, 1, 1, 0, 0, 0, 0, version];
        v.resize(16, 0);
        let mut payload = [0u32; 16];
        payload[0] = 0x6443_4D6E;
        payload[6] = 64; // microcode bytes
        payload[7] = 32; // weight bytes
        let io = if version == 0 { 11 } else { 13 };
        payload[io] = 1;
        payload[io + 1] = 1;
        for &(i, w) in words {
            payload[i] = w;
        }
        for w in payload {
            v.extend_from_slice(&w.to_le_bytes());
        }
        v.extend([0xA5; 32 + 16]); // weights, kernels
        v
    }

    /// A Vela bin stream with one input and one output and Vela's `scratch_size`.
    fn vela(scratch_size: u32) -> Vec<u8> {
        // One 16-byte record at the scratch's start; none without scratch, where the copies
        // could not live (the C backend refuses such a record).
        let io = {
            let count = u32::from(scratch_size >= 16);
            let mut v = count.to_le_bytes().to_vec();
            for _ in 0..count {
                for w in [1u32, 1, 1, 1, 1, 16, 1, 0, 1] {
                    v.extend_from_slice(&w.to_le_bytes());
                }
            }
            v
        };
        let blocks: [(&str, Vec<u8>); 7] = [
            ("vela_bin_stream", vec![]),
            ("cmd_data", b"COP1\0\0\0\0".to_vec()),
            ("weight_data", vec![7; 16]),
            ("scratch_size", scratch_size.to_le_bytes().to_vec()),
            ("inputs", io.clone()),
            ("outputs", io),
            ("vela_end_stream", vec![]),
        ];
        let mut out = Vec::new();
        for (name, data) in blocks {
            let mut header = [0u8; 32];
            header[..name.len()].copy_from_slice(name.as_bytes());
            header[16..20].copy_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&header);
            out.extend_from_slice(&data);
            out.resize(out.len().div_ceil(16) * 16, 0);
        }
        out
    }

    /// x (16 bytes) -> one call of `backend` running `blob` -> y (16 bytes).
    fn one_call(backend: &str, blob: Vec<u8>, flags: &str) -> Program {
        crate::common::blob_call(backend, blob, flags, 16)
    }

    fn planned(target: &str, program: Program) -> (Program, ModelPlan) {
        let catalogue = Catalogue::builtin();
        crate::common::planned(catalogue.target(target).unwrap(), program)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The call's trailing arguments as (label, bytes, planned?).
    fn trailing(program: &Program, plan: &ModelPlan) -> Vec<(String, u64, bool)> {
        let call: &CallPlan = &plan.calls[0];
        assert_eq!((call.inputs, call.outputs), (1, 1));
        assert_eq!(call.args.len(), 2 + call.scratch);
        call.args[2..]
            .iter()
            .map(|&a| {
                let v = &program.values[a];
                assert!(matches!(v.kind, ValueKind::Scratch { call: 0, .. }));
                let label = v.name.rsplit('.').next().unwrap().to_owned();
                let planned = plan.buffer(a).is_some();
                assert_eq!(planned, v.bytes > 0, "{label}: planned iff it has bytes");
                (label, v.bytes, planned)
            })
            .collect()
    }

    fn args(list: &[(&str, u64)]) -> Vec<(String, u64, bool)> {
        list.iter()
            .map(|&(l, b)| (l.to_owned(), b, b > 0))
            .collect()
    }

    /// A Neutron delegate whose scratch a model declares (by position, no roles) and whose
    /// input the payload asks to see channels-last: the declared buffers keep slots 0 and 1,
    /// the transposition buffer the build adds takes its slot 4 (it once took slot 4 and
    /// pushed them to 5 and 6, where the backend never looks: planned, then
    /// `AP_ERR_SCRATCH_TOO_SMALL` at the call).
    #[test]
    fn neutron_declared_scratch_keeps_its_slots_beside_the_transposition() {
        use arenaplan_build::model::{Origin, PoolChoice, ScratchSpec};
        let mut blob = neutron(0, &[]);
        blob[3] = 1; // the input's format byte: transposed to NHWC for the NPU
        let mut program = one_call("NeutronBackend", blob, "");
        program.values[0].shape = vec![1, 4, 2, 2];
        let declared = |size: i64, pool: &str, label: &str| ScratchSpec {
            size,
            pool: PoolChoice::Spec(pool.into()),
            label: Some(label.into()),
            origin: Origin::Unknown,
            role: None,
        };
        program.delegates[0].scratch = vec![
            declared(256, "npu_scratch", "scratch"),
            declared(64, "fast_scratch", "sram"),
        ];
        let expected = args(&[
            ("scratch", 256),
            ("sram", 64),
            ("profile", 0),
            ("debug", 0),
            ("transpose", 16),
        ]);
        let declared_in_model = program.clone();
        let (program, plan) = planned("imxrt700", declared_in_model.clone());
        assert_eq!(trailing(&program, &plan), expected);
        // The same sizes from a firmware's `#[delegate(scratch = [..])]`: they replace the
        // blob's buffers, never the transposition the call's tensors need.
        use arenaplan_build::pipeline::{BackendScratch, DeclaredScratch};
        let mut from_firmware = declared_in_model;
        let sizes = std::mem::take(&mut from_firmware.delegates[0].scratch);
        let catalogue = Catalogue::builtin();
        let target = catalogue.target("imxrt700").unwrap();
        let mut pipeline = Pipeline::new(target);
        pipeline.declare(BackendScratch {
            backend: "NeutronBackend".into(),
            rust: false,
            scratch: DeclaredScratch::Sizes(sizes),
        });
        let (program, plan) = pipeline
            .run(from_firmware)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(trailing(&program, &plan), expected);
    }

    /// The NPU reads and writes every tensor of a Neutron call: an empty one is refused at
    /// build time, as the C backend refuses it (a NULL address) at each call.
    #[test]
    fn a_neutron_call_with_an_empty_tensor_is_refused() {
        for side in [0, 1] {
            let mut program = one_call("NeutronBackend", neutron(0, &[]), "");
            program.values[side].shape = vec![0];
            program.values[side].bytes = 0;
            let err = Pipeline::new(Catalogue::builtin().target("mcxn947").unwrap())
                .plan(program)
                .unwrap_err()
                .to_string();
            let name = ["input", "output"][side];
            assert!(
                err.starts_with(&format!("instruction 0: delegate `npu` (NeutronBackend): {name} 0 is 0 bytes (an empty tensor)")),
                "{err}"
            );
        }
    }

    #[test]
    fn neutron_sram_scratch_without_main_scratch_keeps_slot_one() {
        let (program, plan) = planned(
            "imxrt700",
            one_call("NeutronBackend", neutron(0, &[(9, 0), (10, 2048)]), ""),
        );
        assert_eq!(
            trailing(&program, &plan),
            args(&[("scratch", 0), ("sram_scratch", 2048)])
        );
        // The empty slot reaches the runtime's tables as "no memory": mem_id 0, NULL.
        let empty = plan.calls[0].args[2];
        let target = Catalogue::builtin();
        let target = target.target("imxrt700").unwrap();
        let files = crate::common::emit_files(&program, &plan, target, "m", Symbols::C, Emit::ALL);
        let source = crate::common::text(&files, "m_program.c");
        let rows: Vec<&str> = source
            .lines()
            .skip_while(|l| !l.contains("m_tensors["))
            .skip(1)
            .collect();
        assert_eq!(
            rows[empty],
            "    {0u, 0u, 0u, 0}, /* empty scratch slot: the backend gets NULL, 0 bytes */"
        );
        assert!(
            rows[empty + 1].starts_with("    {1u, "),
            "{}",
            rows[empty + 1]
        );
        assert!(source.contains(&format!(
            "m_args0[4] = {{0u, 1u, {empty}u, {}u}}",
            empty + 1
        )));
        // plan.json and the report say the same.
        let back = ModelPlan::from_json(&plan.to_json()).unwrap();
        assert_eq!(back.calls[0].scratch, 2);
        assert!(back.buffer(empty).is_none());
        let text = report(&program, &plan, target, &Default::default());
        assert!(text.contains("scratch 0 `npu@0.scratch`: empty"), "{text}");
    }

    #[test]
    fn neutron_main_scratch_alone_is_one_argument() {
        let (program, plan) = planned(
            "imxrt700",
            one_call("NeutronBackend", neutron(0, &[(9, 4096), (10, 0)]), ""),
        );
        assert_eq!(trailing(&program, &plan), args(&[("scratch", 4096)]));
    }

    #[test]
    fn neutron_main_and_sram_scratch_are_two_arguments() {
        let (program, plan) = planned(
            "mcxn947",
            one_call("NeutronBackend", neutron(0, &[(9, 4096), (10, 1024)]), ""),
        );
        assert_eq!(
            trailing(&program, &plan),
            args(&[("scratch", 4096), ("sram_scratch", 1024)])
        );
    }

    #[test]
    fn neutron_v1_profile_and_debug_get_slots_two_and_three() {
        let blob = neutron(1, &[(9, 4096), (10, 0x8000_0100), (11, 64), (12, 1024)]);
        let (program, plan) = planned("imxrt700", one_call("NeutronBackend", blob, ""));
        assert_eq!(
            trailing(&program, &plan),
            args(&[
                ("scratch", 4096),
                ("sram_scratch", 1024),
                ("profile", 256),
                ("debug", 64)
            ])
        );
        assert_eq!(ScratchRole::NeutronDebug.slot(), 3);
        // Only a debug buffer: every slot before it is kept, empty.
        let blob = neutron(1, &[(11, 64)]);
        let (program, plan) = planned("imxrt700", one_call("NeutronBackend", blob, ""));
        assert_eq!(
            trailing(&program, &plan),
            args(&[
                ("scratch", 0),
                ("sram_scratch", 0),
                ("profile", 0),
                ("debug", 64)
            ])
        );
        // Nothing needed: no trailing arguments at all.
        let (program, plan) = planned("imxrt700", one_call("NeutronBackend", neutron(1, &[]), ""));
        assert_eq!(trailing(&program, &plan), args(&[]));
    }

    /// The C backend copies each input through the scratch at its record's size and refuses
    /// a call whose tensor differs: refused at build time now, naming the call.
    #[test]
    fn ethos_u_io_sizes_that_differ_from_the_blob_are_refused_at_build_time() {
        let mut program = one_call("EthosUBackend", vela(64), "--memory-mode=Shared_Sram");
        program.values[0].shape = vec![32];
        program.values[0].bytes = 32;
        let catalogue = Catalogue::builtin();
        let err = Pipeline::new(catalogue.target("corstone-300").unwrap())
            .plan(program)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("instruction 0: delegate `npu` (EthosUBackend): input 0 is 32 bytes, but the blob copies 16"),
            "{err}"
        );
        // An empty output (a dimension of 0) has no room for the NPU's 16 bytes: refused here,
        // not at the call (where zero rows once read as "copy whole", through NULL).
        let mut program = one_call("EthosUBackend", vela(64), "--memory-mode=Shared_Sram");
        program.values[1].shape = vec![0];
        program.values[1].bytes = 0;
        let err = Pipeline::new(catalogue.target("corstone-300").unwrap())
            .plan(program)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("instruction 0: delegate `npu` (EthosUBackend): output 0 is 0 bytes (an empty tensor), but the blob writes 16"),
            "{err}"
        );
        // An output of whole rows no wider than Vela's is fine (ExecuTorch's layout).
        let mut program = one_call("EthosUBackend", vela(64), "--memory-mode=Shared_Sram");
        program.values[1].shape = vec![8];
        program.values[1].bytes = 8;
        planned("corstone-300", program);
    }

    #[test]
    fn ethos_u_dedicated_sram_without_vela_scratch_is_empty_then_fast() {
        let (program, plan) = planned(
            "corstone-320",
            one_call("EthosUBackend", vela(0), "--memory-mode=Dedicated_Sram"),
        );
        assert_eq!(
            trailing(&program, &plan),
            args(&[("scratch", 0), ("fast_scratch", 0x60000)])
        );
        let fast = plan.buffer(plan.calls[0].args[3]).unwrap();
        assert_eq!(fast.mem_id, 1, "fast scratch in SRAM");
        // With Vela's scratch both are buffers; in Shared_Sram without it, none is.
        let (program, plan) = planned(
            "corstone-320",
            one_call("EthosUBackend", vela(768), "--memory-mode=Dedicated_Sram"),
        );
        assert_eq!(
            trailing(&program, &plan),
            args(&[("scratch", 768), ("fast_scratch", 0x60000)])
        );
        let (program, plan) = planned(
            "corstone-300",
            one_call("EthosUBackend", vela(0), "--memory-mode=Shared_Sram"),
        );
        assert_eq!(trailing(&program, &plan), args(&[]));
    }

    #[test]
    fn blob_pools_from_a_declaration_apply_by_slot() {
        use arenaplan_build::model::{Origin, PoolChoice};
        use arenaplan_build::pipeline::{BackendScratch, DeclaredScratch};
        let catalogue = Catalogue::builtin();
        let mut pipeline = Pipeline::new(catalogue.target("mcxn947").unwrap());
        pipeline.declare(BackendScratch {
            backend: "NeutronBackend".into(),
            rust: false,
            scratch: DeclaredScratch::Blob {
                // Slot 0 (empty here) and slot 1: the SRAM scratch goes to `cpu_scratch`.
                pools: vec![
                    PoolChoice::Spec("npu_scratch".into()),
                    PoolChoice::Spec("cpu_scratch".into()),
                ],
                origin: Origin::Unknown,
            },
        });
        let (program, plan) = pipeline
            .run(one_call(
                "NeutronBackend",
                neutron(0, &[(9, 0), (10, 512)]),
                "",
            ))
            .unwrap();
        assert_eq!(
            trailing(&program, &plan),
            args(&[("scratch", 0), ("sram_scratch", 512)])
        );
        assert_eq!(plan.buffer(plan.calls[0].args[3]).unwrap().mem_id, 2);
    }

    #[test]
    fn a_role_of_another_backend_or_a_second_one_is_refused() {
        use arenaplan_build::pipeline::bind_scratch;
        let catalogue = Catalogue::builtin();
        let target = catalogue.target("imxrt700").unwrap();
        let mut program = one_call("NeutronBackend", neutron(0, &[(9, 64)]), "");
        let mut foreign = program.delegates[0].scratch[0].clone();
        foreign.role = Some(ScratchRole::EthosUFastScratch);
        let twice = program.delegates[0].scratch[0].clone();
        program.delegates[0].scratch.extend([foreign, twice]);
        let errors: Vec<String> = bind_scratch(&program, target, &[], &[], None)
            .unwrap_err()
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            errors,
            vec![
                "the NeutronBackend blob: delegate `npu` (NeutronBackend), scratch buffer 1 `scratch`: a second buffer for NeutronBackend `scratch` (slot 0); each role has one slot, remove one of them",
                "the NeutronBackend blob: delegate `npu` (NeutronBackend), scratch buffer 2 `scratch`: it fills EthosUBackend `fast_scratch` (slot 1), a role of another backend; give it no role (declaration order) or move it to that backend",
            ]
        );
    }
}

/// The `arenaplan.` compile specs are the build's own (Neutron's transposition descriptor): a
/// model that sets one is refused, so no model text can pose as a descriptor the C backend
/// trusts.
#[test]
fn a_model_may_not_set_the_builds_own_compile_specs() {
    let text = common::one_call("NeutronBackend", "{ size = 64, pool = \"npu_scratch\" }")
        .replace(
            "backend = \"NeutronBackend\"",
            "backend = \"NeutronBackend\"\ncompile_specs = { \"arenaplan.neutron.transpose\" = \"i0:1,1,1,16,1@0\" }",
        );
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("mcxn947").unwrap();
    let e = Pipeline::new(target)
        .run(model(&text))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("compile spec `arenaplan.neutron.transpose`") && e.contains("remove it"),
        "{e}"
    );
}
