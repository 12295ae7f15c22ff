//! CPU kernels for the operators ExecuTorch's exporters leave on the CPU, written in Rust over
//! arenaplan's [`Call`](arenaplan::Call) view, `no_std`, without allocation. Each kernel
//! reads its arguments' types and shapes from the value table the program records and checks
//! them before it writes; a call it cannot run is `Error::BadArguments`, never a panic.
//!
//! [`KERNELS`] lists them by operator name, the names the program's kernel calls use; a runner
//! registers them all with one call:
//!
//! ```
//! let entries: Vec<arenaplan::sys::ap_kernel> = arenaplan_kernels::entries().collect();
//! assert!(entries.len() >= 20);
//! assert!(arenaplan_kernels::find("aten::addmm.out").is_some());
//! ```
//!
//! Numerics follow ExecuTorch's portable kernels: float32 computed in float32, sums in
//! increasing index order, quantization rounding half to even. See README.md for each
//! operator's tolerance against ExecuTorch's runtime.
#![no_std]
#![deny(missing_docs)]

use core::ffi::CStr;

pub mod elementwise;
pub mod index;
pub mod linalg;
pub mod prim;
pub mod quant;
pub mod shape;
pub mod tensor;

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
        /// the operator as a C identifier), for firmware whose program is bound at build
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
    c"aten::add.out" as "aten__add_out" => elementwise::add,
    c"aten::add.Scalar_out" as "aten__add_scalar_out" => elementwise::add_scalar,
    c"aten::sub.out" as "aten__sub_out" => elementwise::sub,
    c"aten::sub.Scalar_out" as "aten__sub_scalar_out" => elementwise::sub_scalar,
    c"aten::mul.out" as "aten__mul_out" => elementwise::mul,
    c"aten::mul.Scalar_out" as "aten__mul_scalar_out" => elementwise::mul_scalar,
    c"aten::relu.out" as "aten__relu_out" => elementwise::relu,
    c"aten::gt.Tensor_out" as "aten__gt_tensor_out" => elementwise::gt,
    c"aten::gt.Scalar_out" as "aten__gt_scalar_out" => elementwise::gt_scalar,
    c"aten::where.self_out" as "aten__where_self_out" => elementwise::where_self,
    c"aten::mm.out" as "aten__mm_out" => linalg::mm,
    c"aten::addmm.out" as "aten__addmm_out" => linalg::addmm,
    c"aten::linear.out" as "aten__linear_out" => linalg::linear,
    c"aten::permute_copy.out" as "aten__permute_copy_out" => shape::permute_copy,
    c"aten::view_copy.out" as "aten__view_copy_out" => shape::view_copy,
    c"aten::clone.out" as "aten__clone_out" => shape::clone,
    c"dim_order_ops::_to_dim_order_copy.out" as "dim_order_ops___to_dim_order_copy_out" => shape::to_dim_order_copy,
    c"dim_order_ops::_clone_dim_order.out" as "dim_order_ops___clone_dim_order_out" => shape::to_dim_order_copy,
    c"aten::select_copy.int_out" as "aten__select_copy_int_out" => shape::select_copy,
    c"aten::sum.IntList_out" as "aten__sum_intlist_out" => shape::sum,
    c"aten::cat.out" as "aten__cat_out" => shape::cat,
    c"aten::copy_" as "aten__copy_" => index::copy_,
    c"aten::index_put_" as "aten__index_put_" => index::index_put_,
    c"aten::index_put.out" as "aten__index_put_out" => index::index_put,
    c"executorch_prim::add.Scalar" as "executorch_prim__add_scalar" => prim::add,
    c"executorch_prim::sub.Scalar" as "executorch_prim__sub_scalar" => prim::sub,
    c"executorch_prim::mul.Scalar" as "executorch_prim__mul_scalar" => prim::mul,
    c"executorch_prim::floordiv.Scalar" as "executorch_prim__floordiv_scalar" => prim::floordiv,
    c"executorch_prim::floordiv.int" as "executorch_prim__floordiv_int" => prim::floordiv_int,
    c"executorch_prim::truediv.Scalar" as "executorch_prim__truediv_scalar" => prim::truediv,
    c"executorch_prim::mod.Scalar" as "executorch_prim__mod_scalar" => prim::modulo,
    c"executorch_prim::eq.Scalar" as "executorch_prim__eq_scalar" => prim::eq,
    c"executorch_prim::gt.Scalar" as "executorch_prim__gt_scalar" => prim::gt,
    c"executorch_prim::lt.Scalar" as "executorch_prim__lt_scalar" => prim::lt,
    c"executorch_prim::ge.Scalar" as "executorch_prim__ge_scalar" => prim::ge,
    c"executorch_prim::le.Scalar" as "executorch_prim__le_scalar" => prim::le,
    c"executorch_prim::neg.Scalar" as "executorch_prim__neg_scalar" => prim::neg,
    c"executorch_prim::sym_float.Scalar" as "executorch_prim__sym_float_scalar" => prim::sym_float,
    c"executorch_prim::sym_int.Scalar" as "executorch_prim__sym_int_scalar" => prim::sym_int,
    c"executorch_prim::ceil.Scalar" as "executorch_prim__ceil_scalar" => prim::ceil,
    c"executorch_prim::round.Scalar" as "executorch_prim__round_scalar" => prim::round,
    c"executorch_prim::trunc.Scalar" as "executorch_prim__trunc_scalar" => prim::trunc_scalar,
    c"executorch_prim::sym_max.Scalar" as "executorch_prim__sym_max_scalar" => prim::sym_max,
    c"executorch_prim::sym_min.Scalar" as "executorch_prim__sym_min_scalar" => prim::sym_min,
    c"executorch_prim::sym_not.Scalar" as "executorch_prim__sym_not_scalar" => prim::sym_not,
    c"executorch_prim::sym_ite.Scalar" as "executorch_prim__sym_ite_scalar" => prim::sym_ite,
    c"aten::sym_size.int" as "aten__sym_size_int" => prim::sym_size,
    c"aten::sym_numel" as "aten__sym_numel" => prim::sym_numel,
    c"aten::_local_scalar_dense" as "aten___local_scalar_dense" => prim::local_scalar_dense,
    c"quantized_decomposed::quantize_per_tensor.out" as "quantized_decomposed__quantize_per_tensor_out" => quant::quantize_per_tensor,
    c"quantized_decomposed::dequantize_per_tensor.out" as "quantized_decomposed__dequantize_per_tensor_out" => quant::dequantize_per_tensor,
}

/// The kernel for operator `op`, if the library has one.
pub fn find(op: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.op.to_bytes() == op.as_bytes())
}

/// Every kernel as an entry of the list `ap_method_init` resolves kernel calls against.
pub fn entries() -> impl Iterator<Item = arenaplan::sys::ap_kernel> {
    KERNELS.iter().map(|k| arenaplan::kernel_entry(k.op, k.run))
}
