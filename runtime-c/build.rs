//! Compiles the C runtime with `cc`: what goes in is what the crate's features ask for, never
//! what the environment happens to hold. Each feature that builds a vendor's sources finds them
//! at a variable, and fails the build in one line when they are not there (naming the variable,
//! the commit arenaplan is tested against and the command that fetches it):
//!
//! - `ethos-u-driver`, `ETHOS_U_CORE_DRIVER_PATH`: Arm's `ethos-u-core-driver`. Its
//!   `ethosu_driver.c` is compiled unchanged and the Ethos-U backend is compiled against its
//!   `ethosu_driver.h`. With the simulators (a hosted target, or firmware with the `simulator`
//!   feature) the register layer is arenaplan's recording device layer
//!   (`emulation/ethosu_device_host.c`); without them, Arm's own (`ethosu_device_u55_u65.c` or
//!   `ethosu_device_u85.c`, after `ETHOSU_TARGET_NPU_CONFIG`, default `ethos-u55-128`). Without
//!   the feature, the simulator stands in for the driver on the host.
//! - `neutron-api`, `NXP_NEUTRON_DRIVER_PATH`: the folder holding NXP's `NeutronDriver.h` and
//!   `NeutronErrors.h`; the Neutron backend is compiled against them (NXP's library links on a
//!   board; the simulator implements the same functions on the host).
//! - `tflite-kernels`, `CMSIS_NN_PATH`: Arm's CMSIS-NN. The kernels of TFLite's builtin
//!   operators (`kernels/tflite/`) are built on it, with the CMSIS-NN functions they call;
//!   without the feature the runtime has none (`arenaplan::tflite_kernels()` is empty).
//!
//! And two that build only arenaplan's own code: `simulator` (the emulated NPUs, always there on
//! a hosted target) and `board` (`arenaplan::board`, the NPUs' bring-up; its Ethos-U part with
//! `ethos-u-driver`).
//!
//! On Cortex-M the C follows rustc's `-C target-cpu` (a `.cargo/config.toml`'s `rustflags`):
//! `cortex-m55` builds CMSIS-NN's Helium code, `cortex-m33` its DSP code. Without it, cc-rs
//! compiles for the target triple's base architecture (plain C on `thumbv8m.main`), and the
//! kernels refuse a plan made for a core with more (`AP_ERR_SCRATCH_TOO_SMALL`, rather than
//! overrun a buffer).
//!
//! With the `regenerate-bindings` feature it also regenerates the bindgen bindings into OUT_DIR,
//! for CI to compare with the committed `src/bindings/`.

