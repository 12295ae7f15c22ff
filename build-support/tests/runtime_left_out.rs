//! A model whose TFLite operators run on the runtime's TFLite kernels is refused at build time
//! when the firmware's `arenaplan` was built without them (its feature `tflite-kernels` off, as
//! its build script tells dependents' build scripts), naming the feature and the variable,
//! rather than planned into tables that fail to link on `ap_kernel_tflite_*`.
//!
//! One test in its own binary: it sets the variable Cargo would set for a build script.

use std::path::{Path, PathBuf};

use arenaplan_build::{Build, BuildError, ExitStatus};

#[test]
fn tflite_operators_without_the_runtimes_tflite_kernels_are_refused_naming_the_feature() {
    let model =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/tflite-ops/tf_int8_ops.tflite");
    let render = || {
        Build::new()
            .model(&model)
            .target("corstone-300")
            .sources(Vec::<PathBuf>::new())
            .try_render()
    };
    std::env::set_var("DEP_ARENAPLAN_RUNTIME_TFLITE_KERNELS", "1");
    assert!(render().is_ok());
    std::env::set_var("DEP_ARENAPLAN_RUNTIME_TFLITE_KERNELS", "0");
    let e = render().unwrap_err();
    assert!(matches!(e, BuildError::RuntimeLacks(_)), "{e}");
    assert_eq!(e.exit_status(), ExitStatus::CannotRunHere as u8);
    let text = e.to_string();
    assert!(
        text.contains("`tflite:")
            && text.contains("feature `tflite-kernels`")
            && text.contains("CMSIS_NN_PATH"),
        "{text}"
    );
}
