//! Tells the host runner, when it compiles a program's ExecuTorch kernels, where the bridge
//! and the runtime's headers are (from arenaplan-kernels' and arenaplan's build scripts),
//! which target it runs on, where to cache the objects, and which ExecuTorch sources this
//! crate was built with (`EXECUTORCH_PATH`, if set), for runs that do not set it again.

fn main() {
    let env = |name: &str| std::env::var(name).unwrap_or_default();
    println!("cargo::rustc-env=ARENAPLAN_HOST_TARGET={}", env("TARGET"));
    println!(
        "cargo::rustc-env=ARENAPLAN_HOST_KERNEL_CACHE={}/executorch-kernels",
        env("OUT_DIR")
    );
    println!(
        "cargo::rustc-env=ARENAPLAN_HOST_BRIDGE={}",
        env("DEP_ARENAPLAN_KERNELS_BRIDGE")
    );
    println!(
        "cargo::rustc-env=ARENAPLAN_HOST_RUNTIME_INCLUDE={}",
        env("DEP_ARENAPLAN_RUNTIME_INCLUDE")
    );
    println!(
        "cargo::rustc-env=ARENAPLAN_HOST_CMSIS_NN_SOURCES={}",
        env("DEP_ARENAPLAN_RUNTIME_CMSIS_NN_SOURCES")
    );
    println!("cargo::rerun-if-env-changed=CMSIS_NN_PATH");
    if let Ok(path) = std::env::var("CMSIS_NN_PATH") {
        println!("cargo::rustc-env=ARENAPLAN_HOST_CMSIS_NN_PATH={path}");
    }
    println!("cargo::rerun-if-env-changed=EXECUTORCH_PATH");
    if let Ok(path) = std::env::var("EXECUTORCH_PATH") {
        println!("cargo::rustc-env=ARENAPLAN_HOST_EXECUTORCH_PATH={path}");
    }
    println!("cargo::rerun-if-changed=build.rs");
}
