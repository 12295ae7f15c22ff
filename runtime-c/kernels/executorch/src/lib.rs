//! ExecuTorch's scalar (prim) operators in Rust over arenaplan's [`Call`](arenaplan::Call)
//! view, `no_std`, without allocation: the operators ExecuTorch registers by hand rather than
//! from a schema, so no shim binds them. Every other operator of a program runs on
//! ExecuTorch's own C++ kernel, which the build compiles for the program and binds through
//! the bridge in `bridge/` (`ap_et_call.h`); this crate ships that bridge to the build
//! (`links = "arenaplan_kernels"`, `DEP_ARENAPLAN_KERNELS_BRIDGE`). A call a kernel cannot run
//! is `Error::BadArguments`, never a panic.
//!
//! [`KERNELS`] lists them by operator name, the names the program's kernel calls use; a runner
//! registers them all with one call:
//!
//! ```
//! let entries: Vec<arenaplan::sys::ap_kernel> = arenaplan_kernels::entries().collect();
//! assert!(entries.len() >= 20);
//! assert!(arenaplan_kernels::find("executorch_prim::add.Scalar").is_some());
//! assert!(arenaplan_kernels::find("aten::add.out").is_none()); // ExecuTorch's kernel
//! ```
//!
//! Numerics follow ExecuTorch's runtime (`kernels/prim_ops`): see README.md.
#![no_std]
#![deny(missing_docs)]

use core::ffi::CStr;

pub mod prim;
mod tensor;

/// A kernel: the operator it runs and the function.
#[derive(Clone, Copy, Debug)]
pub struct Kernel {
    /// The operator, as a program's kernel call names it (`aten::add.out`).
    pub op: &'static CStr,
    /// The function over the call's arguments.
    pub run: arenaplan::BackendFn,
}

macro_rules! kernels {
    ($($op:literal as $symbol:literal => $run:path,)*) => {
        /// Every kernel of the library, by operator.
        pub const KERNELS: &[Kernel] = &[$(Kernel { op: $op, run: $run },)*];

        /// Each kernel under the symbol the build's generated tables name (`ap_kernel_` and
        /// the operator by arenaplan-syntax's injective symbol rule), for firmware whose program is bound at build
        /// time. A feature, since a crate's own `#[kernel]` for one of these operators would
        /// define the same symbol.
        #[cfg(feature = "symbols")]
        mod symbols {
            #[allow(unused_imports)]
            use super::*;
            $(
                const _: () = {
                    unsafe extern "C" fn run(
                        ctx: *mut arenaplan::sys::ap_context,
                        args: *mut arenaplan::sys::ap_buffer,
                        nargs: usize,
                        _user: *mut core::ffi::c_void,
                    ) -> arenaplan::sys::ap_status {
                        // SAFETY: called by the runtime as a kernel, with its context and the
                        // call's argument list.
                        unsafe { arenaplan::__private::dispatch($run, ctx, args, nargs) }
                    }
                    #[unsafe(export_name = concat!("ap_kernel_", $symbol))]
                    static KERNEL: arenaplan::__private::KernelDesc =
                        arenaplan::__private::KernelDesc::new($op.to_bytes_with_nul(), run);
                };
            )*
        }

        /// The symbol of each kernel, as [`KERNELS`] lists them (checked against the build's
        /// name rule by a test).
        pub const SYMBOLS: &[&str] = &[$(concat!("ap_kernel_", $symbol),)*];
    };
}

kernels! {
    c"executorch_prim::add.Scalar" as "executorch__prim_3a_3aadd_2eScalar" => prim::add,
    c"executorch_prim::sub.Scalar" as "executorch__prim_3a_3asub_2eScalar" => prim::sub,
    c"executorch_prim::mul.Scalar" as "executorch__prim_3a_3amul_2eScalar" => prim::mul,
    c"executorch_prim::floordiv.Scalar" as "executorch__prim_3a_3afloordiv_2eScalar" => prim::floordiv,
    c"executorch_prim::floordiv.int" as "executorch__prim_3a_3afloordiv_2eint" => prim::floordiv_int,
    c"executorch_prim::truediv.Scalar" as "executorch__prim_3a_3atruediv_2eScalar" => prim::truediv,
    c"executorch_prim::mod.Scalar" as "executorch__prim_3a_3amod_2eScalar" => prim::modulo,
    c"executorch_prim::eq.Scalar" as "executorch__prim_3a_3aeq_2eScalar" => prim::eq,
    c"executorch_prim::gt.Scalar" as "executorch__prim_3a_3agt_2eScalar" => prim::gt,
    c"executorch_prim::lt.Scalar" as "executorch__prim_3a_3alt_2eScalar" => prim::lt,
    c"executorch_prim::ge.Scalar" as "executorch__prim_3a_3age_2eScalar" => prim::ge,
    c"executorch_prim::le.Scalar" as "executorch__prim_3a_3ale_2eScalar" => prim::le,
    c"executorch_prim::neg.Scalar" as "executorch__prim_3a_3aneg_2eScalar" => prim::neg,
    c"executorch_prim::sym_float.Scalar" as "executorch__prim_3a_3asym__float_2eScalar" => prim::sym_float,
    c"executorch_prim::sym_int.Scalar" as "executorch__prim_3a_3asym__int_2eScalar" => prim::sym_int,
    c"executorch_prim::ceil.Scalar" as "executorch__prim_3a_3aceil_2eScalar" => prim::ceil,
    c"executorch_prim::round.Scalar" as "executorch__prim_3a_3around_2eScalar" => prim::round,
    c"executorch_prim::trunc.Scalar" as "executorch__prim_3a_3atrunc_2eScalar" => prim::trunc_scalar,
    c"executorch_prim::sym_max.Scalar" as "executorch__prim_3a_3asym__max_2eScalar" => prim::sym_max,
    c"executorch_prim::sym_min.Scalar" as "executorch__prim_3a_3asym__min_2eScalar" => prim::sym_min,
    c"executorch_prim::sym_not.Scalar" as "executorch__prim_3a_3asym__not_2eScalar" => prim::sym_not,
    c"executorch_prim::sym_ite.Scalar" as "executorch__prim_3a_3asym__ite_2eScalar" => prim::sym_ite,
    c"aten::sym_size.int" as "aten_3a_3asym__size_2eint" => prim::sym_size,
    c"aten::sym_numel" as "aten_3a_3asym__numel" => prim::sym_numel,
    c"aten::_local_scalar_dense" as "aten_3a_3a__local__scalar__dense" => prim::local_scalar_dense,
}

/// The kernel for operator `op`, if the library has one.
pub fn find(op: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.op.to_bytes() == op.as_bytes())
}

/// Every kernel as an entry of the list `ap_method_init` resolves kernel calls against.
pub fn entries() -> impl Iterator<Item = arenaplan::sys::ap_kernel> {
    KERNELS.iter().map(|k| arenaplan::kernel_entry(k.op, k.run))
}
