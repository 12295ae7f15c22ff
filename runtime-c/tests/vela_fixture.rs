//! A real Vela-compiled program (the repository's fixture: two chained Ethos-U calls) planned by
//! arenaplan and run by the C runtime through the bindings, on the driver simulator: the planned
//! scratch is what the backend hands the driver, and the outputs survive the poisoning.

use std::ffi::CString;
use std::path::Path;

use arenaplan::sys;
use arenaplan_build::import::load_pte;
use arenaplan_build::model::Instruction;
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
    let tensors: Vec<sys::ap_tensor_desc> = (0..program.values.len())
        .map(|v| match plan.buffer(v) {
            Some(b) => sys::ap_tensor_desc {
                mem_id: b.mem_id,
                offset: b.offset as u32,
                size: b.size as u32,
                constant: std::ptr::null(),
            },
            None => sys::ap_tensor_desc {
                mem_id: 0,
                offset: 0,
                size: 0,
                constant: std::ptr::null(),
            },
        })
        .collect();
    let args: Vec<Vec<u32>> = plan
        .calls
        .iter()
        .map(|c| c.args.iter().map(|&a| a as u32).collect())
        .collect();
    let delegate_of: Vec<u32> = program
        .flat_instructions()
        .into_iter()
        .filter_map(|(_, i)| match i {
            Instruction::Delegate(d) => Some(d.delegate as u32),
            _ => None,
        })
        .collect();
    let instructions: Vec<sys::ap_instruction> = plan
        .calls
        .iter()
        .zip(&args)
        .zip(&delegate_of)
        .map(|((c, a), &d)| sys::ap_instruction {
            kind: 1,
            index: d,
            args: a.as_ptr(),
            nargs: a.len() as u32,
            ninputs: c.inputs as u32,
            noutputs: c.outputs as u32,
        })
        .collect();
    let names: Vec<CString> = program
        .delegates
        .iter()
        .map(|d| CString::new(d.backend.clone()).unwrap())
        .collect();
    let delegates: Vec<sys::ap_delegate_desc> = program
        .delegates
        .iter()
        .zip(&names)
        .map(|(d, n)| {
            let blob = d.blob.as_ref().unwrap();
            sys::ap_delegate_desc {
                backend: n.as_ptr(),
                blob: blob.as_ptr(),
                blob_size: blob.len() as u32,
                specs: std::ptr::null(),
                nspecs: 0,
            }
        })
        .collect();
    let inputs: Vec<u32> = program.inputs.iter().map(|&v| v as u32).collect();
    let outputs: Vec<u32> = program.outputs.iter().map(|&v| v as u32).collect();
    let p = sys::ap_program {
        tensors: tensors.as_ptr(),
        ntensors: tensors.len() as u32,
        instructions: instructions.as_ptr(),
        ninstructions: instructions.len() as u32,
        delegates: delegates.as_ptr(),
        ndelegates: delegates.len() as u32,
        kernels: std::ptr::null(),
        nkernels: 0,
        inputs: inputs.as_ptr(),
        ninputs: inputs.len() as u32,
        outputs: outputs.as_ptr(),
        noutputs: outputs.len() as u32,
    };
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
        tensors.len()
    ];
    let mut handles = vec![
        sys::ap_handle {
            u: sys::ap_handle__bindgen_ty_1 { align_u64: 0 }
        };
        delegates.len()
    ];
    let mut delegate_backends = vec![std::ptr::null::<sys::ap_backend>(); delegates.len()];
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
