//! Plans the model (`model.toml`, or the program `ARENAPLAN_MODEL` names) for corstone-300 with
//! the kernels in src/main.rs, compiles its tables and C API, and computes the outputs a
//! reference evaluation of the program gives for the example's inputs (`reference.rs`), which
//! the example checks the runtime's against.

#[path = "reference.rs"]
mod reference;

fn main() {
    println!("cargo::rerun-if-env-changed=ARENAPLAN_MODEL");
    let model = std::env::var_os("ARENAPLAN_MODEL").unwrap_or_else(|| "model.toml".into());
    let generated = arenaplan_build::Build::new()
        .model(&model)
        .target("corstone-300")
        .name("model")
        .compile();
    generated.cc_build().compile("model_tables");
    let expected = match reference::evaluate(&generated.program) {
        Ok(e) => e,
        Err(e) => {
            println!(
                "cargo::error={}: {e}",
                std::path::Path::new(&model).display()
            );
            std::process::exit(1);
        }
    };
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("expected.rs"), expected).expect("OUT_DIR is writable");
}
