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
    let noutputs = buffers.len() as u32 - ninputs;
    let nargs = buffers.len();
    call_kernel_counted(kernel, (ninputs, noutputs, nargs), buffers, null_empties)
}

/// [`call_kernel`] with the counts the call states — inputs, outputs, arguments — given
/// apart from the buffers it holds, as a table may state them wrongly. `buffers` must hold at
/// least as many as either count reaches, so a kernel that trusts the wrong count still reads
/// live memory (and a test sees what it returns rather than a crash).
pub fn call_kernel_counted(
    kernel: ap_kernel,
    counts: (u32, u32, usize),
    buffers: &mut [Box<[u8]>],
    null_empties: bool,
) -> ap_status {
    let sizes: Vec<usize> = buffers.iter().map(|b| b.len()).collect();
    call_kernel_sized(kernel, counts, buffers, &sizes, null_empties)
}

/// [`call_kernel_counted`] with each argument's stated size given apart from its buffer (at
/// most the buffer's length): a buffer that states fewer bytes than it holds, so a kernel
/// that reads past the stated size reads known bytes, and a test sees what it returns.
pub fn call_kernel_sized(
    kernel: ap_kernel,
    (ninputs, noutputs, nargs): (u32, u32, usize),
    buffers: &mut [Box<[u8]>],
    sizes: &[usize],
    null_empties: bool,
) -> ap_status {
    assert!(nargs <= buffers.len() && (ninputs + noutputs) as usize <= buffers.len());
    assert!(sizes.iter().zip(buffers.iter()).all(|(&s, b)| s <= b.len()));
    let mut args: Vec<ap_buffer> = buffers
        .iter_mut()
        .zip(sizes)
        .map(|(b, &size)| ap_buffer {
            data: if null_empties && size == 0 {
                std::ptr::null_mut()
            } else {
                b.as_mut_ptr()
            },
            size,
        })
        .collect();
    let mut ctx = ap_context {
        temp: std::ptr::null_mut(),
        ninputs,
        noutputs,
        meta: std::ptr::null(),
        arg_ids: std::ptr::null(),
    };
    let f = kernel.fn_.expect("a kernel function");
    // SAFETY: every argument points at a live buffer of exactly its size (a boxed slice: no
    // spare capacity for an overrun to land in unseen), or is null with size 0; `nargs` is at
    // most the list's length.
    unsafe { f(&mut ctx, args.as_mut_ptr(), nargs, kernel.user) }
}

/// Little-endian bytes of `w`, as the kernels' parameter blocks are laid out.
pub fn words(w: &[i32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}
