//! Builds the C runtime's own tests (`ctests/`) with the system C compiler and runs them: one
//! program per room (the executor, the Ethos-U backend, the Neutron backend, the emulated Ethos-U,
//! the Neutron simulator, the data-cache recorder), each linking only the sources its room needs,
//! so a failing test names the room. A room that reaches an NPU is built twice: over the
//! simulators, and through the vendors' code — Arm's unchanged `ethosu_driver.c` on arenaplan's
//! recording device layer (`ETHOS_U_CORE_DRIVER_PATH`), NXP's `NeutronDriver.h`
//! (`NXP_NEUTRON_DRIVER_PATH`). In CI (`CI=true`) a missing vendor path fails the test; locally
//! it says it skipped.
//!
//! `ARENAPLAN_CTEST_CFLAGS` adds compiler flags (sanitizers) and `ARENAPLAN_CTEST_RUNNER` a
//! command to run the tests under (valgrind): `.ci/run` uses both.

use std::io::Write as _;
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

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A file in the test's temporary folder, unique to this test run.
fn temp_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("arenaplan-{name}-{}", std::process::id()))
}

fn compile(name: &str, args: &[String], sources: &[PathBuf]) -> PathBuf {
    let exe = temp_file(name);
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
        .arg(root().join("include"))
        .args(sources)
        .arg("-o")
        .arg(&exe)
        .status()
        .expect("a C compiler");
    assert!(status.success(), "{name}: compiles without warnings");
    exe
}

fn run(name: &str, exe: &Path) {
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
    assert!(out.status.success(), "{name}:\n{stdout}\n{stderr}");
    assert!(stdout.trim_end().ends_with("0 failed"), "{name}:\n{stdout}");
    // The closing line, for `--nocapture` (how many checks each room ran).
    eprintln!(
        "{name}: {}",
        stdout.trim_end().lines().last().unwrap_or_default()
    );
}

/// A vendor's code the environment variable `var` points at (`.ci/run`: the `third_party`
/// folder `folder`); `None` (the test skips) when it is unset outside CI. In CI the vendor's code
/// is part of the contract: a test that cannot run its subject fails there.
fn vendor_path(var: &str, folder: &str, test: &str) -> Option<PathBuf> {
    let path = std::env::var_os(var).map(PathBuf::from);
    if path.is_none() {
        assert!(
            std::env::var("CI").map_or(true, |v| v != "true"),
            "CI=true but {var} is not set (.ci/run points it at ../shared/third_party/{folder})"
        );
        // Straight to the standard error handle: the harness would swallow `eprintln!`.
        let _ = writeln!(
            std::io::stderr(),
            "SKIPPED {test}: {var} is not set (the simulator build covers the room)"
        );
    }
    path
}

/// One room: its test program and the runtime's sources it links, besides the shared harness
/// (`ctests/harness.c`, `ctests/blobs.c`).
struct Room {
    name: &'static str,
    program: &'static str,
    sources: &'static [&'static str],
    /// It drives the emulated Ethos-U through a driver front end: the driver simulator
    /// (`emulation/ethosu_sim.c`) or Arm's driver on the device layer.
    ethos_u_driver: bool,
}

const HARNESS: [&str; 2] = ["ctests/harness.c", "ctests/blobs.c"];

/// The executor on its own: its backends and kernels are the test's.
const EXECUTOR: Room = Room {
    name: "executor",
    program: "ctests/executor.c",
    sources: &["core/runtime.c"],
    ethos_u_driver: false,
};

/// The data-cache recorder (`AP_DCACHE_RECORD`).
const DCACHE_RECORDER: Room = Room {
    name: "dcache-recorder",
    program: "ctests/dcache_recorder.c",
    sources: &["core/runtime.c", "core/dcache.c"],
    ethos_u_driver: false,
};

/// The Ethos-U backend on the emulated NPU, behind a driver front end.
const ETHOS_U: Room = Room {
    name: "ethos-u",
    program: "ctests/ethos_u.c",
    sources: &[
        "core/runtime.c",
        "core/dcache.c",
        "backends/ethos-u/ethosu_backend.c",
        "emulation/ethosu_npu_model.c",
    ],
    ethos_u_driver: true,
};

/// The emulated Ethos-U through the driver's API, no backend.
const ETHOS_U_EMULATION: Room = Room {
    name: "ethos-u-emulation",
    program: "ctests/ethos_u_emulation.c",
    sources: &["core/runtime.c", "emulation/ethosu_npu_model.c"],
    ethos_u_driver: true,
};

/// The Neutron backend on the Neutron simulator.
const NEUTRON: Room = Room {
    name: "neutron",
    program: "ctests/neutron.c",
    sources: &[
        "core/runtime.c",
        "backends/neutron/neutron_backend.c",
        "emulation/neutron_sim.c",
    ],
    ethos_u_driver: false,
};

