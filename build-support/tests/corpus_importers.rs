//! Conformance of the importers over `../shared/corpus/`: real ExecuTorch programs, TFLite
//! models and their Vela compilations. Each file is imported and planned; what a correct
//! importer must extract (the `*.expect.json` sidecars, `reference.csv`) is checked exactly.

mod common;

use std::path::Path;

use arenaplan_build::backends::{IoRecord, NeutronHeader, VelaBinStream};
use arenaplan_build::import::{load_pte, load_tflite};
use arenaplan_build::model::{Instruction, Origin, PoolChoice, Program, ScratchSpec, ValueKind};
use arenaplan_build::pipeline::{BufferKind, CallKind, ModelPlan};
use arenaplan_build::targets::Catalogue;
use common::corpus;
use serde_json::Value as Json;

fn plan(program: Program, target: &str) -> (Program, ModelPlan) {
    let catalogue = Catalogue::builtin();
    common::planned(catalogue.target(target).unwrap(), program)
        .unwrap_or_else(|e| panic!("{target}: {e}"))
}

/// Corstone-320's memories with an Ethos-U55-128 in place of its U85, for the corpus's U55
/// programs (the build refuses a blob for another NPU than the target's).
fn u55_on_corstone_320() -> arenaplan_build::targets::Target {
    let mut t = Catalogue::builtin().target("corstone-320").unwrap().clone();
    if let Some(npu) = t.npu.as_mut() {
        npu.config = "ethos-u55-128".into();
    }
    t
}

fn delegate_calls(program: &Program) -> Vec<(usize, usize, usize)> {
    program
        .flat_instructions()
        .into_iter()
        .filter_map(|(i, ins)| match ins {
            Instruction::Delegate(d) => {
                Some((i, d.delegate, d.inputs.len() * 1000 + d.outputs.len()))
            }
            _ => None,
        })
        .collect()
}

fn scratch_sizes(specs: &[ScratchSpec], spec: &str) -> Vec<i64> {
    specs
        .iter()
        .filter(|s| s.pool == PoolChoice::Spec(spec.into()))
        .map(|s| s.size)
        .collect()
}

/// Sizes of the planned scratch buffers of the delegate call at flat index `call`.
/// The bytes of each scratch argument of a call, as the planned program has them (the plan's
/// buffer may be larger: padded to whole cache lines on targets with a data cache).
fn planned_scratch(program: &Program, plan: &ModelPlan, call: usize) -> Vec<u64> {
    let c = plan
        .calls
        .iter()
        .find(|c| c.index == call && c.kind == CallKind::Delegate)
        .unwrap();
    c.args[c.inputs + c.outputs..]
        .iter()
        .map(|&a| {
            // An empty slot (a role not needed before one that is): no memory.
            let Some(b) = plan.buffer(a) else {
                assert_eq!(program.values[a].bytes, 0);
                return 0;
            };
            assert_eq!(b.kind, BufferKind::Scratch);
            let bytes = program.values[a].bytes;
            assert!(
                b.size >= bytes && b.size < bytes + 32,
                "padding within one line"
            );
            bytes
        })
        .collect()
}

