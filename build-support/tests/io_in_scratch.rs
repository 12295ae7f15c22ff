//! Network I/O inside the NPU scratch (`pipeline/in_scratch.rs`): one test per rule that puts
//! an Ethos-U call's input or output at its slot in the call's scratch, or keeps it apart, and
//! the verify stage's refusals of plans that break them.

mod common;

use arenaplan_build::backends::{write_bin_stream, BinStreamParts, IoRecord};
use arenaplan_build::model::{DType, Instruction, KernelCall, PoolChoice, Program, Value};
use arenaplan_build::pipeline::{ModelPlan, Pipeline};
use arenaplan_build::targets::Catalogue;
use arenaplan_build::verify::verify;

/// A record of `bytes` bytes (one row) at `offset` in region 1.
fn record(bytes: u32, offset: u32) -> IoRecord {
    IoRecord {
        shape: [1, 1, 1, 1, 1, bytes],
        elem_size: 1,
        offset,
        region: 1,
    }
}

/// A bin stream with a 64-byte scratch holding one input and one output as given.
fn blob(input: IoRecord, output: IoRecord) -> Vec<u8> {
    write_bin_stream(&BinStreamParts {
        // COP1, then the U55-128 optimizer config (the target's NPU) and an empty stream.
        cmd: &[
            0x43, 0x4F, 0x50, 0x31, 0x01, 0, 0, 0, 0x07, 0, 0, 0, 0, 0, 0, 0,
        ],
        weights: &[0; 16],
        scratch_size: 64,
        inputs: &[input],
        outputs: &[output],
    })
}

/// x (16 B) -> the NPU call -> y (`out_bytes`), the scratch its blob asks for.
fn one_call(blob: Vec<u8>, out_bytes: u64) -> Program {
    common::blob_call("EthosUBackend", blob, "", out_bytes)
}

/// `program` with a kernel after its call that reads x and y into z, the new output.
fn read_after(mut program: Program) -> Program {
    let z = program.add_value(Value::planned("z", DType::Int8, vec![16]));
    program.body.push(Instruction::Kernel(KernelCall::new(
        "aten::add.out",
        vec![0, 1],
        vec![z],
    )));
    program.outputs = vec![z];
    program
}

fn plan(program: Program) -> (Program, ModelPlan) {
    let catalogue = Catalogue::builtin();
    common::planned(catalogue.target("corstone-300").unwrap(), program)
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The scratch value of the plan's first call.
fn scratch_of(plan: &ModelPlan) -> usize {
    let call = &plan.calls[0];
    call.args[call.inputs + call.outputs]
}

fn within(plan: &ModelPlan, id: usize) -> Option<usize> {
    plan.buffer(id).unwrap().within
}

#[test]
fn an_input_and_an_output_sit_at_their_slots() {
    let (_, plan) = plan(one_call(blob(record(16, 0), record(16, 16)), 16));
    let s = scratch_of(&plan);
    let at = plan.buffer(s).unwrap().offset;
    assert_eq!((within(&plan, 0), within(&plan, 1)), (Some(s), Some(s)));
    assert_eq!(plan.buffer(0).unwrap().offset, at);
    assert_eq!(plan.buffer(1).unwrap().offset, at + 16);
    // The scratch alone: 64 bytes, where input, output and scratch side by side take 96.
    assert_eq!(plan.pools[0].size, 64);
}

#[test]
fn io_apart_keeps_every_tensor_beside_the_scratch() {
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let program = one_call(blob(record(16, 0), record(16, 16)), 16);
    let (planned, plan) = Pipeline::new(target)
        .io_in_scratch(false)
        .run(program)
        .unwrap();
    verify(&planned, &plan, target).unwrap();
    assert!(plan.buffers.iter().all(|b| b.within.is_none()));
    assert_eq!(plan.pools[0].size, 96);
}

#[test]
fn an_input_needed_after_its_call_is_copied() {
    // A kernel reads x after the NPU call: the NPU may overwrite its slot, so x stays apart.
    let program = read_after(one_call(blob(record(16, 0), record(16, 16)), 16));
    let (_, plan) = plan(program);
    let s = scratch_of(&plan);
    assert_eq!(within(&plan, 0), None);
    assert_eq!(within(&plan, 1), Some(s));
}

#[test]
fn an_output_whose_rows_the_npu_pads_is_copied() {
    // Vela writes 2 rows of 8 bytes; the tensor has rows of 4: copied row by row, never in
    // place.
    let padded = IoRecord {
        shape: [1, 1, 1, 1, 2, 8],
        ..record(0, 16)
    };
    let (_, plan) = plan(one_call(blob(record(16, 0), padded), 8));
    assert_eq!(within(&plan, 1), None);
    assert_eq!(within(&plan, 0), Some(scratch_of(&plan)));
}

#[test]
fn a_tensor_in_another_pool_is_copied() {
    let mut program = one_call(blob(record(16, 0), record(16, 16)), 16);
    program.values[1].pool = Some(PoolChoice::MemId(2)); // ddr; the scratch is in sram
    let (_, plan) = plan(program);
    assert_eq!(within(&plan, 1), None);
    assert_eq!(plan.buffer(1).unwrap().mem_id, 2);
}

#[test]
fn state_is_never_at_a_slot() {
    let mut program = one_call(blob(record(16, 0), record(16, 16)), 16);
    program.state = vec![1];
    let (_, plan) = plan(program);
    assert_eq!(within(&plan, 1), None);
}

#[test]
fn a_slot_off_the_pools_alignment_is_not_used() {
    // Offset 8 in the scratch: the tensor would break the pool's 16-byte alignment.
    let (_, plan) = plan(one_call(blob(record(16, 0), record(16, 24)), 16));
    assert_eq!(within(&plan, 1), None);
    assert_eq!(within(&plan, 0), Some(scratch_of(&plan)));
}

#[test]
fn the_verify_stage_refuses_a_tensor_over_its_scratch_off_its_slot() {
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (program, mut plan) = plan(one_call(blob(record(16, 0), record(16, 16)), 16));
    let s = scratch_of(&plan);
    let at = plan.buffer(s).unwrap().offset;
    let y = plan.buffers.iter_mut().find(|b| b.id == 1).unwrap();
    y.offset = at + 32;
    assert!(verify(&program, &plan, target).is_err());
}

#[test]
fn the_verify_stage_refuses_an_input_at_its_slot_that_is_needed_after() {
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let program = read_after(one_call(blob(record(16, 0), record(16, 16)), 16));
    let (program, mut plan) = plan(program);
    let s = scratch_of(&plan);
    let at = plan.buffer(s).unwrap().offset;
    let x = plan.buffers.iter_mut().find(|b| b.id == 0).unwrap();
    (x.offset, x.within) = (at, Some(s));
    plan.pools[0].size = plan
        .buffers
        .iter()
        .map(|b| b.offset + b.size)
        .max()
        .unwrap();
    let error = verify(&program, &plan, target).unwrap_err().to_string();
    assert!(error.contains("the NPU would overwrite it"), "{error}");
}

#[test]
fn the_verify_stage_refuses_a_plan_that_does_not_say_what_its_addresses_do() {
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (program, mut plan) = plan(one_call(blob(record(16, 0), record(16, 16)), 16));
    plan.buffers.iter_mut().find(|b| b.id == 1).unwrap().within = None;
    let error = verify(&program, &plan, target).unwrap_err().to_string();
    assert!(error.contains("its address at the slot"), "{error}");
}
