//! Builds the C runtime's own tests (`ctests/`) with the system C compiler and runs them: once
//! over the driver simulator, and, when `ETHOS_U_CORE_DRIVER_PATH` names Arm's driver, once more
//! through Arm's unchanged `ethosu_driver.c` on arenaplan's recording device layer (with NXP's
//! `NeutronDriver.h` from `NXP_NEUTRON_DRIVER_PATH` when it is set).
//!
//! `ARENAPLAN_CTEST_CFLAGS` adds compiler flags (sanitizers) and `ARENAPLAN_CTEST_RUNNER` a
//! command to run the tests under (valgrind): `.ci/run` uses both.

use std::path::{Path, PathBuf};
use std::process::Command;

fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

fn extra_flags() -> Vec<String> {
    std::env::var("ARENAPLAN_CTEST_CFLAGS")
        .unwrap_or_default()
        .split_whitespace()
        .map(String::from)
        .collect()
}

fn compile(root: &Path, name: &str, args: &[String], sources: &[PathBuf]) -> PathBuf {
    let exe = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-{name}-{}", std::process::id()));
    let status = Command::new(cc())
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-g",
            "-O1",
        ])
        .args(extra_flags())
        .args(args)
        .arg("-I")
        .arg(root.join("include"))
        .args(sources)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("a C compiler");
    assert!(status.success(), "{name}: compiles without warnings");
    exe
}

fn run(exe: &Path) {
    let runner = std::env::var("ARENAPLAN_CTEST_RUNNER").unwrap_or_default();
    let mut words = runner.split_whitespace();
    let mut command = match words.next() {
        Some(program) => {
            let mut c = Command::new(program);
            c.args(words).arg(exe);
            c
        }
        None => Command::new(exe),
    };
    let out = command.output().unwrap();
    let _ = std::fs::remove_file(exe);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.trim_end().ends_with("0 failed"), "{stdout}");
}

fn sources(root: &Path, files: &[&str]) -> Vec<PathBuf> {
    files.iter().map(|f| root.join(f)).collect()
}

const COMMON: [&str; 7] = [
    "core/runtime.c",
    "backends/ethos-u/ethosu_backend.c",
    "backends/neutron/neutron_backend.c",
    "core/dcache.c",
    "emulation/ethosu_npu_model.c",
    "emulation/neutron_sim.c",
    "ctests/test_runtime.c",
];

#[test]
fn c_runtime_tests_on_the_simulators() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = sources(root, &COMMON);
    files.push(root.join("emulation/ethosu_sim.c"));
    let exe = compile(root, "ctests-sim", &["-DAP_DCACHE_RECORD".into()], &files);
    run(&exe);
}

#[test]
fn c_runtime_tests_through_arms_driver() {
    let Some(driver) = std::env::var_os("ETHOS_U_CORE_DRIVER_PATH").map(PathBuf::from) else {
        // In CI the vendor's driver is part of the contract: a test that cannot run its
        // subject fails there. Locally it says it skipped.
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true but ETHOS_U_CORE_DRIVER_PATH is not set (.ci/run points it at ../shared/third_party/ethos-u-core-driver)"
        );
        eprintln!(
            "skipping: ETHOS_U_CORE_DRIVER_PATH is not set (the simulator test covers the backend)"
        );
        return;
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let inc = |p: PathBuf| format!("-I{}", p.display());
    // Arm's front end, unchanged, built as its CMake build does for an Ethos-U55-128.
    let driver_obj = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("arenaplan-ethosu-driver-{}.o", std::process::id()));
    let status = Command::new(cc())
        .args([
            "-std=c11",
            "-g",
            "-O1",
            "-c",
            "-DETHOSU",
            "-DETHOSU55",
            "-DETHOSU_ARCH=u55",
        ])
        .args(["-DETHOSU_MACS=128", "-DETHOSU_LOG_SEVERITY=-1"])
        .args(extra_flags())
        .arg(inc(driver.join("include")))
        .arg(inc(driver.join("src")))
        .arg(inc(root.join("port")))
        .arg(driver.join("src/ethosu_driver.c"))
        .arg("-o")
        .arg(&driver_obj)
        .status()
        .expect("a C compiler");
    assert!(status.success(), "Arm's ethosu_driver.c compiles");
    let mut args = vec![
        "-DAP_DCACHE_RECORD".to_string(),
        "-DAP_ETHOSU_ARM_DRIVER".into(),
        inc(driver.join("include")),
        inc(driver.join("src")),
    ];
    if let Some(nxp) = std::env::var_os("NXP_NEUTRON_DRIVER_PATH") {
        args.push("-DAP_NEUTRON_NXP_API".into());
        args.push(inc(PathBuf::from(nxp)));
    }
    let mut files = sources(root, &COMMON);
    files.push(root.join("emulation/ethosu_device_host.c"));
    files.push(driver_obj.clone());
    let exe = compile(root, "ctests-arm", &args, &files);
    let _ = std::fs::remove_file(&driver_obj);
    run(&exe);
}
