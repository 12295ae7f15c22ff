//! Tells the crates that depend on this one where the bridge to ExecuTorch's C++ kernels is
//! (`DEP_ARENAPLAN_KERNELS_BRIDGE`): a firmware's build script, where arenaplan-build compiles
//! the program's ExecuTorch kernels with it, and arenaplan-host.

fn main() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bridge");
    println!("cargo::metadata=bridge={}", dir.display());
    println!("cargo::rerun-if-changed=build.rs");
}
