//! The kernels a host runner registers.

use std::vec::Vec;

use arenaplan::sys;

/// The kernels a host runner registers: arenaplan-kernels', the runtime's own `et:move` and
/// its TFLite kernels (with CMSIS-NN: [`arenaplan::tflite_kernels`]), as the list `ap_method_init` (and [`Runner::with_kernels`](crate::Runner::with_kernels)) resolves kernel calls against.
///
/// ```
/// let kernels = arenaplan_host::kernels();
/// assert!(kernels.len() > arenaplan_kernels::KERNELS.len());
/// ```
pub fn kernels() -> Vec<sys::ap_kernel> {
    arenaplan_kernels::entries()
        // SAFETY: a const C static, never written.
        .chain(std::iter::once(unsafe { sys::ap_kernel_et_3amove }))
        .chain(arenaplan::tflite_kernels())
        .collect()
}
