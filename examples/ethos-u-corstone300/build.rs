//! Plans the model for corstone-300, compiles the generated program tables with the runtime's
//! headers, and on the Cortex-M target links the arenas into SRAM and DDR.

fn main() {
    let generated = arenaplan_build::Build::new()
        .model("model.pte") // the Vela-compiled fixture (a link into build-support/testdata)
        .target("corstone-300")
        .name("model")
        .compile();
    generated.cc_build().compile("model_tables");
    // On the Cortex-M target: cortex-m-rt's link.x with QEMU's mps3-an547 memory map, then the
    // model's linker script, which includes one fragment per pool (NOLOAD sections inserted
    // before .bss).
    generated
        .link_cortex_m_rt("memory.x")
        .expect("memory.x is readable");
}
