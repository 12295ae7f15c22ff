//! The TFLite importer against the reference runtime: for every corpus TFLite model, the
//! inputs and outputs arenaplan reads (count, shape, dtype, bytes, quantization) are those the
//! TFLite Micro interpreter reports (`testdata/tflm-reference/*/io.json`, written by
//! `scripts/make_tflm_reference.py` with the `tflite-micro` package), and the interpreter's
//! recorded inputs and outputs (`K-inI.npy`, `K-outO.npy`) hold exactly the bytes the
//! importer's tensors have: the data the CPU kernels' tests compare output bytes with.

mod common;

use std::path::{Path, PathBuf};

use arenaplan_build::import::load_model;
use arenaplan_build::model::{Program, Value};

fn reference_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/tflm-reference")
}

fn agree(model: &str, side: &str, i: usize, value: &Value, want: &serde_json::Value) {
    let at = format!("{model}: {side} {i} (`{}`)", value.name);
    let shape: Vec<u64> = want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap())
        .collect();
    assert_eq!(value.shape, shape, "{at}: shape");
    assert_eq!(
        value.dtype.name(),
        want["dtype"].as_str().unwrap(),
        "{at}: dtype"
    );
    let scales: Vec<u32> = want["scale_bits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_u64().unwrap() as u32)
        .collect();
    let zeros: Vec<i64> = want["zero_point"]
        .as_array()
        .unwrap()
        .iter()
        .map(|z| z.as_i64().unwrap())
        .collect();
    match &value.quant {
        Some(q) => {
            assert_eq!(q.scale_bits, scales, "{at}: scales");
            assert_eq!(q.zero_point, zeros, "{at}: zero points");
        }
        None => assert!(
            scales.is_empty(),
            "{at}: TFLM reports quantization {scales:?}"
        ),
    }
}

#[test]
fn the_importer_reads_each_corpus_models_io_as_tflm_does() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let models = common::files(&corpus.join("tflite"), "tflite");
    assert!(models.len() >= 13, "{models:?}");
    for path in &models {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let folder = reference_root().join(&stem);
        let io: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(folder.join("io.json")).unwrap_or_else(|e| {
                panic!("{stem}: no reference ({e}): run scripts/make_tflm_reference.py")
            }),
        )
        .unwrap();
        let program: Program = load_model(path).unwrap_or_else(|e| panic!("{stem}: {e}"));
        for (side, values, want) in [
            ("input", &program.inputs, &io["inputs"]),
            ("output", &program.outputs, &io["outputs"]),
        ] {
            let want = want.as_array().unwrap();
            assert_eq!(values.len(), want.len(), "{stem}: {side}s");
            for (i, (&v, w)) in values.iter().zip(want).enumerate() {
                let value = &program.values[v];
                agree(&stem, side, i, value, w);
                for k in 0..io["invocations"].as_u64().unwrap() {
                    let file = folder.join(format!("{k}-{}{i}.npy", &side[..side.len() - 3]));
                    let (header, data) = common::npy::read(&file);
                    assert_eq!(
                        data.len() as u64,
                        value.bytes,
                        "{stem}: {} holds {} bytes ({header})",
                        file.display(),
                        data.len()
                    );
                }
            }
        }
    }
}
