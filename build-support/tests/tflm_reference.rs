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

/// One input or output as the interpreter reports it (`io.json`).
#[derive(serde::Deserialize)]
struct Tensor {
    shape: Vec<u64>,
    dtype: String,
    scale_bits: Vec<u32>,
    zero_point: Vec<i64>,
}

/// A model's `io.json`.
#[derive(serde::Deserialize)]
struct Io {
    inputs: Vec<Tensor>,
    outputs: Vec<Tensor>,
    invocations: u32,
}

fn agree(model: &str, side: &str, i: usize, value: &Value, want: &Tensor) {
    let at = format!("{model}: {side} {i} (`{}`)", value.name);
    assert_eq!(value.shape, want.shape, "{at}: shape");
    assert_eq!(value.dtype.name(), want.dtype, "{at}: dtype");
    match &value.quant {
        Some(q) => {
            assert_eq!(q.scale_bits, want.scale_bits, "{at}: scales");
            assert_eq!(q.zero_point, want.zero_point, "{at}: zero points");
        }
        None => assert!(
            want.scale_bits.is_empty(),
            "{at}: TFLM reports quantization {:?}",
            want.scale_bits
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
        let io: Io = serde_json::from_str(
            &std::fs::read_to_string(folder.join("io.json")).unwrap_or_else(|e| {
                panic!("{stem}: no reference ({e}): run scripts/make_tflm_reference.py")
            }),
        )
        .unwrap();
        let program: Program = load_model(path).unwrap_or_else(|e| panic!("{stem}: {e}"));
        for (side, file_side, values, want) in [
            ("input", "in", &program.inputs, &io.inputs),
            ("output", "out", &program.outputs, &io.outputs),
        ] {
            assert_eq!(values.len(), want.len(), "{stem}: {side}s");
            for (i, (&v, w)) in values.iter().zip(want).enumerate() {
                let value = &program.values[v];
                agree(&stem, side, i, value, w);
                for k in 0..io.invocations {
                    let file = folder.join(format!("{k}-{file_side}{i}.npy"));
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
