//! TFLite models on the runtime's CPU kernels against the reference runtime: every corpus
//! TFLite model the host runner has kernels for runs on the inputs the TFLite Micro
//! interpreter was given (`build-support/testdata/tflm-reference/`, see
//! `scripts/make_tflm_reference.py`), invocation after invocation, and every output byte is
//! the interpreter's. The TFLite kernels are CMSIS-NN's (built with `CMSIS_NN_PATH`, as CI
//! builds them).

#[path = "../../tests/common/corpus.rs"]
mod corpus;
#[path = "../../tests/common/npy.rs"]
mod npy;

#[path = "support/tflm_runner.rs"]
mod tflm_runner;
// The corpus helpers' skip, which tflm_runner uses too.
use corpus::skip;

use std::path::{Path, PathBuf};

use arenaplan_build::KernelVariants;
use tflm_runner::{have_tflite_kernels, Ran};

fn reference(stem: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../build-support/testdata/tflm-reference")
        .join(stem)
}

/// The shared runner on `model` and its folder of `tflm-reference/`.
fn matches_tflm(model: &Path, variants: KernelVariants) -> Result<Ran, String> {
    let stem = model.file_stem().unwrap().to_string_lossy().into_owned();
    tflm_runner::matches_tflm(&stem, model, &reference(&stem), variants)
}

#[test]
fn tflite_models_on_the_cpu_kernels_give_tflms_output_bytes() {
    // The corpus's models, when it is beside the repository, and TensorFlow-exported fixtures of
    // the operators the corpus does not use (scripts/make_tflite_op_fixtures.py).
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build-support/testdata/tflite-ops");
    let mut models = corpus::files(&fixtures, "tflite");
    let corpus = corpus::corpus();
    if let Some(corpus) = &corpus {
        models.extend(corpus::files(&corpus.join("tflite"), "tflite"));
    }
    // The TFLite kernels need CMSIS-NN: CI builds them, so there their absence is a failure.
    if !have_tflite_kernels() {
        return;
    }
    // The emulated NPU is one per process: one test runs every model in turn.
    let mut ran = Vec::new();
    let mut not_yet = Vec::new();
    let mut state_mattered = Vec::new();
    // The models where the default ran some convolution without its scratch.
    let mut both_variants = Vec::new();
    for model in models {
        let stem = model.file_stem().unwrap().to_string_lossy().into_owned();
        match matches_tflm(&model, KernelVariants::FitArena) {
            Ok(r) => {
                if r.state_mattered {
                    state_mattered.push(stem.clone());
                }
                // And with every kernel's fast variant, its scratch planned: the same bytes.
                let fastest = matches_tflm(&model, KernelVariants::Fastest).unwrap();
                if fastest.with_scratch > r.with_scratch {
                    both_variants.push(stem.clone());
                }
                ran.push(stem)
            }
            Err(why) if why.starts_with("not yet: ") => not_yet.push(stem),
            Err(why) => panic!("{stem}: {why}"),
        }
    }
    eprintln!("bit-exact with TFLM: {ran:?}; not yet (operators without kernels): {not_yet:?}");
    // The later invocations' bytes prove the state is kept only where a fresh state would have
    // given others: so for trained_lstm_int8 (micro_speech_lstm's 49 steps wash the first state
    // out; the scrambled keyword models' outputs do not move).
    eprintln!("state carried into the last invocation changed its outputs: {state_mattered:?}");
    eprintln!("ran both ways, with and without a convolution's scratch: {both_variants:?}");
    // MAX_POOL_2D, PAD, MUL, CONCATENATION, float QUANTIZE and DEQUANTIZE, from TensorFlow.
    assert!(
        ran.iter().any(|m| m == "tf_int8_ops"),
        "the operator fixture did not run: {ran:?}"
    );
    // TRANSPOSE_CONV, MEAN, STRIDED_SLICE, MAXIMUM, MINIMUM and RELU, from TensorFlow; its
    // 3x3 convolution's im2col columns would grow the host's arena, so it ran direct (and, with
    // KernelVariants::Fastest, on CMSIS-NN's im2col kernel).
    assert!(
        ran.iter().any(|m| m == "tf_int8_ops2"),
        "the second operator fixture did not run: {ran:?}"
    );
    // The 16x8 kernels: CONV_2D, DEPTHWISE_CONV_2D, ADD, MUL, the poolings, FULLY_CONNECTED.
    assert!(
        ran.iter().any(|m| m == "tf_int16_ops"),
        "the 16x8 fixture did not run: {ran:?}"
    );
    assert!(
        both_variants.iter().any(|m| m == "tf_int8_ops2"),
        "no model ran a convolution without scratch: {both_variants:?}"
    );
    if corpus.is_none() {
        return;
    }
    assert!(
        state_mattered
            .iter()
            .any(|m| m == "tflm__trained_lstm_int8"),
        "the LSTM's state made no difference: {state_mattered:?}"
    );
    // The models whose operators have kernels: FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D,
    // AVERAGE_POOL_2D, ADD, SOFTMAX, RESHAPE, QUANTIZE, SVDF and UNIDIRECTIONAL_SEQUENCE_LSTM
    // (with their state).
    for needed in [
        "tflm__hello_world_int8",
        "mlperftiny__ad01_int8",
        "tflm__micro_speech_quantized",
        "mlperftiny__kws_ref_model",
        "mlperftiny__str_ww_ref_model",
        "mlperftiny__pretrainedResnet_quant",
        "mlperftiny__pretrainedResnet_large_int8",
        "tflm__person_detect",
        "tflm__keyword_scrambled",
        "tflm__keyword_scrambled_8bit",
        "tflm__micro_speech_lstm",
        "tflm__trained_lstm_int8",
    ] {
        assert!(
            ran.iter().any(|m| m == needed),
            "{needed} did not run: {ran:?}"
        );
    }
}
