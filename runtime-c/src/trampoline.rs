//! Backends written in Rust, run by the C runtime: `#[delegate] fn` defines an `ap_backend_t`
//! under the symbol the build's tables name (`ap_backend_<id>`), whose `execute` is an
//! `extern "C"` trampoline into [`dispatch`].
//!
//! **Panics.** No panic crosses into C. The trampoline is `extern "C"`: on the host, a panic in
//! the backend prints its message and Rust aborts the process at that boundary (it never
//! unwinds through the runtime's frames); in `no_std` firmware, the firmware's
//! `#[panic_handler]` runs, which never returns. A backend reports failure by returning an
//! [`Error`](crate::Error), which becomes a status and, through the generated API, an error
//! naming the call.

use crate::call::{Call, Error, Kind, Meta};
use crate::sys;

/// The most arguments a call to a Rust backend may have (its views live on the stack).
pub const MAX_ARGS: usize = 32;

/// An `ap_backend_t` a Rust `static` can hold: the id and function pointers are immutable.
#[repr(transparent)]
pub struct BackendDesc(pub sys::ap_backend);

// SAFETY: the descriptor is never written after its const initialization: a pointer to a
// 'static NUL-terminated id and function pointers.
unsafe impl Sync for BackendDesc {}

/// The C-side signature of a backend's `execute`.
pub type ExecuteFn = unsafe extern "C" fn(
    *mut sys::ap_context,
    *mut sys::ap_handle,
    *mut sys::ap_buffer,
    usize,
) -> sys::ap_status;

impl BackendDesc {
    /// A backend with no blob (no `init`, no `destroy`): `id` is the backend id followed by a
    /// NUL byte.
    pub const fn new(id: &'static [u8], execute: ExecuteFn) -> Self {
        BackendDesc(sys::ap_backend {
            id: id.as_ptr().cast(),
            init: None,
            execute: Some(execute),
            destroy: None,
            // A Rust backend keeps no state between calls: no handle.
            handle_size: 0,
            handle_bytes_for: None,
            io_in_scratch: 0,
        })
    }
}

/// Runs `backend` on the flat argument list the runtime passes: inputs become `&[u8]`, outputs
/// and scratch `&mut [u8]`, split by the counts in `ctx`.
///
/// A call where an output or scratch buffer shares memory with any other argument is refused
/// (`AP_ERR_ARGUMENT_MISMATCH`): those views are `&mut` slices, which may not alias. Inputs may
/// share memory with each other (`x * x` passes one value twice). So is a list longer than
/// [`MAX_ARGS`], or counts that exceed it.
///
/// # Safety
/// `ctx` and `args` as the runtime passes them to a backend's `execute`: `args` points to
/// `nargs` buffers, each `data` valid for `size` bytes (or NULL with size 0) for the call, the
/// outputs and scratch writable.
pub unsafe fn dispatch(
    backend: crate::BackendFn,
    ctx: *mut sys::ap_context,
    args: *mut sys::ap_buffer,
    nargs: usize,
) -> sys::ap_status {
    if ctx.is_null() || (args.is_null() && nargs > 0) || nargs > MAX_ARGS {
        return sys::ap_status::AP_ERR_ARGUMENT_MISMATCH;
    }
    // SAFETY: the runtime's contract, above.
    let (ninputs, noutputs) = unsafe { ((*ctx).ninputs as usize, (*ctx).noutputs as usize) };
    if ninputs.saturating_add(noutputs) > nargs {
        return sys::ap_status::AP_ERR_ARGUMENT_MISMATCH;
    }
    let raw: &[sys::ap_buffer] = if nargs == 0 {
        &[]
    } else {
        // SAFETY: as above.
        unsafe { core::slice::from_raw_parts(args, nargs) }
    };
    let overlap = |a: &sys::ap_buffer, b: &sys::ap_buffer| {
        let (x, y) = (a.data as usize, b.data as usize);
        a.size > 0 && b.size > 0 && x < y.saturating_add(b.size) && y < x.saturating_add(a.size)
    };
    for (i, written) in raw.iter().enumerate().skip(ninputs) {
        if raw
            .iter()
            .enumerate()
            .any(|(j, other)| j != i && overlap(written, other))
        {
            return sys::ap_status::AP_ERR_ARGUMENT_MISMATCH;
        }
    }
    let view = |a: &sys::ap_buffer| !a.data.is_null() && a.size > 0;
    let mut inputs: [&[u8]; MAX_ARGS] = [&[]; MAX_ARGS];
    for (slot, a) in inputs.iter_mut().zip(&raw[..ninputs]) {
        if view(a) {
            // SAFETY: valid for reading during the call (the contract); nothing writes it
            // while the call runs (no written argument overlaps it, checked above).
            *slot = unsafe { core::slice::from_raw_parts(a.data, a.size) };
        }
    }
    let mut rest: [&mut [u8]; MAX_ARGS] = Default::default();
    for (slot, a) in rest.iter_mut().zip(&raw[ninputs..]) {
        if view(a) {
            // SAFETY: valid and writable for the call (the contract), and disjoint from every
            // other argument (checked above).
            *slot = unsafe { core::slice::from_raw_parts_mut(a.data, a.size) };
        }
    }
    let Some(call) = Call::new(&inputs[..ninputs], &mut rest[..nargs - ninputs], noutputs) else {
        return sys::ap_status::AP_ERR_ARGUMENT_MISMATCH;
    };
    let mut meta = [Meta::UNKNOWN; MAX_ARGS];
    // SAFETY: the runtime's contract: `meta` and `arg_ids` are both set or both NULL; arg_ids
    // has `nargs` entries, each naming a value of the table `meta` points to.
    let (table, ids) = unsafe { ((*ctx).meta, (*ctx).arg_ids) };
    let mut call = if table.is_null() || ids.is_null() {
        call
    } else {
        for (i, slot) in meta.iter_mut().enumerate().take(nargs) {
            // SAFETY: as above; init checked each entry's dims against its rank.
            let m = unsafe { &*table.add(*ids.add(i) as usize) };
            let Some(kind) = Kind::from_code(m.kind) else {
                return sys::ap_status::AP_ERR_ARGUMENT_MISMATCH;
            };
            let dims: &[u32] = if m.rank == 0 || m.dims.is_null() {
                &[]
            } else {
                // SAFETY: init checked that dims is present for the rank.
                unsafe { core::slice::from_raw_parts(m.dims, usize::from(m.rank)) }
            };
            let dim_order: &[u8] = if dims.is_empty() || m.dim_order.is_null() {
                &[]
            } else {
                // SAFETY: init checked that a dim order is a tensor's, `rank` entries long.
                unsafe { core::slice::from_raw_parts(m.dim_order, dims.len()) }
            };
            *slot = Meta {
                kind,
                dtype: m.dtype,
                dims,
                dim_order,
            };
        }
        match call.with_meta(&meta[..nargs]) {
            Some(call) => call,
            None => return sys::ap_status::AP_ERR_ARGUMENT_MISMATCH,
        }
    };
    match backend(&mut call) {
        Ok(()) => sys::ap_status::AP_OK,
        Err(Error::BadArguments) => sys::ap_status::AP_ERR_ARGUMENT_MISMATCH,
        Err(Error::ScratchTooSmall) => sys::ap_status::AP_ERR_SCRATCH_TOO_SMALL,
        Err(_) => sys::ap_status::AP_ERR_BACKEND,
    }
}

