//! The example runs its default program on the C runtime and its Rust kernels, and its outputs
//! equal the build script's reference evaluation bit for bit.

#[test]
fn the_program_runs_and_matches_the_reference() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cpu-kernels"))
        .output()
        .expect("the example runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("(as the reference)"), "{text}");
    assert!(text.contains("40 B of constants in flash"), "{text}");
}
