//! Compiles the C runtime (and, on the host, the NPU driver simulators) with `cc`; with the
//! `regenerate-bindings` feature also regenerates the bindgen bindings into OUT_DIR, for CI to
//! compare with the committed `src/bindings.rs`.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    let mut build = cc::Build::new();
    build
        .include("include")
        .std("c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .file("csrc/runtime.c")
        .file("csrc/ethosu_backend.c")
        .file("csrc/neutron_backend.c");
    // The simulators stand in for the vendors' drivers where there is no NPU: on the host, and
    // in firmware that asks for them (QEMU). Real firmware links Arm's or NXP's driver instead.
    if std::env::var_os("CARGO_FEATURE_SIMULATOR").is_some() {
        build.file("csrc/ethosu_sim.c").file("csrc/neutron_sim.c");
    }
    if target.starts_with("thumb") {
        build
            .flag_if_supported("-ffunction-sections")
            .flag_if_supported("-fdata-sections");
    }
    build.compile("arenaplan_runtime");
    // Dependents' build scripts see DEP_ARENAPLAN_RUNTIME_INCLUDE: the runtime's headers, for
    // the generated program tables.
    let include = std::path::Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("include");
    println!("cargo::metadata=include={}", include.display());
    for dir in ["csrc", "include"] {
        println!("cargo::rerun-if-changed={dir}");
    }
    #[cfg(feature = "regenerate-bindings")]
    regenerate();
}

#[cfg(feature = "regenerate-bindings")]
fn regenerate() {
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("bindings.rs");
    bindgen::Builder::default()
        .header("include/arenaplan/bindings.h")
        .clang_arg("-Iinclude")
        .use_core()
        .allowlist_function("ap_.*")
        .allowlist_type("ap_.*")
        .allowlist_var("AP_.*|ap_ethosu_backend|ap_neutron_backend")
        .rustified_enum("ap_status")
        .layout_tests(false)
        .generate()
        .expect("bindgen runs (LIBCLANG_PATH=/usr/lib/llvm-14/lib)")
        .write_to_file(&out)
        .expect("writes the bindings");
    let fresh = std::fs::read_to_string(&out).expect("reads the new bindings");
    let committed = std::fs::read_to_string("src/bindings.rs").unwrap_or_default();
    if fresh != committed {
        panic!(
            "runtime-c/src/bindings.rs is stale: the headers changed. Regenerate it with\n  \
             cp {} runtime-c/src/bindings.rs",
            out.display()
        );
    }
}
