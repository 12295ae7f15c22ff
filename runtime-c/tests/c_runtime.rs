//! Builds the C runtime's own tests (`ctests/`) with the system C compiler and runs them.
//! `.ci/run` runs the same program under AddressSanitizer, UBSan and valgrind.

use std::path::Path;
use std::process::Command;

#[test]
fn c_runtime_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = std::env::temp_dir().join(format!("arenaplan-c-tests-{}", std::process::id()));
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = Command::new(&cc)
        .args([
            "-std=c11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-O1",
            "-o",
        ])
        .arg(&exe)
        .arg("-I")
        .arg(root.join("include"))
        .args(
            [
                "csrc/runtime.c",
                "csrc/ethosu_backend.c",
                "csrc/ethosu_sim.c",
                "csrc/neutron_backend.c",
                "csrc/neutron_sim.c",
                "ctests/test_runtime.c",
            ]
            .map(|f| root.join(f)),
        )
        .status()
        .expect("a C compiler");
    assert!(
        status.success(),
        "the C runtime and its tests compile without warnings"
    );
    let out = Command::new(&exe).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.trim_end().ends_with("0 failed"), "{stdout}");
}
