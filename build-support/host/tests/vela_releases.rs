//! Command streams of earlier Vela releases, and the optimizer-config check of Arm's driver, on
//! the emulated Ethos-U55 (through Arm's driver when `ETHOS_U_CORE_DRIVER_PATH` is set):
//!
//! - our fixture model as each release of `ethos-u-vela` from the package registry compiled it
//!   (`testdata/vela-releases/`, by `scripts/make_vela_releases.py`) runs, as Arm's driver runs
//!   it on the NPU, from 2.0.1 to the fixture set's own 5.2.0; a 1.x stream is refused at
//!   build time, naming why (its scratch has no size);
//! - a stream whose optimizer config Arm's driver refuses (`ethosu_dev_verify_optimizer_config`)
//!   fails at its call with the field named, one case per field; configs the driver accepts
//!   although they are not the NPU's word for word (another SHRAM size, an older architecture
//!   patch) run.

mod support;

use std::path::{Path, PathBuf};

use arenaplan::sys;
use arenaplan_build::Build;
use support::vela_run::{execute, run};

fn testdata(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../build-support/testdata")
        .join(path)
}

/// Sets the optimizer config's CONFIG and ID words (`edit`) of the blob's command stream.
fn with_config(blob: &mut [u8], edit: impl Fn(u32, u32) -> (u32, u32)) {
    let at = blob
        .windows(4)
        .position(|w| w == b"COP1")
        .expect("a command stream");
    let word =
        |b: &[u8], w: usize| u32::from_le_bytes(b[at + 4 * w..at + 4 * w + 4].try_into().unwrap());
    assert_eq!(word(blob, 1) & 0xFF, 1, "the optimizer config comes first");
    let (config, id) = edit(word(blob, 2), word(blob, 3));
    blob[at + 8..at + 12].copy_from_slice(&config.to_le_bytes());
    blob[at + 12..at + 16].copy_from_slice(&id.to_le_bytes());
}

#[test]
fn earlier_vela_releases_run_and_refused_configs_name_the_field() {
    // The emulated NPU and its driver are one per process: one test runs every case in turn.
    let mut releases: Vec<PathBuf> = std::fs::read_dir(testdata("vela-releases"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    releases.sort();
    assert!(releases.len() >= 6, "{releases:?}");
    for model in &releases {
        let name = model.file_name().unwrap().to_string_lossy().into_owned();
        if name.contains("_vela_1.") {
            let e = Build::new()
                .model(model)
                .target("corstone-300")
                .sources(Vec::<PathBuf>::new())
                .try_render()
                .expect_err(&name)
                .to_string();
            assert!(e.contains("Vela releases before 2.0"), "{name}: {e}");
            continue;
        }
        let first =
            run(model, "corstone-300", 3, true).unwrap_or_else(|why| panic!("{name}: {why}"));
        assert!(!first.is_empty(), "{name}");
    }

    let model = testdata("fixtures/fixture_conv_vela_u55.tflite");
    let rendered = Build::new()
        .model(&model)
        .target("corstone-300")
        .sources(Vec::<PathBuf>::new())
        .try_render()
        .unwrap();
    type Edit = fn(u32, u32) -> (u32, u32);
    let refused: [(Edit, &str); 5] = [
        (
            |c, i| ((c & !0xF) | 8, i),
            "macs_per_cc 8 (256 MACs) against 7 (128)",
        ),
        (|c, i| (c | 0x10, i), "cmd_stream_version 1 against 0"),
        (
            |c, i| (c | 1 << 28, i),
            "product 1 (the stream's, Ethos-U65) against 0 (Ethos-U55)",
        ),
        (|c, i| (c | 1 << 27, i), "custom_dma used by the stream"),
        (
            |c, i| (c, i + (1 << 20)),
            "architecture 1.1.6 against 1.0.6",
        ),
    ];
    for (edit, field) in refused {
        let mut program = rendered.program.clone();
        with_config(program.delegates[0].blob.as_mut().unwrap(), edit);
        let (e, at) = execute(&program, &rendered.plan, "corstone-300", 3).expect_err(field);
        assert_eq!((e.0, at), (sys::ap_status::AP_ERR_DRIVER, 0), "{field}");
        let text = arenaplan_host::failure_text(&e, at);
        assert!(
            text.contains(field) && text.contains("--accelerator-config"),
            "{field}: {text}"
        );
    }
    let accepted: [(Edit, &str); 2] = [
        (|c, i| (c ^ 0x100, i), "another SHRAM size"),
        (
            |c, i| (c, i & !0xFFFF),
            "the ID as Vela 4 and older write it (no product version)",
        ),
    ];
    for (edit, what) in accepted {
        let mut program = rendered.program.clone();
        with_config(program.delegates[0].blob.as_mut().unwrap(), edit);
        execute(&program, &rendered.plan, "corstone-300", 3)
            .unwrap_or_else(|(e, at)| panic!("{what}: {}", arenaplan_host::failure_text(&e, at)));
    }
}