/// An `ap_kernel_t` a Rust `static` can hold (`#[kernel]` on a function).
#[repr(transparent)]
pub struct KernelDesc(pub sys::ap_kernel);

// SAFETY: never written after its const initialization; `user` is NULL.
unsafe impl Sync for KernelDesc {}

/// The C-side signature of a kernel.
pub type KernelFn = unsafe extern "C" fn(
    *mut sys::ap_context,
    *mut sys::ap_buffer,
    usize,
    *mut core::ffi::c_void,
) -> sys::ap_status;

impl KernelDesc {
    /// A kernel: `op` is the operator name followed by a NUL byte.
    pub const fn new(op: &'static [u8], run: KernelFn) -> Self {
        KernelDesc(sys::ap_kernel {
            name: op.as_ptr().cast(),
            fn_: Some(run),
            user: core::ptr::null_mut(),
        })
    }
}

/// An `ap_kernel_t` running `run`, a kernel written in Rust, under operator name `op`: the
/// entry of a kernel list handed to `ap_method_init`, which resolves a program's kernel calls
/// by name (the host runner's way; firmware built with the generated tables links each
/// `#[kernel]`'s symbol instead). `run` travels in the entry's `user` pointer.
///
/// ```
/// fn relu(call: &mut arenaplan::Call<'_>) -> arenaplan::Result { let _ = call; Ok(()) }
/// let entry = arenaplan::kernel_entry(c"aten::relu.out", relu);
/// assert!(!entry.user.is_null());
/// ```
pub fn kernel_entry(op: &'static core::ffi::CStr, run: crate::BackendFn) -> sys::ap_kernel {
    sys::ap_kernel {
        name: op.as_ptr(),
        fn_: Some(run_user_kernel),
        user: run as *mut core::ffi::c_void,
    }
}

/// The trampoline of [`kernel_entry`]: the Rust function is the entry's `user` pointer.
unsafe extern "C" fn run_user_kernel(
    ctx: *mut sys::ap_context,
    args: *mut sys::ap_buffer,
    nargs: usize,
    user: *mut core::ffi::c_void,
) -> sys::ap_status {
    if user.is_null() {
        return sys::ap_status::AP_ERR_ARGUMENT_MISMATCH;
    }
    // SAFETY: `user` was made from a `BackendFn` by `kernel_entry` (the runtime hands back the
    // entry's pointer unchanged), and a function pointer round-trips through a data pointer on
    // every target this crate builds for.
    let run: crate::BackendFn =
        unsafe { core::mem::transmute::<*mut core::ffi::c_void, crate::BackendFn>(user) };
    // SAFETY: called by the runtime as a kernel, with its context and the call's arguments.
    unsafe { dispatch(run, ctx, args, nargs) }
}
