//! A real Vela-compiled program (the repository's fixture: two chained Ethos-U calls) planned by
//! arenaplan and run by the C runtime through the bindings, on the driver simulator: the planned
//! scratch is what the backend hands the driver, and the output is TFLM's (the fixture's two
//! uncompiled models, one after the other).

#[path = "../../tests/common/npy.rs"]
mod npy;

use std::path::{Path, PathBuf};

use arenaplan::sys;
use arenaplan_build::{BufferKind, Build};

/// Aligned to the Cortex-M55's 32-byte cache line, as the generated arenas are.
#[repr(C, align(32))]
struct Arena([u8; 4096]);

#[test]
fn two_ethos_u_calls_run_on_their_planned_scratch() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../build-support/testdata/fixtures/ethosu_u55_two_calls.pte");
    let rendered = Build::new()
        .model(&fixture)
        .target("corstone-300")
        .sources(Vec::<PathBuf>::new())
        .try_render()
        .unwrap();
    let (program, plan) = (rendered.program, rendered.plan);
    assert_eq!(plan.pools.len(), 1);
    let mut arena = Box::new(Arena([0; 4096]));
    assert!(plan.pools[0].size as usize <= arena.0.len());

    // Tables in the runtime's layout, from the plan.
    let tables = arenaplan_host::Tables::new(&program, &plan).expect("delegate calls only");
    let pool = sys::ap_pool {
        mem_id: 1,
        base: arena.0.as_mut_ptr(),
        size: arena.0.len(),
    };
    let backends = [&raw const sys::ap_ethosu_backend];
    // SAFETY: the tables, the arena and the backend outlive the runner; only it uses the arena.
    arenaplan::sim::ethos_u(arenaplan::sim::EthosU::U55_128).unwrap();
    let mut runner = unsafe { arenaplan_host::Runner::new(&tables, &[pool], &backends) }.unwrap();
    // TFLM's two interpreters chained on the same input: the oracle of the two calls.
    let reference = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../build-support/testdata/tflm-reference/fixture_conv_then_pool");
    let (_, input) = npy::read(&reference.join("0-in0.npy"));
    let (_, want) = npy::read(&reference.join("0-out0.npy"));
    runner.input(0).unwrap().copy_from_slice(&input);
    runner.execute().unwrap();
    // SAFETY: the simulator's record is a static it keeps.
    let (calls, last) = unsafe { (sys::ap_ethosu_sim_calls(), &*sys::ap_ethosu_sim_last()) };
    assert_eq!(calls, 2);
    // The second call's scratch is the region the plan gave it.
    let scratch = plan
        .buffers
        .iter()
        .filter(|b| b.kind == BufferKind::Scratch)
        .nth(1)
        .unwrap();
    assert_eq!(last.base[1], arena.0.as_ptr() as u64 + scratch.offset);
    // Every cache operation on the arena covers exactly one planned scratch buffer's whole
    // lines, and no other buffer alive during that call shares one of those lines. (The others
    // clean the blobs at init.)
    // SAFETY: the recorder's statics, read after the run.
    let (misaligned, records) = unsafe {
        let n = sys::ap_dcache_count() as usize;
        (
            sys::ap_dcache_misaligned(),
            core::slice::from_raw_parts(sys::ap_dcache_records(), n.min(64)),
        )
    };
    let base = arena.0.as_ptr() as u64;
    let records: Vec<_> = records
        .iter()
        .filter(|op| op.addr >= base && op.addr < base + arena.0.len() as u64)
        .collect();
    assert_eq!(misaligned, 0);
    assert_eq!(records.len(), 4, "clean + invalidate per call");
    for op in records {
        let owner = plan
            .buffers
            .iter()
            .find(|b| {
                b.kind == BufferKind::Scratch
                    && base + b.offset == op.addr
                    && b.size.div_ceil(32) * 32 == op.size
            })
            .expect("a cache operation on exactly a planned scratch buffer's lines");
        // A tensor at its slot in the scratch is inside it by design: the NPU reads or writes it
        // there, and this maintenance covers it.
        for other in plan
            .buffers
            .iter()
            .filter(|b| b.id != owner.id && b.within != Some(owner.id))
        {
            let alive = other.first <= owner.last && owner.first <= other.last;
            let apart =
                other.offset + other.size <= owner.offset || owner.offset + op.size <= other.offset;
            assert!(
                !alive || apart,
                "buffer {} shares a line with scratch {}",
                other.id,
                owner.id
            );
        }
    }
    let out = runner.output(0).unwrap();
    assert_eq!(out.len(), 128);
    assert_eq!(out, &want[..], "TFLM's convolution then pooling");
}