#[test]
fn delegated_programs_match_their_sidecars() {
    let Some(corpus) = corpus() else { return };
    let sidecars = common::files(&corpus.join("pte-delegated"), "json");
    assert!(sidecars.len() >= 4, "expected the delegated programs");
    for sidecar in sidecars {
        let expect: Json =
            serde_json::from_str(&std::fs::read_to_string(&sidecar).unwrap()).unwrap();
        let pte = corpus
            .join("pte-delegated")
            .join(expect["file"].as_str().unwrap());
        let name = pte.display().to_string();
        if transposed_io(&expect).is_some() {
            // The runtime transposes those tensors as NXP's backend does, in a buffer the
            // build plans as the call's scratch.
            check_neutron_header(&pte, &expect);
            check_neutron_transpositions(&pte, &expect);
        }
        let program = load_pte(&pte).unwrap_or_else(|e| panic!("{name}: {e}"));
        let must = &expect["importer_must_extract"];
        let sizes: Vec<u64> = must["non_const_buffer_sizes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(
            program.source_plan.as_ref().unwrap().buffer_sizes,
            sizes,
            "{name}"
        );
        // The program's own offsets, kept for comparison.
        for t in expect["planned_tensors"].as_array().unwrap() {
            let v = t["value"].as_u64().unwrap() as usize;
            let own = program.source_plan.as_ref().unwrap().offsets[v];
            assert_eq!(
                own,
                Some((t["mem_id"].as_i64().unwrap(), t["offset"].as_u64().unwrap())),
                "{name}: value {v}"
            );
            assert_eq!(
                program.values[v].bytes,
                t["nbytes"].as_u64().unwrap(),
                "{name}: value {v}"
            );
        }
        let calls = delegate_calls(&program);
        let expected_calls = must["delegate_calls"].as_array().unwrap();
        assert_eq!(calls.len(), expected_calls.len(), "{name}");
        let backend = expected_calls[0]["backend_id"].as_str().unwrap();
        let target = if backend == "NeutronBackend" {
            "imxrt700"
        } else {
            "corstone-300"
        };
        let (planned, model_plan) = plan(program.clone(), target);
        for ((index, d, io), e) in calls.iter().zip(expected_calls) {
            let delegate = &program.delegates[*d];
            assert_eq!(
                delegate.backend,
                e["backend_id"].as_str().unwrap(),
                "{name}"
            );
            let (inputs, outputs) = (io / 1000, io % 1000);
            assert_eq!(inputs as u64, e["num_inputs"].as_u64().unwrap(), "{name}");
            assert_eq!(outputs as u64, e["num_outputs"].as_u64().unwrap(), "{name}");
            assert!(delegate
                .scratch
                .iter()
                .all(|s| matches!(s.origin, Origin::Blob { .. })));
            let mut expected_scratch = Vec::new();
            if delegate.backend == "EthosUBackend" {
                let scratch = e["scratch_size"].as_i64().unwrap();
                assert_eq!(
                    scratch_sizes(&delegate.scratch, "npu_scratch"),
                    vec![scratch],
                    "{name}: Vela's scratch size"
                );
                assert!(!e["fast_scratch_in_blob"].as_bool().unwrap());
                assert!(
                    scratch_sizes(&delegate.scratch, "fast_scratch").is_empty(),
                    "{name}"
                );
                expected_scratch.push(scratch as u64);
            } else {
                let header = NeutronHeader::parse(delegate.blob.as_ref().unwrap()).unwrap();
                assert_eq!(
                    u64::from(header.scratch_size),
                    e["scratchSize"].as_u64().unwrap()
                );
                assert_eq!(
                    u64::from(header.sram_scratch_size),
                    e["sramScratchSize"].as_u64().unwrap()
                );
                assert_eq!(
                    u64::from(header.profile_size),
                    e["profileSize"].as_u64().unwrap()
                );
                assert_eq!(
                    u64::from(header.debug_size),
                    e["debugSize"].as_u64().unwrap()
                );
                assert_eq!(
                    u64::from(header.version),
                    e["payload_version"].as_u64().unwrap()
                );
                expected_scratch = vec![
                    u64::from(header.scratch_size),
                    u64::from(header.sram_scratch_size),
                ];
                // The transposition buffer (slot 4) keeps the profile and debug slots, empty.
                if let Some(t) = planned.delegates[*d]
                    .scratch
                    .iter()
                    .find(|s| s.label.as_deref() == Some("transpose"))
                {
                    expected_scratch.extend([0, 0, t.size as u64]);
                }
            }
            assert_eq!(
                planned_scratch(&planned, &model_plan, *index),
                expected_scratch,
                "{name}: planned scratch"
            );
        }
        // Our plan of the program's own tensors is no larger than ExecuTorch's; scratch adds
        // its size, in whole data-cache lines where the pool has them.
        let ours = model_plan.pool(1).unwrap().size;
        let unit = Catalogue::builtin()
            .target(target)
            .unwrap()
            .pool(1)
            .unwrap()
            .arena_alignment();
        let scratch_bytes: u64 = model_plan
            .buffers
            .iter()
            .filter(|b| b.kind == BufferKind::Scratch && b.mem_id == 1)
            .map(|b| b.size.div_ceil(unit) * unit)
            .sum();
        assert!(
            ours <= sizes[1] + scratch_bytes,
            "{name}: {ours} vs {}",
            sizes[1]
        );
        // One buffer per scratch value with bytes (an empty slot has none).
        let scratch_buffers = model_plan
            .buffers
            .iter()
            .filter(|b| b.kind == BufferKind::Scratch)
            .count();
        let empty_slots = planned.values[program.values.len()..]
            .iter()
            .filter(|v| v.bytes == 0)
            .count();
        assert_eq!(
            planned.values.len(),
            program.values.len() + scratch_buffers + empty_slots,
            "{name}"
        );
    }
}

