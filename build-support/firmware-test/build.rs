//! Plans `model.toml` for corstone-320 with the declarations in `src/`, and compiles a C
//! probe against the generated header (the Rust side defines the symbols).
fn main() {
    let generated = arenaplan_build::Build::new()
        .model("model.toml")
        .target("corstone-320")
        // The declarations are the runtime's front-page example, included by src/lib.rs.
        .source("src/lib.rs")
        .source("../../runtime-c/src/doc/front_page.rs")
        .compile();
    generated
        .cc_build()
        .file("csrc/probe.c")
        .compile("arenaplan_probe");
    println!("cargo::rerun-if-changed=csrc/probe.c");
}
