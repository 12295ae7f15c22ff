//! Plans `model.toml` for corstone-320 with the declarations in `src/`, and compiles a C
//! probe against the generated header (the Rust side defines the symbols).
fn main() {
    let generated = arenaplan_build::Build::new()
        .model("model.toml")
        .target("corstone-320")
        .compile();
    generated
        .cc_build()
        .file("csrc/probe.c")
        .compile("arenaplan_probe");
    println!("cargo::rerun-if-changed=csrc/probe.c");
}