/// For a program whose Neutron call asks the runtime to transpose an input or output: the
/// first such flag as the importer's error names it (`input 0 has format flag 1`).
fn transposed_io(expect: &Json) -> Option<String> {
    let neutron = &expect["delegate_calls"].as_array()?.first()?["neutron"];
    for (what, key) in [("input", "input_formats"), ("output", "output_formats")] {
        let flags = neutron[key].as_array()?;
        if let Some((i, f)) = flags
            .iter()
            .enumerate()
            .find(|(_, f)| f.as_u64() != Some(0))
        {
            return Some(format!("{what} {i} has format flag {f}"));
        }
    }
    None
}

/// A program whose Neutron call transposes: planned for i.MX RT700, the call has one
/// transposition buffer holding each flagged multi-channel input and output (16-byte aligned),
/// and the descriptor the C backend reads says where.
fn check_neutron_transpositions(pte: &Path, expect: &Json) {
    let program = load_pte(pte).unwrap();
    let (program, plan) = plan(program, "imxrt700");
    let neutron = &expect["delegate_calls"][0]["neutron"];
    let flags = |key: &str| -> Vec<u64> {
        neutron[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_u64().unwrap())
            .collect()
    };
    let (input_flags, output_flags) = (flags("input_formats"), flags("output_formats"));
    let (_, Instruction::Delegate(call)) = program
        .flat_instructions()
        .into_iter()
        .find(|(_, i)| matches!(i, Instruction::Delegate(_)))
        .unwrap()
    else {
        unreachable!()
    };
    let mut expected = 0u64;
    for (flags, args) in [(&input_flags, &call.inputs), (&output_flags, &call.outputs)] {
        for (slot, &flag) in flags.iter().enumerate() {
            let v = &program.values[args[slot]];
            let rank = v.shape.len();
            if flag != 0 && rank >= 3 && v.shape[rank - 3] != 1 && v.dim_order.is_empty() {
                expected += v.bytes.div_ceil(16) * 16;
            }
        }
    }
    let transpose = call
        .scratch
        .iter()
        .find(|&&s| program.values[s].name.ends_with(".transpose"))
        .map(|&s| program.values[s].bytes);
    assert!(
        expected > 0,
        "{}: a flagged multi-channel tensor",
        pte.display()
    );
    assert!(
        transpose.is_some_and(|t| t <= expected && t + 16 > expected),
        "{}: transposition buffer {transpose:?}, the flagged tensors take {expected}",
        pte.display()
    );
    let spec = &program.delegates[call.delegate].compile_specs["arenaplan.neutron.transpose"];
    assert!(spec.starts_with("i0:") || spec.starts_with("o0:"), "{spec}");
    assert!(plan
        .buffers
        .iter()
        .any(|b| program.values[b.id].name.ends_with(".transpose")));
}