use std::path::{Path, PathBuf};

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    let thumb = target.starts_with("thumb");
    // The simulators stand in for the NPUs where there is none: on a hosted target always, in
    // firmware only when asked (QEMU), so a board's firmware never ships an emulator by default.
    let bare_metal = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "none");
    let simulator = !bare_metal || std::env::var_os("CARGO_FEATURE_SIMULATOR").is_some();
    println!("cargo::rustc-check-cfg=cfg(arenaplan_simulator)");
    println!("cargo::rustc-check-cfg=cfg(docsrs)");
    println!("cargo::rustc-check-cfg=cfg(arenaplan_board)");
    println!("cargo::rustc-check-cfg=cfg(arenaplan_board_ethos_u)");
    println!("cargo::rustc-check-cfg=cfg(arenaplan_cmsis_nn)");
    if simulator {
        println!("cargo::rustc-cfg=arenaplan_simulator");
    }
    let feature = |name: &str| {
        std::env::var_os(format!(
            "CARGO_FEATURE_{}",
            name.to_uppercase().replace('-', "_")
        ))
        .is_some()
    };
    // docs.rs documents the crate without the vendors' sources and links nothing: each part a
    // feature asks for is documented (its cfg set), nothing is compiled.
    println!("cargo::rerun-if-env-changed=DOCS_RS");
    let docs_only = std::env::var_os("DOCS_RS").is_some();
    let sources = |vendor: &Vendor| {
        if docs_only {
            PathBuf::new()
        } else {
            vendor_sources(vendor)
        }
    };
    let arm_driver = feature("ethos-u-driver").then(|| sources(&Vendor::of("ethos-u-driver")));
    let board = feature("board");
    // The NPUs' bring-up (`arenaplan::board`) where the feature asks for it, on any target; the
    // feature `simulator` only adds the emulated NPUs (over which the bring-up then runs), it
    // never takes the bring-up away. Its Ethos-U part with Arm's driver, whose instance it holds.
    if board {
        println!("cargo::rustc-cfg=arenaplan_board");
    }
    if board && arm_driver.is_some() {
        println!("cargo::rustc-cfg=arenaplan_board_ethos_u");
    }
    let nxp_api = feature("neutron-api").then(|| sources(&Vendor::of("neutron-api")));
    let cmsis_nn = feature("tflite-kernels").then(|| sources(&Vendor::of("tflite-kernels")));
    // What this build has, for `arenaplan::capabilities()` (and `arenaplan --version`).
    for (name, on) in [
        ("ETHOS_U_DRIVER", arm_driver.is_some()),
        ("NEUTRON_API", nxp_api.is_some()),
        ("TFLITE_KERNELS", cmsis_nn.is_some()),
        ("SIMULATOR", simulator),
        ("BOARD", board),
    ] {
        println!("cargo::rustc-env=ARENAPLAN_HAS_{name}={}", u8::from(on));
    }
    // And for the build scripts of crates that depend on this one (DEP_ARENAPLAN_RUNTIME_...):
    // arenaplan-build refuses a model whose TFLite operators this runtime has no kernels for,
    // rather than let its tables fail to link.
    println!(
        "cargo::metadata=tflite_kernels={}",
        u8::from(cmsis_nn.is_some())
    );
    println!("cargo::rerun-if-changed=vendors.txt");
    for vendor in ["ethos-u-driver", "neutron-api", "tflite-kernels"].map(Vendor::of) {
        println!(
            "cargo::rustc-env=ARENAPLAN_SOURCES_{}={} ({})",
            vendor.feature.to_uppercase().replace('-', "_"),
            vendor.described(),
            vendor.var
        );
    }
    if docs_only {
        if cmsis_nn.is_some() {
            println!("cargo::rustc-cfg=arenaplan_cmsis_nn");
        }
        return;
    }

    let core = core_flags(thumb);
    // The same flags for C compiled elsewhere for this firmware (a program's ExecuTorch kernels,
    // arenaplan-build's `executorch_build`), so it runs the same instruction set: one rule.
    println!("cargo::metadata=core_flags={}", core.join(" "));
    let (own_sanitizers, vendor_sanitizers) = sanitizers(thumb);
    let vendor_flags = [core.clone(), vendor_sanitizers].concat();
    let mut build = cc::Build::new();
    for flag in core.iter().chain(&own_sanitizers) {
        build.flag(flag);
    }
    build
        .include("include")
        .std("c11")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .file("core/runtime.c")
        .file("backends/ethos-u/ethosu_backend.c")
        .file("backends/neutron/neutron_backend.c")
        .file("core/dcache.c");
    // The SCB's cache operations are Armv7-M/Armv8-M instructions: on any other target (the
    // host) the feature does nothing, so one dependency line serves firmware and host builds.
    if std::env::var_os("CARGO_FEATURE_DCACHE_SCB").is_some() && thumb {
        build.define("AP_DCACHE_SCB", None);
    }
    if let Some(driver) = &arm_driver {
        build
            .define("AP_ETHOSU_ARM_DRIVER", None)
            .include(driver.join("include"))
            .include(driver.join("src"));
    }
    if let Some(api) = &nxp_api {
        build.define("AP_NEUTRON_NXP_API", None).include(api);
    }
    if let Some(nn) = &cmsis_nn {
        build.include(nn.join("Include"));
        for file in c_files("kernels/tflite") {
            build.file(file);
        }
        println!("cargo::rustc-cfg=arenaplan_cmsis_nn");
    }
    if board {
        build
            .file("backends/ethos-u/board_ethosu.c")
            .file("backends/neutron/board_neutron.c");
    }
    if simulator {
        // AP_ETHOSU_EMULATED: the emulation's device layer defines the driver's semaphores, so
        // the board's bring-up, when it is there too, does not.
        build
            .define("AP_DCACHE_RECORD", None)
            .define("AP_ETHOSU_EMULATED", None)
            .file("emulation/ethosu_npu_model.c")
            .files(c_files("emulation/ethosu_model"))
            .file("emulation/neutron_sim.c")
            .file(if arm_driver.is_some() {
                "emulation/ethosu_device_host.c"
            } else {
                "emulation/ethosu_sim.c"
            });
    }
    if thumb {
        build
            .flag_if_supported("-ffunction-sections")
            .flag_if_supported("-fdata-sections");
    }
    build.compile("arenaplan_runtime");
    if let Some(nn) = &cmsis_nn {
        compile_cmsis_nn(nn, thumb, &vendor_flags);
        if thumb && core.is_empty() {
            println!(
                "cargo::warning=CMSIS-NN is built as plain C: no `-C target-cpu` names the core. \
                 Set it (e.g. rustflags = [\"-C\", \"target-cpu=cortex-m55\"] in \
                 .cargo/config.toml) for its Helium or DSP code and the scratch planned for them"
            );
        }
    }
    if let Some(driver) = &arm_driver {
        compile_arm_driver(driver, simulator, thumb, &vendor_flags);
    }

    // Dependents' build scripts see DEP_ARENAPLAN_RUNTIME_INCLUDE: the runtime's headers, for
    // the generated program tables.
    let include =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default()).join("include");
    println!("cargo::metadata=include={}", include.display());
    // And the CMSIS-NN files it compiles, for the host runner's build of ExecuTorch's Cortex-M
    // operators (which call CMSIS-NN too).
    println!(
        "cargo::metadata=cmsis_nn_sources={}",
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default())
            .join("kernels/tflite/cmsis-nn-sources.txt")
            .display()
    );
    for dir in [
        "core",
        "backends",
        "kernels/tflite",
        "emulation",
        "include",
        "port",
    ] {
        println!("cargo::rerun-if-changed={dir}");
    }
    #[cfg(feature = "regenerate-bindings")]
    regenerate();
}

