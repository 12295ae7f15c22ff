//! An Ethos-U55 program exported by ExecuTorch with int8 I/O, whose constant methods hold its
//! I/O quantization parameters, run through the generated Rust and C APIs: on the host
//! (`cargo run -p ethos-u-int8-io`, where constants sit in read-only pages) and on an emulated
//! Cortex-M55 (`--target thumbv8m.main-none-eabihf`, under qemu-system-arm -M mps3-an547), where
//! it reports over semihosting and exits 0 only when every check passed.
#![cfg_attr(target_os = "none", no_std, no_main)]

arenaplan::include_plan!();

mod firmware;

/// The Ethos-U backend (C, in the runtime): each call's scratch size comes from its Vela blob,
/// in the pool the target's `npu_scratch` spec names.
#[arenaplan::delegate(backend = "EthosUBackend", scratch = blob, mem_id = arenaplan::spec!(npu_scratch))]
pub struct EthosU;

#[path = "../../support/mps3_an547.rs"]
mod mps3_an547;

#[cfg(not(target_os = "none"))]
fn main() -> std::process::ExitCode {
    mps3_an547::host(firmware::run)
}
