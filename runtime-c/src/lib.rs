//! arenaplan for firmware: declare delegate backends and kernels and their scratch with
//! [`delegate`], [`kernel`] and [`spec!`], include the plan the build script generated with
//! [`include_plan!`], write backends in Rust against the [`Call`] view, and run planned
//! programs on the C runtime through [`Model`] (the generated module's `Model` is
//! `arenaplan::Model<Plan>`; the raw C API is [`sys`], with [`check`] for its status codes).
//!
//! ```ignore
//! use arenaplan::{delegate, spec};
//!
//! arenaplan::include_plan!();
//!
//! #[delegate(backend = "EthosUBackend", scratch = blob, mem_id = spec!(npu_scratch))]
//! pub struct EthosU;
//!
//! #[delegate(backend = "ConvIm2col", scratch = [2048, 512],
//!            mem_id = [spec!(fast_scratch), spec!(cpu_scratch)])]
//! pub fn conv_im2col(call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
//!     let (inputs, outputs, scratch) = call.split();
//!     # let _ = (inputs, outputs, scratch);
//!     Ok(())
//! }
//! ```
//!
//! A backend written in Rust is a function over the [`Call`] view of its flat argument list
//! (inputs, outputs, then scratch), so it can be exercised without the runtime:
//!
//! ```
//! fn double(call: &mut arenaplan::Call<'_>) -> arenaplan::Result {
//!     let (inputs, outputs, _scratch) = call.split();
//!     for (out, x) in outputs[0].iter_mut().zip(inputs[0].iter()) {
//!         *out = x.wrapping_mul(2);
//!     }
//!     Ok(())
//! }
//!
//! let (x, mut y) = ([1u8, 2, 3], [0u8; 3]);
//! let inputs: [&[u8]; 1] = [&x];
//! let mut outputs: [&mut [u8]; 1] = [&mut y];
//! let mut call = arenaplan::Call::new(&inputs, &mut outputs, 1).expect("1 output");
//! double(&mut call).unwrap();
//! assert_eq!(y, [2, 4, 6]);
//! ```
#![no_std]
#![deny(missing_docs)]

#[cfg(arenaplan_board)]
pub mod board;
mod call;
mod link;
mod model;
mod runtime;
#[cfg(arenaplan_simulator)]
pub mod sim;
mod tables;
mod trampoline;

pub use arenaplan_macros::{delegate, kernel, spec};
pub use call::{Call, Error, Kind, Meta, Result};
pub use model::{CMethod, CProgram, Model, Program, RunError};
pub use runtime::{check, RuntimeError};
pub use tables::{AlignAs, Alignment, Arena, ArenaSpan, Buffer, CallArgs, Region};
pub use trampoline::kernel_entry;