/// The transposing program's Neutron header reads as its sidecar says (the blob found in
/// the file by its microcode magic).
fn check_neutron_header(pte: &Path, expect: &Json) {
    let data = std::fs::read(pte).unwrap();
    let call = &expect["delegate_calls"][0];
    let n = &call["neutron"];
    let magic = 0x6443_4D6Eu32.to_le_bytes();
    let at = data.windows(4).position(|w| w == magic).unwrap();
    let start = at - n["payload_offset"].as_u64().unwrap() as usize;
    let blob = &data[start..start + call["blob_size"].as_u64().unwrap() as usize];
    let header = NeutronHeader::parse(blob).unwrap();
    let sizes = &call["scratch"];
    let words = |j: &Json| j.as_u64().unwrap();
    assert_eq!(
        (
            u64::from(header.scratch_size),
            u64::from(header.sram_scratch_size),
            u64::from(header.profile_size),
            u64::from(header.debug_size),
            u64::from(header.version),
        ),
        (
            words(&sizes["scratchSize"]),
            words(&sizes["sramScratchSize"]),
            words(&sizes["profileSize"]),
            words(&sizes["debugSize"]),
            words(&sizes["payload_version"]),
        ),
        "{}",
        pte.display()
    );
    assert_eq!(
        (
            header.weights_offset as u64,
            header.kernels_offset as u64,
            header
                .input_formats
                .iter()
                .map(|&f| u64::from(f))
                .collect::<Vec<_>>(),
            header
                .output_formats
                .iter()
                .map(|&f| u64::from(f))
                .collect::<Vec<_>>(),
        ),
        (
            words(&n["weights_offset"]),
            words(&n["kernels_offset"]),
            n["input_formats"]
                .as_array()
                .unwrap()
                .iter()
                .map(words)
                .collect(),
            n["output_formats"]
                .as_array()
                .unwrap()
                .iter()
                .map(words)
                .collect(),
        ),
        "{}",
        pte.display()
    );
}

#[test]
fn dedicated_sram_fast_scratch_comes_from_the_target_and_says_so() {
    let Some(corpus) = corpus() else { return };
    let pte = corpus.join("pte-delegated/ethosu_u55_kws_ref.pte");
    let mut program = load_pte(&pte).unwrap();
    // The same blob compiled for Dedicated_Sram carries the same bin stream layout.
    for d in &mut program.delegates {
        let flags = d.compile_specs.get_mut("compile_flags").unwrap();
        *flags = flags.replace("Shared_Sram", "Dedicated_Sram");
    }
    let target = u55_on_corstone_320();
    let (planned, model_plan) = common::planned(&target, program).unwrap();
    let call = model_plan
        .calls
        .iter()
        .find(|c| c.kind == CallKind::Delegate)
        .unwrap();
    assert_eq!(
        planned_scratch(&planned, &model_plan, call.index),
        vec![22192, 0x60000]
    );
    let fast = model_plan.buffer(*call.args.last().unwrap()).unwrap();
    assert_eq!(fast.mem_id, 1, "fast scratch in SRAM");
    let report =
        arenaplan_build::report::report(&planned, &model_plan, &target, &Default::default());
    assert!(report.contains("fast_scratch"), "{report}");
}

#[test]
fn tflite_models_reach_the_reference_lower_bound() {
    let Some(corpus) = corpus() else { return };
    let rows = common::reference(&corpus);
    assert!(rows.len() >= 10);
    for (model, row) in &rows {
        let path = corpus.join("tflite").join(format!("{model}.tflite"));
        let mut program = load_tflite(&path).unwrap_or_else(|e| panic!("{model}: {e}"));
        assert!(program.delegates.is_empty());
        // The reference's buffers are the tensors TFLM plans: leave out the kernels' scratch
        // (measured against TFLM by tflite_ram.rs) and the state, which TFLM keeps apart.
        for instruction in &mut program.body {
            if let Instruction::Kernel(k) = instruction {
                k.scratch_need = None;
            }
        }
        for v in std::mem::take(&mut program.state) {
            program.values[v].kind = ValueKind::Unmanaged;
            program.values[v].data = None;
        }
        let (_, p) = plan(program, "corstone-300");
        let pool = p.pool(1).unwrap();
        // Our bound is of an arena ending at its last byte: the reference's rounds every
        // buffer, so it is above ours by less than one alignment. The arena is never below our
        // bound, and reaches the reference's.
        let reference = row["lower_bound_align16"];
        assert!(
            pool.lower_bound <= reference && reference - pool.lower_bound < 16,
            "{model}: bound {} vs the reference's {reference}",
            pool.lower_bound
        );
        assert!(
            pool.lower_bound <= pool.size && pool.size <= reference,
            "{model}: arena {} vs bound {}",
            pool.size,
            pool.lower_bound
        );
        assert!(
            pool.size <= row["tflm_arena_head"],
            "{model}: above TFLite Micro"
        );
    }
}

