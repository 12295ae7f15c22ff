//! Plans model.toml for corstone-320 with the declarations in src/main.rs, and compiles the
//! model's tables and C API (which name the Rust backend's and kernel's symbols).
fn main() {
    arenaplan_build::Build::new()
        .model("model.toml")
        .target("corstone-320")
        .compile()
        .cc_build()
        .compile("model_tables");
}
