//! Plans the Neutron program for mcxn947, compiles the generated program tables, and on the
//! Cortex-M target links the arenas into the MCX N947's SRAM.

fn main() {
    let generated = arenaplan_build::Build::new()
        .model("model.pte") // the Neutron fixture (a link into build-support/testdata)
        .target("mcxn947")
        .name("model")
        .compile();
    generated.cc_build().compile("model_tables");
    generated
        .link_cortex_m_rt("memory.x")
        .expect("memory.x is readable");
}
