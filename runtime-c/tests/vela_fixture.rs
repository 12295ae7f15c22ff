//! A real Vela-compiled program (the repository's fixture: two chained Ethos-U calls) planned by
//! arenaplan and run by the C runtime through the bindings, on the driver simulator: the planned
//! scratch is what the backend hands the driver, and the outputs survive the poisoning.

use std::path::Path;

use arenaplan::sys;
use arenaplan_build::import::load_pte;
use arenaplan_build::pipeline::{BufferKind, Pipeline};
use arenaplan_build::targets::Catalogue;

#[repr(C, align(16))]
struct Arena([u8; 4096]);

fn expected(sum: u32, j: u32, k: u32) -> u8 {
    (sum.wrapping_add(31 * j).wrapping_add(7 * k)) as u8
}

#[test]
fn two_ethos_u_calls_run_on_their_planned_scratch() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../build-support/testdata/fixtures/ethosu_u55_two_calls.pte");
    let catalogue = Catalogue::builtin();
    let (program, plan) = Pipeline::new(catalogue.target("corstone-300").unwrap())
        .run(load_pte(&fixture).unwrap())
        .unwrap();
    assert_eq!(plan.pools.len(), 1);
    let mut arena = Box::new(Arena([0; 4096]));
    assert!(plan.pools[0].size as usize <= arena.0.len());

    // Tables in the runtime's layout, from the plan.
    let tables = arenaplan::host::Tables::new(&program, &plan).expect("delegate calls only");
    let p = tables.program();
    let (nvalues, ndelegates) = tables.counts();
    let pool = sys::ap_pool {
        mem_id: 1,
        base: arena.0.as_mut_ptr(),
        size: arena.0.len(),
    };
    let backends = [&raw const sys::ap_ethosu_backend];
    let mut values = vec![
        sys::ap_buffer {
            data: std::ptr::null_mut(),
            size: 0
        };
        nvalues
    ];
    let mut handles = vec![
        sys::ap_handle {
            u: sys::ap_handle__bindgen_ty_1 { align_u64: 0 }
        };
        ndelegates
    ];
    let mut delegate_backends = vec![std::ptr::null::<sys::ap_backend>(); ndelegates];
    let mut argbuf = vec![
        sys::ap_buffer {
            data: std::ptr::null_mut(),
            size: 0
        };
        8
    ];
    let memory = sys::ap_method_memory {
        values: values.as_mut_ptr(),
        nvalues: values.len(),
        handles: handles.as_mut_ptr(),
        delegate_backends: delegate_backends.as_mut_ptr(),
        nhandles: handles.len(),
        kernel_fns: std::ptr::null_mut(),
        nkernel_fns: 0,
        args: argbuf.as_mut_ptr(),
        nargs: argbuf.len(),
        temp: std::ptr::null_mut(),
        temp_size: 0,
    };
    // SAFETY: every table, array and arena outlives the method; counts match the arrays.
    unsafe {
        sys::ap_ethosu_sim_reset();
        let mut m: sys::ap_method = std::mem::zeroed();
        arenaplan::check(sys::ap_method_init(
            &mut m,
            &p,
            &pool,
            1,
            backends.as_ptr(),
            1,
            std::ptr::null(),
            0,
            &memory,
        ))
        .unwrap();
        let mut input = sys::ap_buffer {
            data: std::ptr::null_mut(),
            size: 0,
        };
        arenaplan::check(sys::ap_method_input(&mut m, 0, &mut input)).unwrap();
        let data = std::slice::from_raw_parts_mut(input.data, input.size);
        for (i, b) in data.iter_mut().enumerate() {
            *b = (i % 7) as u8;
        }
        let sum0: u32 = data.iter().map(|&b| u32::from(b)).sum();
        arenaplan::check(sys::ap_method_execute(&mut m)).unwrap();
        assert_eq!(sys::ap_ethosu_sim_calls(), 2);
        let last = &*sys::ap_ethosu_sim_last();
        // The second call's scratch is the region the plan gave it.
        let scratch = plan
            .buffers
            .iter()
            .filter(|b| b.kind == BufferKind::Scratch)
            .nth(1)
            .unwrap();
        assert_eq!(last.base[1], arena.0.as_ptr() as u64 + scratch.offset);
        let mid: u32 = (0..512).map(|j| u32::from(expected(sum0, j, 0))).sum();
        let mut output = sys::ap_buffer {
            data: std::ptr::null_mut(),
            size: 0,
        };
        arenaplan::check(sys::ap_method_output(&mut m, 0, &mut output)).unwrap();
        let out = std::slice::from_raw_parts(output.data, output.size);
        assert_eq!(out.len(), 128);
        for (j, &b) in out.iter().enumerate() {
            assert_eq!(b, expected(mid, j as u32, 0), "output byte {j}");
        }
        sys::ap_method_destroy(&mut m);
    }
}