/// The runtime's kernels of TFLite's builtin operators (`tflite:FULLY_CONNECTED`, …), on Arm's
/// CMSIS-NN: built in when `CMSIS_NN_PATH` names a checkout of it at build time, empty
/// otherwise. A runner adds them to its kernel list; firmware links them by the symbols the
/// generated tables name.
///
/// ```
/// for k in arenaplan::tflite_kernels() {
///     // SAFETY: the runtime's kernel names are static C strings.
///     let name = unsafe { core::ffi::CStr::from_ptr(k.name) };
///     assert!(name.to_bytes().starts_with(b"tflite:"));
/// }
/// ```
pub fn tflite_kernels() -> impl Iterator<Item = sys::ap_kernel> {
    // SAFETY: const C statics of the runtime, never written.
    #[cfg(arenaplan_cmsis_nn)]
    let kernels = unsafe {
        [
            sys::ap_kernel_tflite_3aADD,
            sys::ap_kernel_tflite_3aCONCATENATION,
            sys::ap_kernel_tflite_3aDEQUANTIZE,
            sys::ap_kernel_tflite_3aMAX__POOL__2D,
            sys::ap_kernel_tflite_3aMUL,
            sys::ap_kernel_tflite_3aPAD,
            sys::ap_kernel_tflite_3aAVERAGE__POOL__2D,
            sys::ap_kernel_tflite_3aCONV__2D,
            sys::ap_kernel_tflite_3aDEPTHWISE__CONV__2D,
            sys::ap_kernel_tflite_3aFULLY__CONNECTED,
            sys::ap_kernel_tflite_3aQUANTIZE,
            sys::ap_kernel_tflite_3aSOFTMAX,
            sys::ap_kernel_tflite_3aSVDF,
            sys::ap_kernel_tflite_3aUNIDIRECTIONAL__SEQUENCE__LSTM,
            sys::ap_kernel_tflite_3aRESHAPE,
            sys::ap_kernel_tflite_3aCONV__2D__S16,
            sys::ap_kernel_tflite_3aDEPTHWISE__CONV__2D__S16,
            sys::ap_kernel_tflite_3aFULLY__CONNECTED__PER__CHANNEL,
            sys::ap_kernel_tflite_3aFULLY__CONNECTED__PER__CHANNEL__S16,
            sys::ap_kernel_tflite_3aADD__S16,
            sys::ap_kernel_tflite_3aMUL__S16,
            sys::ap_kernel_tflite_3aAVERAGE__POOL__2D__S16,
            sys::ap_kernel_tflite_3aMAX__POOL__2D__S16,
            sys::ap_kernel_tflite_3aINT__BINARY,
            sys::ap_kernel_tflite_3aCAST,
            sys::ap_kernel_tflite_3aTRANSPOSE__CONV,
            sys::ap_kernel_tflite_3aMEAN,
            sys::ap_kernel_tflite_3aRELU,
            sys::ap_kernel_tflite_3aSTRIDED__SLICE,
            sys::ap_kernel_tflite_3aSignalWindow,
            sys::ap_kernel_tflite_3aSignalFftAutoScale,
            sys::ap_kernel_tflite_3aSignalRfft,
            sys::ap_kernel_tflite_3aSignalEnergy,
            sys::ap_kernel_tflite_3aSignalFilterBank,
            sys::ap_kernel_tflite_3aSignalFilterBankSquareRoot,
            sys::ap_kernel_tflite_3aSignalFilterBankSpectralSubtraction,
            sys::ap_kernel_tflite_3aSignalPCAN,
            sys::ap_kernel_tflite_3aSignalFilterBankLog,
        ]
    };
    #[cfg(not(arenaplan_cmsis_nn))]
    let kernels: [sys::ap_kernel; 0] = [];
    kernels.into_iter()
}

/// The C runtime's raw bindings (generated by bindgen from `include/arenaplan/bindings.h`,
/// committed, and checked for freshness in CI): executor, Ethos-U and Neutron backends, driver
/// simulators.
#[allow(
    non_camel_case_types,
    non_upper_case_globals,
    non_snake_case,
    missing_docs,
    dead_code
)]
pub mod sys {
    include!("bindings.rs");
}

/// A backend written in C, bound by `#[delegate]` on a unit struct.
pub trait Delegate {
    /// The backend id.
    const BACKEND: &'static str;
    /// How many scratch buffers each call gets (`None`: as many as its blob says).
    const SCRATCH_BUFFERS: Option<usize>;
}

/// The signature of a backend written in Rust.
pub type BackendFn = fn(&mut Call<'_>) -> Result;

/// A backend written in Rust, declared by `#[delegate]` on a function.
#[derive(Clone, Copy, Debug)]
pub struct RustDelegate {
    /// The backend id.
    pub backend: &'static str,
    /// How many scratch buffers each call gets (`None`: as many as its blob says).
    pub scratch_buffers: Option<usize>,
    /// The function.
    pub run: BackendFn,
}

/// Includes the plan module the build script generated (`crate::arenaplan_plan`), which the
/// `#[delegate]` checks refer to. Call it once, at the crate root.
#[macro_export]
macro_rules! include_plan {
    () => {
        /// The memory plan generated by arenaplan's build script.
        #[allow(dead_code, non_snake_case, non_upper_case_globals)]
        pub mod arenaplan_plan {
            include!(env!("ARENAPLAN_PLAN_RS"));
        }
    };
}

/// Support for generated code and macro expansions; not a stable API.
#[doc(hidden)]
pub mod __private {
    pub use crate::trampoline::{dispatch, BackendDesc, ExecuteFn, KernelDesc, KernelFn, MAX_ARGS};

    /// Marks a backend id (by tag) as declared: a second declaration conflicts.
    pub trait Declared<const TAG: u64> {}

    /// Whether two size lists are equal, in const context.
    pub const fn sizes_match(planned: &[usize], declared: &[usize]) -> bool {
        if planned.len() != declared.len() {
            return false;
        }
        let mut i = 0;
        while i < planned.len() {
            if planned[i] != declared[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}
