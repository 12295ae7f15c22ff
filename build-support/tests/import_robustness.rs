//! Importers face files from anywhere: truncated or corrupted real files must give an error,
//! never a panic. (The fuzz targets in `fuzz/` search further; this is the fixed, fast part.)

mod common;

use arenaplan_build::import::{read_pte, read_tflite};
use common::corpus;

/// Every prefix at a stride, and single-byte corruptions at a stride, of every corpus file.
fn mutate(data: &[u8], read: impl Fn(&[u8])) {
    let stride = (data.len() / 97).max(1);
    for cut in (0..data.len()).step_by(stride) {
        read(&data[..cut]);
    }
    for at in (0..data.len()).step_by(stride) {
        for value in [0x00, 0xFF, 0x7F, data[at].wrapping_add(1)] {
            let mut copy = data.to_vec();
            copy[at] = value;
            read(&copy);
        }
    }
}

#[test]
fn corrupted_programs_and_models_are_refused_without_panicking() {
    let Some(corpus) = corpus() else { return };
    for dir in ["pte", "pte-delegated"] {
        for path in common::files(&corpus.join(dir), "pte") {
            let data = std::fs::read(&path).unwrap();
            match read_pte(&data, "x") {
                Ok(_) => {}
                Err(e) => panic!("{}: {e}", path.display()),
            }
            mutate(&data, |d| {
                let _ = read_pte(d, "x");
            });
        }
    }
    for dir in [
        "tflite",
        "vela/u55-128-shared-sram",
        "vela/u85-256-dedicated-sram",
    ] {
        for path in common::files(&corpus.join(dir), "tflite")
            .into_iter()
            .take(6)
        {
            let data = std::fs::read(&path).unwrap();
            assert!(read_tflite(&data, "x").is_ok(), "{}", path.display());
            mutate(&data, |d| {
                let _ = read_tflite(d, "x");
            });
        }
    }
}

#[test]
fn wrong_identifiers_and_empty_files_say_what_was_expected() {
    let e = read_pte(b"", "x").unwrap_err().to_string();
    assert!(e.contains("runs past the end"), "{e}");
    let mut data = vec![0u8; 64];
    data[4..8].copy_from_slice(b"TFL3");
    let e = read_pte(&data, "x").unwrap_err().to_string();
    assert_eq!(
        e,
        "malformed flatbuffer at byte 0x4: file identifier is \"TFL3\", expected \"ET12\""
    );
    data[4..8].copy_from_slice(b"ET12");
    let e = read_tflite(&data, "x").unwrap_err().to_string();
    assert!(e.contains("expected \"TFL3\""), "{e}");
}

#[test]
fn corrupted_operator_fixtures_are_refused_or_read_without_panicking() {
    // The TensorFlow-exported fixtures reach every lowering the corpus does not: corrupted
    // shapes, options and constants must give an error or a call left unlowered, never a
    // panic or an overflow.
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/tflite-ops");
    for path in common::files(&fixtures, "tflite") {
        let data = std::fs::read(&path).unwrap();
        assert!(read_tflite(&data, "x").is_ok(), "{}", path.display());
        let stride = (data.len() / 1500).max(1);
        for at in (0..data.len()).step_by(stride) {
            for value in [0x00, 0xFF, 0x7F, 0x80, data[at].wrapping_add(1)] {
                let mut copy = data.clone();
                copy[at] = value;
                let _ = read_tflite(&copy, "x");
            }
        }
    }
}
