//! Running a planned program on the C runtime through the `arenaplan` bindings.

use std::ffi::CString;

use arenaplan::sys;
use arenaplan_build::model::{Instruction, Program};
use arenaplan_build::pipeline::{CallKind, ModelPlan};

/// 16-byte aligned storage for one arena.
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
    let mut arenas: Vec<Vec<Block>> = plan
        .pools
        .iter()
        .map(|p| vec![Block([0; 16]); (p.size as usize).div_ceil(16).max(1)])
        .collect();
    let pools: Vec<sys::ap_pool> = plan
        .pools
        .iter()
        .zip(arenas.iter_mut())
        .map(|(p, a)| sys::ap_pool {
            mem_id: p.mem_id,
            base: a.as_mut_ptr().cast(),
            size: a.len() * 16,
        })
        .collect();
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
    let delegate_of: Vec<u32> = program
        .flat_instructions()
        .into_iter()
        .filter_map(|(_, i)| match i {
            Instruction::Delegate(d) => Some(d.delegate as u32),
            _ => None,
        })
        .collect();
    let args: Vec<Vec<u32>> = plan
        .calls
        .iter()
        .map(|c| c.args.iter().map(|&a| a as u32).collect())
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
        .map(|d| CString::new(d.backend.clone()).unwrap_or_default())
        .collect();
    let delegates: Vec<sys::ap_delegate_desc> = program
        .delegates
        .iter()
        .zip(&names)
        .map(|(d, n)| {
            let blob = d.blob.as_deref().unwrap_or(&[]);
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
    let backends = [
        &raw const sys::ap_ethosu_backend,
        &raw const sys::ap_neutron_backend,
    ];
    let longest = args.iter().map(Vec::len).max().unwrap_or(0);
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
    let mut resolved = vec![std::ptr::null::<sys::ap_backend>(); delegates.len()];
    let mut argbuf = vec![
        sys::ap_buffer {
            data: std::ptr::null_mut(),
            size: 0
        };
        longest
    ];
    let memory = sys::ap_method_memory {
        values: values.as_mut_ptr(),
        nvalues: values.len(),
        handles: handles.as_mut_ptr(),
        delegate_backends: resolved.as_mut_ptr(),
        nhandles: handles.len(),
        kernel_fns: std::ptr::null_mut(),
        nkernel_fns: 0,
        args: argbuf.as_mut_ptr(),
        nargs: argbuf.len(),
        temp: std::ptr::null_mut(),
        temp_size: 0,
    };
    // SAFETY: tables, arrays and arenas outlive the method; the counts match the arrays.
    unsafe {
        let mut m: sys::ap_method = std::mem::zeroed();
        let fail = |s| format!("{}", arenaplan::RuntimeError(s));
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
        .map_err(|e| fail(e.0))?;
        for i in 0..inputs.len() {
            let mut b = sys::ap_buffer {
                data: std::ptr::null_mut(),
                size: 0,
            };
            arenaplan::check(sys::ap_method_input(&mut m, i, &mut b)).map_err(|e| fail(e.0))?;
            for (j, byte) in std::slice::from_raw_parts_mut(b.data, b.size)
                .iter_mut()
                .enumerate()
            {
                *byte = (j % 251) as u8;
            }
        }
        let result = arenaplan::check(sys::ap_method_execute(&mut m));
        sys::ap_method_destroy(&mut m);
        result.map_err(|e| format!("{} at instruction {}", e, m.failed_instruction))?;
        let mut out = sys::ap_buffer {
            data: std::ptr::null_mut(),
            size: 0,
        };
        if !outputs.is_empty() {
            arenaplan::check(sys::ap_method_output(&mut m, 0, &mut out)).map_err(|e| fail(e.0))?;
        }
        let first: Vec<u8> = std::slice::from_raw_parts(out.data, out.size.min(8)).to_vec();
        Ok(format!(
            "{} delegate call(s) ran on their planned scratch; output 0: {} bytes, starting {:02x?}",
            instructions.len(),
            out.size,
            first
        ))
    }
}
