//! Bringing up the NPU on a board, without `unsafe` in the firmware: the feature `board`, on any
//! target (with the feature `simulator`, or on the host, the bring-up drives the emulated NPU;
//! the Ethos-U part needs `ethos-u-driver`). Call the NPU's `init` once, before the first
//! inference, and route its interrupt to `ethos_u::on_interrupt`.
//!
//! Corstone-300's Ethos-U55 (`ethos_u`, with `ethos-u-driver`) and NXP's Neutron (`neutron`)
//! each have an example of their own, compiled by CI with the features on.
//!
//! On the host, where there is no NPU, `arenaplan::sim` registers the emulated one instead;
//! under QEMU (feature `simulator`) both are there.

use crate::{check, sys, RuntimeError};

/// Arm Ethos-U through Arm's driver (built with `ETHOS_U_CORE_DRIVER_PATH`), as the Ethos-U
/// backend uses it: one driver instance, initialised here, reserved at each call.
///
/// ```no_run
/// use arenaplan::board::ethos_u;
///
/// // The NPU's interrupt handler; with a peripheral access crate's vector table (cortex-m-rt's
/// // `device` feature) it is `#[interrupt] fn ETHOS_U55()`.
/// #[allow(non_snake_case)]
/// fn ETHOS_U55() {
///     ethos_u::on_interrupt();
/// }
///
/// fn main() -> Result<(), arenaplan::RuntimeError> {
///     // Corstone-300: the Ethos-U55 at its documented base, no fast memory (Shared_Sram).
///     ethos_u::init(ethos_u::Npu::CORSTONE_300, None)?;
///     # let _ = ETHOS_U55;
///     Ok(())
/// }
/// ```
#[cfg(arenaplan_board_ethos_u)]
#[cfg_attr(docsrs, doc(cfg(feature = "ethos-u-driver")))]
pub mod ethos_u {
    use super::*;

    /// Where an Ethos-U's registers are and how it is driven: a board arenaplan knows, or
    /// [`Npu::at`] for another.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub struct Npu {
        base: usize,
        secure: bool,
        privileged: bool,
        irq: Option<u16>,
    }

    impl Npu {
        /// Arm Corstone-300 (SSE-300: MPS3 AN547/AN552, the FVP): the Ethos-U55 at its secure
        /// alias `0x4810_2000`, driven secure and privileged, on interrupt 56, as Arm's
        /// platform code for the board sets it up.
        pub const CORSTONE_300: Npu = Npu {
            base: 0x4810_2000,
            secure: true,
            privileged: true,
            irq: Some(56),
        };

        /// An Ethos-U whose register block starts at `base`, driven at the given security and
        /// privilege levels (what `ethosu_init` takes).
        ///
        /// # Safety
        ///
        /// `base` must be the register block of an Ethos-U that nothing else drives: Arm's
        /// driver reads and writes it, and the NPU then reads and writes the memory its
        /// command streams name.
        pub const unsafe fn at(base: usize, secure: bool, privileged: bool) -> Npu {
            Npu {
                base,
                secure,
                privileged,
                irq: None,
            }
        }

        /// The same NPU on interrupt `irq` (CMSIS `IRQn`), which [`init`] enables.
        pub const fn with_irq(self, irq: u16) -> Npu {
            Npu {
                irq: Some(irq),
                ..self
            }
        }

        /// The NPU's interrupt number (CMSIS `IRQn`), where known: the handler of this
        /// interrupt calls [`on_interrupt`].
        pub const fn irq(&self) -> Option<u16> {
            self.irq
        }
    }

    /// Initialises Arm's driver for `npu`, with `fast_memory` as the driver's fast memory
    /// where the model needs one (an Ethos-U65/U85 in Dedicated_Sram mode: Vela's arena
    /// cache; `None` otherwise), then enables the NPU's interrupt where `npu` names it.
    /// Errors: `AP_ERR_DRIVER_SETUP` on a second call, `AP_ERR_DRIVER` when the driver
    /// refuses (no Ethos-U answers at the base).
    pub fn init(npu: Npu, fast_memory: Option<&'static mut [u8]>) -> Result<(), RuntimeError> {
        let (fast, fast_len) = match fast_memory {
            Some(m) => (m.as_mut_ptr().cast(), m.len()),
            None => (core::ptr::null_mut(), 0),
        };
        // SAFETY: `npu.base` is an Ethos-U's register block: a board constant, or what the
        // caller of the unsafe `Npu::at` vouched for. The fast memory is `'static` and
        // exclusively lent to the driver from here on. A second initialisation is refused by
        // the C side before it touches the driver.
        check(unsafe {
            sys::ap_board_ethosu_init(
                npu.base as *mut core::ffi::c_void,
                fast,
                fast_len,
                u32::from(npu.secure),
                u32::from(npu.privileged),
            )
        })?;
        if let Some(irq) = npu.irq {
            // SAFETY: a write of one NVIC enable bit; the handler it lets run only touches the
            // driver initialised above.
            unsafe { sys::ap_board_enable_irq(u32::from(irq)) };
        }
        Ok(())
    }

    /// The Ethos-U interrupt: runs Arm's `ethosu_irq_handler` on the driver [`init`] set up
    /// (nothing before it). Call it from the NPU interrupt's handler.
    pub fn on_interrupt() {
        // SAFETY: the C side runs the driver's handler only once `init` succeeded; the handler
        // touches the driver's own state and the NPU's registers.
        unsafe { sys::ap_board_ethosu_irq() }
    }
}

/// NXP eIQ Neutron through NXP's library (linked from the MCUXpresso SDK).
///
/// ```no_run
/// fn main() -> Result<(), arenaplan::RuntimeError> {
///     // MCX N / i.MX RT700: NXP's library, once, before the first inference.
///     arenaplan::board::neutron::init()?;
///     Ok(())
/// }
/// ```
pub mod neutron {
    use super::*;

    /// NXP's `neutronInit`, once before the first inference; `AP_ERR_DRIVER` if it fails.
    pub fn init() -> Result<(), RuntimeError> {
        // SAFETY: NXP's library initialisation: no pointers cross.
        check(unsafe { sys::ap_board_neutron_init() })
    }
}