/// The `.c` files of a folder, sorted (one file per operator: adding one needs no list).
fn c_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|entry| Some(entry.ok()?.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "c"))
        .collect();
    files.sort();
    files
}

/// GCC's flags for the core rustc compiles for (`-C target-cpu` in `CARGO_ENCODED_RUSTFLAGS`),
/// after cc-rs's own for the triple: a later `-march` replaces its base architecture, so
/// CMSIS-NN sees the core's extensions (`__ARM_FEATURE_MVE`, `__ARM_FEATURE_DSP`). None on
/// the host, or for a core the triple's architecture already describes.
fn core_flags(thumb: bool) -> Vec<String> {
    if !thumb {
        return Vec::new();
    }
    let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    let mut cpu = None;
    let mut args = rustflags.split('\x1f').peekable();
    while let Some(arg) = args.next() {
        let value = match arg {
            "-C" | "--codegen" => args.next().unwrap_or_default(),
            a => a.strip_prefix("-C").unwrap_or(""),
        };
        if let Some(name) = value.strip_prefix("target-cpu=") {
            cpu = Some(name.to_owned());
        }
    }
    let Some(cpu) = cpu else {
        return Vec::new();
    };
    let arch = match cpu.as_str() {
        // Armv8.1-M with Helium (integer and floating point) and double-precision FP.
        "cortex-m52" | "cortex-m55" | "cortex-m85" => "armv8.1-m.main+mve.fp+fp.dp",
        // Armv8-M Mainline with the DSP extension.
        "cortex-m33" | "cortex-m35p" => "armv8-m.main+dsp",
        // Armv7E-M (Cortex-M4, M7) has DSP in the triple; other cores add nothing.
        _ => return Vec::new(),
    };
    vec![format!("-march={arch}"), format!("-mtune={cpu}")]
}

