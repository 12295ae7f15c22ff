//! Plans the model for corstone-300, compiles the generated program tables with the runtime's
//! headers, and on the Cortex-M target links the arenas into SRAM and DDR. Also writes
//! `reference.rs` into OUT_DIR: TFLite Micro's input and output for the model (its two calls'
//! uncompiled TFLite models chained, `build-support/testdata/tflm-reference`), which the
//! firmware checks its output against.

use std::path::Path;

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
    // Links into build-support/testdata/tflm-reference/fixture_conv_then_pool, as model.pte is
    // (a package carries the files themselves).
    let array = |name: &str, file: &str| {
        let path = Path::new(file);
        println!("cargo::rerun-if-changed={}", path.display());
        let bytes = npy_data(&std::fs::read(path).expect("the TFLM reference"));
        format!("pub const {name}: [i8; {}] = {:?};\n", bytes.len(), bytes)
    };
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("reference.rs");
    let text = array("INPUT", "reference-in.npy") + &array("EXPECTED", "reference-out.npy");
    std::fs::write(out, text).expect("OUT_DIR is writable");
}

/// The data of an int8 `.npy` file (format version 1: magic, version, header length, header).
fn npy_data(file: &[u8]) -> Vec<i8> {
    assert!(
        file.starts_with(b"\x93NUMPY\x01"),
        "an .npy file of version 1"
    );
    let header = usize::from(u16::from_le_bytes([file[8], file[9]]));
    file[10 + header..].iter().map(|&b| b as i8).collect()
}
