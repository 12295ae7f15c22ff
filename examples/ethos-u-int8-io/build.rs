//! Plans the program ExecuTorch 1.5.1 exported for the Ethos-U55 with int8 I/O
//! (`fixture/program.pte`: `forward` and ten constant methods holding its I/O quantization
//! parameters) for corstone-300, and compiles its tables, its C API and the C half of the
//! check (`csrc/c_api.c`, which uses only the generated header). On the Cortex-M target it
//! links the arenas into QEMU's mps3-an547 memories.

fn main() {
    let generated = arenaplan_build::Build::new()
        .model("fixture/program.pte")
        .target("corstone-300")
        .name("model")
        .compile();
    generated
        .cc_build()
        .file("csrc/c_api.c")
        .compile("model_tables");
    println!("cargo::rerun-if-changed=csrc/c_api.c");
    generated
        .link_cortex_m_rt("memory.x")
        .expect("memory.x is readable");
}
