//! Plans the model for corstone-300, compiles the generated program tables with the runtime's
//! headers, and on the Cortex-M target links the arenas into SRAM and DDR.
use std::path::PathBuf;

fn main() {
    let generated = arenaplan_build::Build::new()
        .model("../../build-support/testdata/fixtures/ethosu_u55_two_calls.pte")
        .target("corstone-300")
        .name("model")
        .compile();
    generated.cc_build().compile("model_tables");
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.starts_with("thumb") {
        // cortex-m-rt's link.x with QEMU's mps3-an547 memory map, then the model's linker
        // script, which includes one fragment per pool (NOLOAD sections inserted before .bss).
        let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
        std::fs::copy("memory.x", out.join("memory.x")).unwrap();
        println!("cargo::rustc-link-search={}", out.display());
        println!("cargo::rustc-link-arg=-Tlink.x");
        generated.link_args();
        println!("cargo::rerun-if-changed=memory.x");
    }
}
