//! Running a planned program on the C runtime through the `arenaplan` bindings.

use arenaplan::host::Tables;
use arenaplan::sys;
use arenaplan_build::model::Program;
use arenaplan_build::pipeline::{CallKind, ModelPlan};

/// 16-byte aligned storage for arenas.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Block([u8; 16]);

/// Runs `program` as planned; a line saying what happened, or why it could not run.
pub fn run(program: &Program, plan: &ModelPlan) -> Result<String, String> {
    if plan.calls.iter().any(|c| c.kind == CallKind::Kernel) {
        return Err("the model has CPU kernels; the runtime runs them through functions the integrator registers, and this demo registers none".into());
    }
    if program.delegates.iter().any(|d| d.blob.is_none()) {
        return Err("a delegate carries no compiled blob (a TFLite model's Vela operator keeps its command stream as tensors)".into());
    }
    let tables =
        Tables::new(program, plan).ok_or("the tables do not fit the runtime's 32-bit fields")?;
    let p = tables.program();
    let (nvalues, ndelegates) = tables.counts();
    let mut arenas: Vec<Vec<Block>> = plan
        .pools
        .iter()
        .map(|pool| vec![Block([0; 16]); (pool.size as usize).div_ceil(16).max(1)])
        .collect();
    let pools: Vec<sys::ap_pool> = plan
        .pools
        .iter()
        .zip(arenas.iter_mut())
        .map(|(pool, a)| sys::ap_pool {
            mem_id: pool.mem_id,
            base: a.as_mut_ptr().cast(),
            size: a.len() * 16,
        })
        .collect();
    let backends = [
        &raw const sys::ap_ethosu_backend,
        &raw const sys::ap_neutron_backend,
    ];
    let empty = sys::ap_buffer {
        data: std::ptr::null_mut(),
        size: 0,
    };
    let mut values = vec![empty; nvalues];
    let mut handles = vec![
        sys::ap_handle {
            u: sys::ap_handle__bindgen_ty_1 { align_u64: 0 }
        };
        ndelegates
    ];
    let mut resolved = vec![std::ptr::null::<sys::ap_backend>(); ndelegates];
    let mut argbuf = vec![empty; tables.longest_call()];
    let memory = sys::ap_method_memory {
        values: values.as_mut_ptr(),
        nvalues,
        handles: handles.as_mut_ptr(),
        delegate_backends: resolved.as_mut_ptr(),
        nhandles: ndelegates,
        kernel_fns: std::ptr::null_mut(),
        nkernel_fns: 0,
        args: argbuf.as_mut_ptr(),
        nargs: argbuf.len(),
        temp: std::ptr::null_mut(),
        temp_size: 0,
    };
    let text = |e: arenaplan::RuntimeError| e.to_string();
    // SAFETY: tables, arrays and arenas outlive the method; the counts match the arrays.
    unsafe {
        let mut m: sys::ap_method = std::mem::zeroed();
        arenaplan::check(sys::ap_method_init(
            &mut m,
            &p,
            pools.as_ptr(),
            pools.len(),
            backends.as_ptr(),
            backends.len(),
            std::ptr::null(),
            0,
            &memory,
        ))
        .map_err(text)?;
        for i in 0..p.ninputs as usize {
            let mut b = empty;
            arenaplan::check(sys::ap_method_input(&mut m, i, &mut b)).map_err(text)?;
            for (j, byte) in std::slice::from_raw_parts_mut(b.data, b.size)
                .iter_mut()
                .enumerate()
            {
                *byte = (j % 251) as u8;
            }
        }
        let result = arenaplan::check(sys::ap_method_execute(&mut m));
        let mut out = empty;
        if p.noutputs > 0 {
            let _ = sys::ap_method_output(&mut m, 0, &mut out);
        }
        sys::ap_method_destroy(&mut m);
        result.map_err(|e| format!("{e} at instruction {}", m.failed_instruction))?;
        let first: Vec<u8> = std::slice::from_raw_parts(out.data, out.size.min(8)).to_vec();
        Ok(format!(
            "{} delegate call(s) ran on their planned scratch; output 0: {} bytes, starting {:02x?}",
            p.ninstructions, out.size, first
        ))
    }
}