/// `ARENAPLAN_SANITIZE` (host builds, e.g. `address,undefined`): the sanitizers for
/// arenaplan's own C, and for the vendors' (AddressSanitizer only: their undefined behaviour,
/// such as CMSIS-NN's shifts of negative values, is theirs to fix; an out-of-bounds access in
/// them is still caught, as our checks must prevent it). The test binaries link the
/// sanitizers' runtimes, which must be loaded first (`LD_PRELOAD`, as CI's step does).
fn sanitizers(thumb: bool) -> (Vec<String>, Vec<String>) {
    println!("cargo::rerun-if-env-changed=ARENAPLAN_SANITIZE");
    let wanted = std::env::var("ARENAPLAN_SANITIZE").unwrap_or_default();
    if wanted.is_empty() || thumb {
        return (Vec::new(), Vec::new());
    }
    let kinds: Vec<&str> = wanted.split(',').map(str::trim).collect();
    for kind in &kinds {
        match *kind {
            "address" => println!("cargo::rustc-link-lib=dylib=asan"),
            "undefined" => println!("cargo::rustc-link-lib=dylib=ubsan"),
            other => fail(&format!(
                "ARENAPLAN_SANITIZE={wanted}: `{other}` is not a sanitizer arenaplan builds with (address, undefined)"
            )),
        }
    }
    let common = ["-fno-omit-frame-pointer", "-fno-sanitize-recover=all"].map(String::from);
    let own = [
        vec![format!("-fsanitize={}", kinds.join(","))],
        common.to_vec(),
    ]
    .concat();
    let vendor = if kinds.contains(&"address") {
        [vec!["-fsanitize=address".to_owned()], common.to_vec()].concat()
    } else {
        Vec::new()
    };
    (own, vendor)
}

/// A vendor's sources a feature builds, as `vendors.txt` lists them (CMake's fetch reads the
/// same file): where they are found, what proves it, and the commit arenaplan is tested against.
struct Vendor {
    feature: &'static str,
    var: &'static str,
    /// A file the folder must hold.
    expect: &'static str,
    what: &'static str,
    repository: &'static str,
    commit: &'static str,
    /// The folder `git clone` makes.
    clone: &'static str,
    /// Where in the clone the variable points (empty: the clone itself).
    subfolder: &'static str,
}

impl Vendor {
    /// The vendor whose sources `feature` builds.
    fn of(feature: &str) -> Vendor {
        let list = include_str!("vendors.txt");
        for line in list
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let f: Vec<&'static str> = line.split('|').map(str::trim).collect();
            if let [feat, var, expect, what, repository, commit, clone, subfolder] = f[..] {
                if feat == feature {
                    return Vendor {
                        feature: feat,
                        var,
                        expect,
                        what,
                        repository,
                        commit,
                        clone,
                        subfolder,
                    };
                }
            }
        }
        panic!("vendors.txt has no well-formed line for feature `{feature}`")
    }

    /// What it is, with the tested commit.
    fn described(&self) -> String {
        format!("{} (commit {})", self.what, self.commit)
    }

    /// The one command that fetches the tested commit (into the current folder).
    fn fetch(&self) -> String {
        let (repository, clone, commit) = (self.repository, self.clone, self.commit);
        format!("git clone {repository} {clone} && git -C {clone} checkout {commit}")
    }

    /// Where, in what [`Vendor::fetch`] makes, the variable points.
    fn folder(&self) -> String {
        if self.subfolder.is_empty() {
            self.clone.to_owned()
        } else {
            format!("{}/{}", self.clone, self.subfolder)
        }
    }
}

