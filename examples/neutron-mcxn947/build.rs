//! Plans the Neutron program for mcxn947 and compiles the generated program tables.
use std::path::PathBuf;

fn main() {
    let generated = arenaplan_build::Build::new()
        .model("../../build-support/testdata/fixtures/neutron_v0_one_call.pte")
        .target("mcxn947")
        .name("model")
        .compile();
    generated.cc_build().compile("model_tables");
    if std::env::var("TARGET")
        .unwrap_or_default()
        .starts_with("thumb")
    {
        let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
        std::fs::copy("memory.x", out.join("memory.x")).unwrap();
        println!("cargo::rustc-link-search={}", out.display());
        println!("cargo::rustc-link-arg=-Tlink.x");
        generated.link_args();
        println!("cargo::rerun-if-changed=memory.x");
    }
}
