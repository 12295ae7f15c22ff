//! Plans the exported `torch.cond` program (`fixture/program.pte`, ExecuTorch 1.5.1's own
//! export) for corstone-300 and compiles its tables and C API, and ExecuTorch's own kernels of
//! the operators it calls (from `EXECUTORCH_PATH`); its scalar operators come from
//! arenaplan-kernels.

fn main() {
    let generated = arenaplan_build::Build::new()
        .model("fixture/program.pte")
        .target("corstone-300")
        .name("model")
        .compile();
    generated.cc_build().compile("model_tables");
    if let Some(kernels) = generated.executorch_build() {
        kernels.compile("model_kernels");
    }
}