fn vela_scratch(path: &Path, target: &str) -> (Vec<u64>, Vec<u64>) {
    let program = load_tflite(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let (planned_program, p) = plan(program.clone(), target);
    let mut scratch = Vec::new();
    let mut fast = Vec::new();
    for (index, d, _) in delegate_calls(&program) {
        let delegate = &program.delegates[d];
        assert_eq!(delegate.backend, "EthosUBackend");
        let planned = planned_scratch(&planned_program, &p, index);
        let declared: Vec<u64> = delegate.scratch.iter().map(|s| s.size as u64).collect();
        assert_eq!(planned, declared, "{}: planned as declared", path.display());
        scratch.extend(
            scratch_sizes(&delegate.scratch, "npu_scratch")
                .iter()
                .map(|&s| s as u64),
        );
        fast.extend(
            scratch_sizes(&delegate.scratch, "fast_scratch")
                .iter()
                .map(|&s| s as u64),
        );
    }
    (scratch, fast)
}

#[test]
fn vela_models_recover_vela_scratch_sizes_exactly() {
    let Some(corpus) = corpus() else { return };
    for (model, row) in &common::reference(&corpus) {
        let u55 = corpus
            .join("vela/u55-128-shared-sram")
            .join(format!("{model}_vela.tflite"));
        // A model Vela splits into several partitions has one call per partition; each
        // uses Vela's scratch tensor.
        let (scratch, fast) = vela_scratch(&u55, "corstone-300");
        assert!(!scratch.is_empty(), "{model}");
        assert!(
            scratch.iter().all(|&s| s == row["u55_scratch"]),
            "{model}: u55 scratch {scratch:?}"
        );
        // Shared_Sram: fast scratch is the same tensor, planned once.
        assert_eq!(row["u55_fast_scratch"], row["u55_scratch"]);
        assert!(fast.is_empty(), "{model}: one buffer, not two");

        let u85 = corpus
            .join("vela/u85-256-dedicated-sram")
            .join(format!("{model}_vela.tflite"));
        let (scratch, fast) = vela_scratch(&u85, "corstone-320");
        assert!(!scratch.is_empty(), "{model}");
        assert!(
            scratch.iter().all(|&s| s == row["u85_scratch"]),
            "{model}: u85 scratch {scratch:?}"
        );
        if row["u85_fast_scratch"] == 0 {
            assert!(fast.is_empty(), "{model}: no fast scratch");
        } else {
            assert_eq!(fast.len(), scratch.len(), "{model}");
            assert!(
                fast.iter().all(|&s| s == row["u85_fast_scratch"]),
                "{model}: u85 fast scratch {fast:?}"
            );
        }
    }
}

/// The region-1 addresses a Vela command stream (a driver payload: `COP1`, then driver actions)
/// reads feature maps from (IFM, IFM2) and writes them to (OFM).
fn region1_feature_maps(payload: &[u8]) -> (Vec<u32>, Vec<u32>) {
    let words: Vec<u32> = payload
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    // Driver actions after the fourcc: 1 optimizer config (2 more words), 2 command stream
    // (length in bits 8-31), 5 nop.
    let mut at = 1;
    let mut stream = &[][..];
    while at < words.len() {
        let action = words[at];
        match action & 0xFF {
            1 => at += 3,
            2 => {
                let len = (action >> 16 | (action >> 8 & 0xFF) << 16) as usize;
                stream = &words[at + 1..at + 1 + len];
                at += 1 + len;
            }
            _ => at += 1,
        }
    }
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    // The region each base address is relative to: set by IFM_REGION (271), OFM_REGION (287)
    // and IFM2_REGION (399) commands; IFM_BASE0 (0), OFM_BASE0 (0x10) and IFM2_BASE0 (0x80)
    // carry a 32-bit payload.
    let (mut ifm, mut ofm, mut ifm2) = (None, None, None);
    let mut k = 0;
    while k < stream.len() {
        let (w, op) = (stream[k], stream[k] & 0x3FF);
        if (w >> 14) & 3 == 1 {
            let value = stream[k + 1];
            match op {
                0x00 if ifm == Some(1) => reads.push(value),
                0x80 if ifm2 == Some(1) => reads.push(value),
                0x10 if ofm == Some(1) => writes.push(value),
                _ => {}
            }
            k += 2;
            continue;
        }
        let region = Some((w >> 16) & 7);
        match op {
            271 => ifm = region,
            287 => ofm = region,
            399 => ifm2 = region,
            _ => {}
        }
        k += 1;
    }
    (reads, writes)
}

#[test]
fn vela_operators_run_as_bin_streams_with_feature_maps_where_the_command_stream_has_them() {
    let Some(corpus) = corpus() else { return };
    let mut checked = 0;
    let mut in_place_state = 0;
    for config in ["u55-128-shared-sram", "u85-256-dedicated-sram"] {
        for path in common::files(&corpus.join("vela").join(config), "tflite") {
            let program = load_tflite(&path).unwrap();
            let runs_alone = program
                .body
                .iter()
                .all(|i| matches!(i, Instruction::Delegate(_)));
            for delegate in &program.delegates {
                let blob = delegate.blob.as_deref().expect("Vela wrote its offsets");
                let stream = VelaBinStream::parse(blob).unwrap();
                // The command stream is the bin stream's second block, after a 32-byte header.
                let cmd = &blob[64..64 + stream.cmd_size];
                let (reads, writes) = region1_feature_maps(cmd);
                // Where a partition's inputs come from the graph alone (no CPU operator
                // between), each copy is where the command stream reads a feature map, and
                // each output is where it writes one.
                if runs_alone {
                    assert!(
                        !reads.is_empty() && !writes.is_empty(),
                        "{}",
                        path.display()
                    );
                    for r in &stream.inputs {
                        assert!(
                            reads.contains(&r.offset),
                            "{}: input at {}",
                            path.display(),
                            r.offset
                        );
                    }
                    for r in &stream.outputs {
                        assert!(
                            writes.contains(&r.offset),
                            "{}: output at {}",
                            path.display(),
                            r.offset
                        );
                    }
                    checked += 1;
                }
                // Region 1; an output Vela writes over a state input flagged as state.
                assert!(stream.inputs.iter().all(|r| r.region == 1));
                for r in &stream.outputs {
                    let state = r.region == 1 | IoRecord::STATE_IN_PLACE;
                    assert!(r.region == 1 || state, "{}", path.display());
                    if state {
                        in_place_state += 1;
                    }
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} partitions checked");
    // The LSTMs' two state tensors (h and c), in both configurations.
    assert_eq!(in_place_state, 2 * 2 * 2, "state written in place");
}

#[test]
fn cpu_programs_plan_no_larger_than_executorch() {
    let Some(corpus) = corpus() else { return };
    for pte in common::files(&corpus.join("pte"), "pte") {
        let program = load_pte(&pte).unwrap_or_else(|e| panic!("{}: {e}", pte.display()));
        let theirs = program.source_plan.as_ref().unwrap().buffer_sizes.clone();
        // For the core the exporter lowered its Cortex-M operators for (their CMSIS-NN buffers
        // are sized for it): planned for another, the buffers are that core's.
        let target = Catalogue::builtin().target("corstone-300").unwrap().clone();
        let mut pipeline = arenaplan_build::pipeline::Pipeline::new(&target);
        if let Some(isa) = arenaplan_build::executorch::cortex_m_scratch::lowered_for(&program) {
            pipeline.kernel_isa(isa);
        }
        let (_, p) = pipeline.run(program).unwrap();
        for pool in &p.pools {
            let their = theirs.get(pool.mem_id as usize).copied().unwrap_or(0);
            assert!(
                pool.size <= their.div_ceil(16) * 16,
                "{}: ours {} vs ExecuTorch {their}",
                pte.display(),
                pool.size
            );
        }
    }
}

/// The float32 values of a constant.
fn constant_floats(program: &Program, v: usize) -> Vec<f32> {
    let data = program.values[v]
        .data
        .as_ref()
        .expect("a constant with bytes");
    data.bytes()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn pte_constants_carry_their_bytes_and_kernels_their_out_arguments() {
    let Some(corpus) = corpus() else { return };
    // ExecuTorch's ModuleLinear test model: `a = 3 * ones(2, 2)`, `b = 2 * ones(2, 2)`, in the
    // program's inline constant buffers; forward is `a * x + b` (mul.out, add.out).
    let linear =
        load_pte(&corpus.join("pte/test_models_deprecated_ModuleLinear-no-constant-segment.pte"))
            .unwrap();
    let calls: Vec<(String, Vec<usize>, Vec<usize>)> = linear
        .flat_instructions()
        .into_iter()
        .filter_map(|(_, i)| match i {
            Instruction::Kernel(k) => Some((k.op.clone(), k.inputs.clone(), k.outputs.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(calls[0].0, "aten::mul.out");
    assert_eq!(calls[1].0, "aten::add.out");
    // Each out argument once, after the inputs (its repeat as the return value dropped).
    assert_eq!(calls[0].2.len(), 1);
    assert_eq!(calls[1].2, linear.outputs);
    assert_eq!(constant_floats(&linear, calls[0].1[0]), [3.0; 4]);
    assert_eq!(constant_floats(&linear, calls[1].1[1]), [2.0; 4]);
    // `alpha`, an int value: an 8-byte constant holding 1.
    let alpha = &linear.values[calls[1].1[2]];
    assert_eq!(alpha.data.as_ref().unwrap().bytes(), 1i64.to_le_bytes());
    // The Arduino add model keeps its constant in the constant segment.
    let add = load_pte(&corpus.join("pte/arduino_AddModel_model.pte")).unwrap();
    let constants: Vec<usize> = (0..add.values.len())
        .filter(|&v| {
            add.values[v].dtype == arenaplan_build::model::DType::Float32
                && add.values[v].data.is_some()
        })
        .collect();
    assert_eq!(constants.len(), 1);
    assert_eq!(
        add.values[constants[0]]
            .data
            .as_ref()
            .unwrap()
            .bytes()
            .len(),
        4
    );
}

#[test]
fn variable_tensors_are_state_from_tflms_reset_values_planned_for_the_whole_program() {
    let Some(corpus) = corpus() else { return };
    // The keyword models' SVDFs keep their state in variable tensors: int16 ones in one model,
    // int8 ones in the other. TFLM resets an int8 one to its zero point, any other to zero.
    for (model, zero_point) in [
        ("tflm__keyword_scrambled", false),
        ("tflm__keyword_scrambled_8bit", true),
    ] {
        let path = corpus.join(format!("vela/u55-128-shared-sram/{model}_vela.tflite"));
        let program = load_tflite(&path).unwrap();
        assert_eq!(program.state.len(), 7, "{model}: one state per SVDF");
        for &v in &program.state {
            let value = &program.values[v];
            assert_eq!(value.kind, ValueKind::Planned, "{model}");
            let fill = match (zero_point, value.quant.as_ref()) {
                (true, Some(q)) => q.zero_point[0] as i8 as u8,
                _ => 0,
            };
            let data = value.data.as_ref().expect("initial contents").bytes();
            assert_eq!(data.len() as u64, value.bytes, "{model}");
            assert!(data.iter().all(|&b| b == fill), "{model}: `{}`", value.name);
        }
        let (planned, p) = plan(program, "corstone-300");
        let last = p.calls.len() - 1;
        for &v in &planned.state {
            let b = p.buffer(v).expect("state is planned");
            assert_eq!((b.first, b.last), (0, last), "{model}: alive throughout");
            // Nothing else shares its bytes.
            for other in p
                .buffers
                .iter()
                .filter(|o| o.id != v && o.mem_id == b.mem_id)
            {
                assert!(
                    other.offset >= b.offset + b.size || b.offset >= other.offset + other.size,
                    "{model}: `{}` overlaps state",
                    planned.values[other.id].name
                );
            }
        }
    }
}

/// The reported lower bound is a bound of the reported arena: on the corpus's Ethos-U kws
/// program it once said 22,720 bytes for an arena of 22,716.
#[test]
fn the_lower_bound_never_exceeds_the_arena_of_ethosu_u55_kws_ref() {
    let Some(corpus) = corpus() else { return };
    let targets = [
        Catalogue::builtin().target("corstone-300").unwrap().clone(),
        u55_on_corstone_320(),
    ];
    for target in &targets {
        let program = load_pte(&corpus.join("pte-delegated/ethosu_u55_kws_ref.pte")).unwrap();
        let (_, model_plan) = common::planned(target, program).unwrap();
        let target = &target.name;
        for pool in &model_plan.pools {
            assert!(
                pool.lower_bound <= pool.size,
                "{target} {}: bound {} above arena {}",
                pool.name,
                pool.lower_bound,
                pool.size
            );
        }
    }
}
