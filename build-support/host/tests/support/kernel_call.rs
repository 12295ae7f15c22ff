//! Calling one of the runtime's C kernels directly, with buffers the test owns: for the tests
//! of its argument checks, which hand it what no planner would.

use arenaplan::sys::{ap_buffer, ap_context, ap_kernel, ap_status};

/// Runs `kernel` on `ninputs` inputs and the rest as outputs, each buffer as given; an empty
/// buffer is passed as a null pointer when `null_empties` is set (as a planner may give a
/// tensor of no bytes).
pub fn call_kernel(
    kernel: ap_kernel,
    ninputs: u32,
    buffers: &mut [Box<[u8]>],
    null_empties: bool,
) -> ap_status {
    let mut args: Vec<ap_buffer> = buffers
        .iter_mut()
        .map(|b| ap_buffer {
            data: if null_empties && b.is_empty() {
                std::ptr::null_mut()
            } else {
                b.as_mut_ptr()
            },
            size: b.len(),
        })
        .collect();
    let mut ctx = ap_context {
        temp: std::ptr::null_mut(),
        ninputs,
        noutputs: args.len() as u32 - ninputs,
        meta: std::ptr::null(),
        arg_ids: std::ptr::null(),
    };
    let f = kernel.fn_.expect("a kernel function");
    // SAFETY: every argument points at a live buffer of exactly its size (a boxed slice: no
    // spare capacity for an overrun to land in unseen), or is null with size 0.
    unsafe { f(&mut ctx, args.as_mut_ptr(), args.len(), kernel.user) }
}

/// Little-endian bytes of `w`, as the kernels' parameter blocks are laid out.
pub fn words(w: &[i32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}
