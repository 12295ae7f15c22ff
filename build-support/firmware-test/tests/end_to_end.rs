//! The generated Rust module, the C header and the plan agree; the backend runs on the arenas.

use arenaplan_firmware_test::arenaplan_plan as plan;

unsafe extern "C" {
    fn probe_sram_size() -> u32;
    fn probe_ddr_size() -> u32;
    fn probe_call0_scratch0_offset() -> u32;
    fn probe_call3_scratch1_offset() -> u32;
    fn probe_buffer_count() -> u32;
    fn probe_buffer(i: u32) -> *const plan::Buffer;
    fn probe_sram_arena() -> *const u8;
}

#[test]
fn c_and_rust_see_the_same_plan() {
    unsafe {
        assert_eq!(probe_sram_size() as usize, plan::pool::sram::SIZE);
        assert_eq!(probe_ddr_size() as usize, plan::pool::ddr::SIZE);
        assert_eq!(
            probe_call0_scratch0_offset(),
            plan::scratch::CALL0_SCRATCH0.offset
        );
        assert_eq!(
            probe_call3_scratch1_offset(),
            plan::scratch::CALL3_SCRATCH1.offset
        );
        assert_eq!(probe_buffer_count() as usize, plan::BUFFER_COUNT);
        for i in 0..plan::BUFFER_COUNT {
            assert_eq!(*probe_buffer(i as u32), plan::BUFFERS[i]);
        }
        // The C side's extern arena is the Rust static.
        assert_eq!(probe_sram_arena(), plan::ARENA_SRAM.as_ptr().cast_const());
    }
}

#[test]
fn the_plan_puts_declared_scratch_where_the_target_says() {
    assert_eq!(plan::TARGET, "corstone-320");
    // corstone-320: fast_scratch -> sram (mem_id 1), npu_scratch -> ddr (mem_id 2).
    for call in [plan::scratch::CALL0_SCRATCH0, plan::scratch::CALL3_SCRATCH0] {
        assert_eq!((call.size, call.mem_id), (2048, 1));
    }
    assert_eq!(
        (
            plan::scratch::CALL0_SCRATCH1.size,
            plan::scratch::CALL0_SCRATCH1.mem_id
        ),
        (512, 2)
    );
    assert_eq!(plan::scratch::CALL1_SCRATCH0.size, 1536);
    // Disjoint calls of one backend share their scratch.
    assert_eq!(
        plan::scratch::CALL0_SCRATCH0.offset,
        plan::scratch::CALL3_SCRATCH0.offset
    );
    assert_eq!(plan::backend::ConvIm2col::SCRATCH, &[2048, 512]);
    assert_eq!(arenaplan_firmware_test::FAST_POOL, 1);
    let call = plan::CALLS.iter().find(|c| c.index == 3).unwrap();
    assert_eq!((call.inputs, call.outputs, call.scratch), (1, 1, 2));
}

#[test]
fn the_rust_backend_runs_on_its_planned_regions() {
    use arenaplan::Call;
    let region = |r: plan::Region| -> &'static mut [u8] {
        let base = match r.mem_id {
            1 => plan::ARENA_SRAM.as_ptr(),
            _ => plan::ARENA_DDR.as_ptr(),
        };
        // SAFETY: the plan proves regions of buffers alive together are disjoint; this test
        // is the only user of the arenas.
        unsafe { core::slice::from_raw_parts_mut(base.add(r.offset as usize), r.size as usize) }
    };
    let buffer = |v: u32| {
        let b = plan::BUFFERS.iter().find(|b| b.value == v).unwrap();
        region(plan::Region {
            call: 0,
            value: v,
            mem_id: b.mem_id,
            offset: b.offset,
            size: b.size,
        })
    };
    let call = plan::CALLS[0];
    let input = buffer(call.args[0]);
    input.fill(3);
    let inputs: [&[u8]; 1] = [input];
    let mut rest: [&mut [u8]; 3] = [
        buffer(call.args[1]),
        region(plan::scratch::CALL0_SCRATCH0),
        region(plan::scratch::CALL0_SCRATCH1),
    ];
    let mut view = Call::new(&inputs, &mut rest, 1).unwrap();
    arenaplan_firmware_test::conv_im2col(&mut view).unwrap();
    let (_, outputs, scratch) = view.split();
    assert_eq!(outputs[0][5], 3 + 5);
    assert!(scratch[1].iter().all(|&b| b == 0xA5));
    assert_eq!(
        arenaplan_firmware_test::CONV_IM2COL_DELEGATE.backend,
        "ConvIm2col"
    );
}
