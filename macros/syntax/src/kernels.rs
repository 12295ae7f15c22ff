//! The operators arenaplan-kernels implements in Rust, for the build to know, without
//! depending on the firmware crate, which operators of a program run there; every other
//! ExecuTorch operator runs on ExecuTorch's own kernel (arenaplan-build's
//! `kernels::executorch`). One implementation per operator: an operator listed here is never
//! also bound to ExecuTorch's. arenaplan-kernels' tests check its kernel list against this one.
//!
//! ```
//! assert!(arenaplan_syntax::kernels::RUST_KERNELS.contains(&"executorch_prim::add.Scalar"));
//! ```

/// The operators arenaplan-kernels implements: ExecuTorch's scalar (prim) operators, which
/// ExecuTorch registers by hand rather than from a schema, so no shim can be generated for
/// them.
pub const RUST_KERNELS: &[&str] = &[
    "executorch_prim::add.Scalar",
    "executorch_prim::sub.Scalar",
    "executorch_prim::mul.Scalar",
    "executorch_prim::floordiv.Scalar",
    "executorch_prim::floordiv.int",
    "executorch_prim::truediv.Scalar",
    "executorch_prim::mod.Scalar",
    "executorch_prim::eq.Scalar",
    "executorch_prim::gt.Scalar",
    "executorch_prim::lt.Scalar",
    "executorch_prim::ge.Scalar",
    "executorch_prim::le.Scalar",
    "executorch_prim::neg.Scalar",
    "executorch_prim::sym_float.Scalar",
    "executorch_prim::sym_int.Scalar",
    "executorch_prim::ceil.Scalar",
    "executorch_prim::round.Scalar",
    "executorch_prim::trunc.Scalar",
    "executorch_prim::sym_max.Scalar",
    "executorch_prim::sym_min.Scalar",
    "executorch_prim::sym_not.Scalar",
    "executorch_prim::sym_ite.Scalar",
    "aten::sym_size.int",
    "aten::sym_numel",
    "aten::_local_scalar_dense",
];