/// The folder holding a feature's vendor sources; the build fails, in one line that says what to
/// do, when the variable is unset or names a folder without them.
fn vendor_sources(vendor: &Vendor) -> PathBuf {
    println!("cargo::rerun-if-env-changed={}", vendor.var);
    let Vendor {
        feature,
        var,
        expect,
        ..
    } = vendor;
    let (what, fetch, folder) = (vendor.described(), vendor.fetch(), vendor.folder());
    let dir = std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    match dir {
        Some(dir) if dir.join(expect).is_file() => {
            println!("cargo::rerun-if-changed={}", dir.display());
            dir
        }
        Some(dir) => fail(&format!(
            "arenaplan's feature `{feature}` builds {what}, but {var}={} does not hold {expect}: point {var} at the folder that does (fetch it with `{fetch}`, then {var}=$PWD/{folder}), or leave the feature off",
            dir.display()
        )),
        None => fail(&format!(
            "arenaplan's feature `{feature}` builds {what}: set {var} to its folder (fetch it with `{fetch}`, then {var}=$PWD/{folder}), or leave the feature off"
        )),
    }
}

/// Stops the build with `message` as Cargo's one error line (a build script that exits with
/// success after `cargo::error` fails the build without the script's output dumped after it).
fn fail(message: &str) -> ! {
    println!("cargo::error={message}");
    std::process::exit(0)
}

/// The CMSIS-NN functions the TFLite kernels call, unchanged. Their variant follows the
/// compiler's target: plain C on the host, DSP or Helium where `-mcpu` enables them.
fn compile_cmsis_nn(nn: &Path, thumb: bool, core: &[String]) {
    let mut build = cc::Build::new();
    for flag in core {
        build.flag(flag);
    }
    build
        .include(nn.join("Include"))
        .std("c11")
        .warnings(false)
        .extra_warnings(false);
    let list = std::fs::read_to_string("kernels/tflite/cmsis-nn-sources.txt")
        .expect("kernels/tflite/cmsis-nn-sources.txt");
    for source in list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        build.file(nn.join(source));
    }
    println!("cargo::rerun-if-changed=kernels/tflite/cmsis-nn-sources.txt");
    if thumb {
        // Helium's inline assembly takes every register it can: a debug build's frame pointer
        // (r7) would leave its constraints impossible.
        build
            .opt_level(2)
            .flag("-fomit-frame-pointer")
            .flag_if_supported("-ffunction-sections")
            .flag_if_supported("-fdata-sections");
    }
    build.compile("cmsis_nn");
}

/// Arm's driver front end, unchanged, for the NPU `ETHOSU_TARGET_NPU_CONFIG` names, and Arm's
/// register layer for it unless the simulator's device layer takes its place.
fn compile_arm_driver(driver: &Path, simulator: bool, thumb: bool, core: &[String]) {
    println!("cargo::rerun-if-env-changed=ETHOSU_TARGET_NPU_CONFIG");
    let config =
        std::env::var("ETHOSU_TARGET_NPU_CONFIG").unwrap_or_else(|_| "ethos-u55-128".into());
    let (arch, macs) = config
        .strip_prefix("ethos-")
        .and_then(|c| c.split_once('-'))
        .filter(|(arch, macs)| {
            ["u55", "u65", "u85"].contains(arch) && macs.parse::<u32>().is_ok()
        })
        .unwrap_or_else(|| {
            panic!("ETHOSU_TARGET_NPU_CONFIG={config}: expected ethos-u55-N, ethos-u65-N or ethos-u85-N")
        });
    let mut build = cc::Build::new();
    for flag in core {
        build.flag(flag);
    }
    build
        .include(driver.join("include"))
        .include(driver.join("src"))
        // <cmsis_compiler.h> for __WFE/__SEV when no CMSIS is on the path.
        .include("port")
        .std("c11")
        .warnings(false)
        .extra_warnings(false)
        .define("ETHOSU", None)
        .define(&format!("ETHOSU{}", &arch[1..]), None)
        .define("ETHOSU_ARCH", arch)
        .define("ETHOSU_MACS", macs)
        .file(driver.join("src/ethosu_driver.c"));
    if !simulator {
        build.file(driver.join(if arch == "u85" {
            "src/ethosu_device_u85.c"
        } else {
            "src/ethosu_device_u55_u65.c"
        }));
    }
    if thumb {
        // No stdio or assert on bare metal: the driver's logs and asserts compile out.
        build
            .define("ETHOSU_LOG_ENABLE", "0")
            .define("NDEBUG", None)
            .opt_level(2)
            .flag_if_supported("-ffunction-sections")
            .flag_if_supported("-fdata-sections");
    } else {
        build.define("ETHOSU_LOG_SEVERITY", "-1");
    }
    build.compile("ethosu_core_driver");
}

