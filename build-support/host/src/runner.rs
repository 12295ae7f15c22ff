//! One method of a program, initialized over caller-owned arenas and run.

use std::vec::Vec;

use arenaplan::{check, sys, RuntimeError};

use crate::Tables;

/// One method over [`Tables`], owning the storage `ap_method_init` needs: init, write inputs,
/// execute, read outputs; destroyed on drop.
pub struct Runner {
    // Boxed so the addresses the C side keeps stay put when the runner moves.
    program: std::boxed::Box<sys::ap_program>,
    method: std::boxed::Box<sys::ap_method>,
    values: Vec<sys::ap_buffer>,
    handles: Vec<sys::ap_handle>,
    resolved: Vec<*const sys::ap_backend>,
    kernel_fns: Vec<*const sys::ap_kernel>,
    args: Vec<sys::ap_buffer>,
    initialized: bool,
}

const EMPTY: sys::ap_buffer = sys::ap_buffer {
    data: core::ptr::null_mut(),
    size: 0,
};

impl Runner {
    /// Checks `tables` against `pools` and initializes every delegate with `backends`; a
    /// program with kernel calls needs [`Runner::with_kernels`].
    ///
    /// # Safety
    /// `tables`, the arenas `pools` point to and the backends must outlive the runner, and no
    /// one else may use the arenas while it runs.
    pub unsafe fn new(
        tables: &Tables,
        pools: &[sys::ap_pool],
        backends: &[*const sys::ap_backend],
    ) -> Result<Runner, RuntimeError> {
        // SAFETY: the caller's promise, passed on.
        unsafe { Self::with_kernels(tables, pools, backends, &[]) }
    }

    /// [`Runner::new`] that also resolves the tables' kernel calls, by operator name, among
    /// `kernels` (`AP_ERR_KERNEL_NOT_FOUND` for one missing).
    ///
    /// # Safety
    /// As for [`Runner::new`], and the kernels must outlive the runner too.
    pub unsafe fn with_kernels(
        tables: &Tables,
        pools: &[sys::ap_pool],
        backends: &[*const sys::ap_backend],
        kernels: &[sys::ap_kernel],
    ) -> Result<Runner, RuntimeError> {
        let (nvalues, ndelegates) = tables.counts();
        let nkernels = tables.kernel_count();
        let mut r = Runner {
            program: std::boxed::Box::new(tables.program()),
            // SAFETY: ap_method is plain data; all zeros is its "not initialized" state.
            method: std::boxed::Box::new(unsafe { core::mem::zeroed() }),
            values: std::vec![EMPTY; nvalues],
            handles: std::vec![sys::ap_handle { u: sys::ap_handle__bindgen_ty_1 { align_u64: 0 } }; ndelegates],
            resolved: std::vec![core::ptr::null(); ndelegates],
            kernel_fns: std::vec![core::ptr::null(); nkernels],
            args: std::vec![EMPTY; tables.longest_call()],
            initialized: false,
        };
        let memory = sys::ap_method_memory {
            values: r.values.as_mut_ptr(),
            nvalues,
            handles: r.handles.as_mut_ptr(),
            delegate_backends: r.resolved.as_mut_ptr(),
            nhandles: ndelegates,
            kernel_fns: r.kernel_fns.as_mut_ptr(),
            nkernel_fns: nkernels,
            args: r.args.as_mut_ptr(),
            nargs: r.args.len(),
            temp: core::ptr::null_mut(),
            temp_size: 0,
        };
        // SAFETY: the storage lives in `r`; the caller vouches for tables, pools, backends
        // and kernels.
        check(unsafe {
            sys::ap_method_init(
                &mut *r.method,
                &*r.program,
                pools.as_ptr(),
                pools.len(),
                backends.as_ptr(),
                backends.len(),
                kernels.as_ptr(),
                kernels.len(),
                &memory,
            )
        })?;
        r.initialized = true;
        Ok(r)
    }

    /// Input `i`, in its arena.
    pub fn input(&mut self, i: usize) -> Result<&mut [u8], RuntimeError> {
        let mut b = EMPTY;
        // SAFETY: an initialized method; the buffer lies in an arena the runner may use.
        check(unsafe { sys::ap_method_input(&mut *self.method, i, &mut b) })?;
        if b.data.is_null() || b.size == 0 {
            return Ok(&mut []); // a value of no bytes has no memory
        }
        Ok(unsafe { core::slice::from_raw_parts_mut(b.data, b.size) })
    }

    /// Output `i`, in its arena.
    pub fn output(&mut self, i: usize) -> Result<&[u8], RuntimeError> {
        let mut b = EMPTY;
        // SAFETY: as for `input`.
        check(unsafe { sys::ap_method_output(&mut *self.method, i, &mut b) })?;
        if b.data.is_null() || b.size == 0 {
            return Ok(&[]); // a value of no bytes has no memory
        }
        Ok(unsafe { core::slice::from_raw_parts(b.data, b.size) })
    }

    /// Runs every instruction; on failure, the error and the failing instruction.
    pub fn execute(&mut self) -> Result<(), (RuntimeError, u32)> {
        // SAFETY: an initialized method.
        check(unsafe { sys::ap_method_execute(&mut *self.method) })
            .map_err(|e| (e, self.method.failed_instruction))
    }
}

impl Drop for Runner {
    fn drop(&mut self) {
        if self.initialized {
            // SAFETY: initialized by `new`, destroyed once.
            unsafe { sys::ap_method_destroy(&mut *self.method) };
        }
    }
}