/// The Neutron simulator through NXP's API, no backend.
const NEUTRON_EMULATION: Room = Room {
    name: "neutron-emulation",
    program: "ctests/neutron_emulation.c",
    sources: &["core/runtime.c", "emulation/neutron_sim.c"],
    ethos_u_driver: false,
};

/// The functional Ethos-U55's sources: every `.c` file of `emulation/ethosu_model`.
fn ethosu_model_sources() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("emulation/ethosu_model"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    files.sort();
    files
}

/// Builds and runs `room` with `args` and the `extra` sources (a driver front end).
fn run_room(room: &Room, variant: &str, args: &[String], extra: &[PathBuf]) {
    let mut files: Vec<PathBuf> = room
        .sources
        .iter()
        .chain(HARNESS.iter())
        .chain(std::iter::once(&room.program))
        .map(|f| root().join(f))
        .collect();
    files.extend_from_slice(extra);
    // The emulated Ethos-U is its model file and the functional Ethos-U55's folder.
    if room.sources.contains(&"emulation/ethosu_npu_model.c") {
        files.extend(ethosu_model_sources());
    }
    let name = format!("ctest-{}-{variant}", room.name);
    let mut all = vec!["-DAP_DCACHE_RECORD".to_string()];
    all.extend_from_slice(args);
    let exe = compile(&name, &all, &files);
    run(&name, &exe);
}

/// Builds and runs `room` without vendor code: the Ethos-U driver simulator, the simulator's
/// declarations of NXP's API.
fn on_the_simulators(room: &Room) {
    let mut extra = Vec::new();
    if room.ethos_u_driver {
        extra.push(root().join("emulation/ethosu_sim.c"));
    }
    run_room(room, "sim", &[], &extra);
}

fn inc(p: &Path) -> String {
    format!("-I{}", p.display())
}

/// Builds and runs `room` through Arm's driver front end, unchanged, built as its CMake build
/// does for an Ethos-U55-128, over arenaplan's device layer.
fn through_arms_driver(room: &Room, test: &str) {
    let Some(driver) = vendor_path("ETHOS_U_CORE_DRIVER_PATH", "ethos-u-core-driver", test) else {
        return;
    };
    let driver_obj = temp_file(&format!("ethosu-driver-{}.o", room.name));
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
        .arg(inc(&driver.join("include")))
        .arg(inc(&driver.join("src")))
        .arg(inc(&root().join("port")))
        .arg(driver.join("src/ethosu_driver.c"))
        .arg("-o")
        .arg(&driver_obj)
        .status()
        .expect("a C compiler");
    assert!(status.success(), "Arm's ethosu_driver.c compiles");
    let args = [
        "-DAP_ETHOSU_ARM_DRIVER".to_string(),
        inc(&driver.join("include")),
        inc(&driver.join("src")),
    ];
    let extra = [
        root().join("emulation/ethosu_device_host.c"),
        driver_obj.clone(),
    ];
    run_room(room, "arm", &args, &extra);
    let _ = std::fs::remove_file(&driver_obj);
}

/// Builds and runs `room` against NXP's `NeutronDriver.h` (the simulator implements its API).
fn against_nxps_header(room: &Room, test: &str) {
    let Some(nxp) = vendor_path("NXP_NEUTRON_DRIVER_PATH", "nxp-neutron-driver-api", test) else {
        return;
    };
    run_room(
        room,
        "nxp",
        &["-DAP_NEUTRON_NXP_API".to_string(), inc(&nxp)],
        &[],
    );
}

#[test]
fn executor() {
    on_the_simulators(&EXECUTOR);
}

#[test]
fn dcache_recorder() {
    on_the_simulators(&DCACHE_RECORDER);
}

#[test]
fn ethos_u_backend_on_the_driver_simulator() {
    on_the_simulators(&ETHOS_U);
}

#[test]
fn ethos_u_backend_through_arms_driver() {
    through_arms_driver(&ETHOS_U, "ethos_u_backend_through_arms_driver");
}

#[test]
fn ethos_u_emulation_on_the_driver_simulator() {
    on_the_simulators(&ETHOS_U_EMULATION);
}

#[test]
fn ethos_u_emulation_through_arms_driver() {
    through_arms_driver(&ETHOS_U_EMULATION, "ethos_u_emulation_through_arms_driver");
}

#[test]
fn neutron_backend_on_the_simulator() {
    on_the_simulators(&NEUTRON);
}

#[test]
fn neutron_backend_against_nxps_header() {
    against_nxps_header(&NEUTRON, "neutron_backend_against_nxps_header");
}

#[test]
fn neutron_emulation_on_the_simulator() {
    on_the_simulators(&NEUTRON_EMULATION);
}

#[test]
fn neutron_emulation_against_nxps_header() {
    against_nxps_header(&NEUTRON_EMULATION, "neutron_emulation_against_nxps_header");
}