/// The bindings, one file per part of the runtime a configuration links (`src/bindings/`): the
/// executor, backends and types every build has; the emulated NPUs' set-up and the cache
/// recorder (`simulator`); the board bring-up (`board`, its Ethos-U part with Arm's driver); the
/// TFLite kernel registry (CMSIS-NN).
/// `sys` includes a part only where it is linked, so a function of another configuration is a
/// compile error, not a link error.
#[cfg(feature = "regenerate-bindings")]
const BINDING_PARTS: [(&str, &str, &str); 4] = [
    (
        "simulator",
        "ap_ethosu_host_.*|ap_ethosu_sim_.*|ap_neutron_host_.*|ap_neutron_sim_.*|ap_dcache_(count|records|misaligned|reset)",
        "",
    ),
    ("board", "ap_board_enable_irq|ap_board_neutron_init", ""),
    ("board_ethos_u", "ap_board_ethosu_.*", ""),
    ("tflite", "", "ap_kernel_tflite_.*|ap_tflite_kernels"),
];

#[cfg(feature = "regenerate-bindings")]
fn regenerate() {
    let out_dir = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("bindings");
    std::fs::create_dir_all(&out_dir).expect("creates the bindings folder");
    let base = || {
        bindgen::Builder::default()
            .header("include/arenaplan/bindings.h")
            .clang_arg("-Iinclude")
            .use_core()
            .rustified_enum("ap_status")
            .layout_tests(false)
    };
    let (mut parts_functions, mut parts_vars) = (Vec::new(), Vec::new());
    let mut files = Vec::new();
    for (part, functions, vars) in BINDING_PARTS {
        // Only the part's own functions and statics: its types are the core's.
        let mut builder = base().allowlist_recursively(false);
        if !functions.is_empty() {
            builder = builder.allowlist_function(functions);
            parts_functions.push(functions);
        }
        if !vars.is_empty() {
            builder = builder.allowlist_var(vars);
            parts_vars.push(vars);
        }
        files.push((part, builder));
    }
    let core = base()
        .allowlist_function("ap_.*")
        .allowlist_type("ap_.*")
        .allowlist_var("AP_.*|ap_ethosu_backend|ap_neutron_backend|ap_ethosu_fast_scratch.*|ap_kernel_et_3amove")
        .blocklist_function(parts_functions.join("|"))
        .blocklist_item(parts_vars.join("|"));
    files.insert(0, ("core", core));
    let mut stale = Vec::new();
    for (part, builder) in files {
        let out = out_dir.join(format!("{part}.rs"));
        builder
            .generate()
            .expect("bindgen runs (LIBCLANG_PATH=/usr/lib/llvm-14/lib)")
            .write_to_file(&out)
            .expect("writes the bindings");
        let fresh = std::fs::read_to_string(&out).expect("reads the new bindings");
        let committed =
            std::fs::read_to_string(format!("src/bindings/{part}.rs")).unwrap_or_default();
        if fresh != committed {
            stale.push(format!(
                "cp {} runtime-c/src/bindings/{part}.rs",
                out.display()
            ));
        }
    }
    if !stale.is_empty() {
        panic!(
            "runtime-c/src/bindings/ is stale: the headers changed. Regenerate it with\n  {}",
            stale.join("\n  ")
        );
    }
}
