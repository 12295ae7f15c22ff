//! TFLite models through the generated C, as firmware runs them: the build's tables and
//! constants (the kernels' parameters in flash), the runtime, its TFLite kernels and Arm's
//! CMSIS-NN (`CMSIS_NN_PATH`; CI sets it), compiled as a C integrator compiles them. Every
//! model of the corpus that runs on the kernels so far gives, invocation after invocation, the
//! output bytes the TFLite Micro interpreter gave (`testdata/tflm-reference/`).

mod common;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use arenaplan_build::model::Isa;
use arenaplan_build::{Build, Emit, Symbols};

/// `bytes` as a C initializer.
fn c_bytes(bytes: &[u8]) -> String {
    let mut s = String::new();
    for (i, b) in bytes.iter().enumerate() {
        let _ = write!(s, "{b}u,{}", if i % 24 == 23 { "\n" } else { "" });
    }
    if bytes.is_empty() {
        s.push('0');
    }
    s
}

/// A `main.c` that runs the model once per recorded invocation and compares its outputs with
/// TFLM's.
fn main_c(folder: &Path, inputs: usize, outputs: usize) -> String {
    let mut c = String::from("#include <stdio.h>\n#include <string.h>\n#include \"m.h\"\n");
    let mut runs = String::new();
    let invocations = common::npy::invocations(folder);
    assert!(invocations > 0, "no reference in {}", folder.display());
    // Each recorded array as a C array named after its file (`in0_1` is `0-in1.npy`).
    let mut array = |side: &str, k: usize, i: usize| {
        let (_, data) = common::npy::read(&folder.join(format!("{k}-{side}{i}.npy")));
        let _ = writeln!(
            c,
            "static const uint8_t {side}{k}_{i}[] = {{{}}};",
            c_bytes(&data)
        );
    };
    for k in 0..invocations {
        for i in 0..inputs {
            array("in", k, i);
            let _ = writeln!(
                runs,
                "    in = m_input({i}u, &size);\n    if (in == NULL || size != sizeof in{k}_{i}) return 2;\n    memcpy(in, in{k}_{i}, size);"
            );
        }
        let _ = writeln!(runs, "    if (m_run() != AP_OK) return 3;");
        for o in 0..outputs {
            array("out", k, o);
            let _ = writeln!(
                runs,
                "    out = m_output({o}u, &size);\n    if (out == NULL || size != sizeof out{k}_{o} || memcmp(out, out{k}_{o}, size) != 0) {{ printf(\"invocation {k}, output {o} differs\\n\"); return 4; }}"
            );
        }
    }
    let _ = write!(
        c,
        "int main(void) {{\n    uint32_t size = 0;\n    uint8_t *in;\n    const uint8_t *out;\n    if (m_init() != AP_OK) return 1;\n{runs}    m_deinit();\n    printf(\"ok {invocations}\\n\");\n    return 0;\n}}\n"
    );
    c
}

/// A corpus model, or one of the TensorFlow-exported fixtures in `testdata/tflite-ops/`.
fn model_path(corpus: &Path, stem: &str) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/tflite-ops")
        .join(format!("{stem}.tflite"));
    if fixture.is_file() {
        fixture
    } else {
        corpus.join("tflite").join(format!("{stem}.tflite"))
    }
}

#[test]
fn tflite_models_through_the_generated_c_give_tflms_output_bytes() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let Some(nn) = std::env::var_os("CMSIS_NN_PATH").map(PathBuf::from) else {
        common::skip("CMSIS_NN_PATH is unset (CMSIS-NN's sources)");
        return;
    };
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c");
    let list =
        std::fs::read_to_string(runtime.join("kernels/tflite/cmsis-nn-sources.txt")).unwrap();
    let cmsis: Vec<PathBuf> = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| nn.join(l))
        .collect();
    let mut c_only = Emit::NONE;
    c_only.c = true;
    for stem in [
        "tflm__hello_world_int8",
        "mlperftiny__ad01_int8",
        "tflm__micro_speech_quantized",
        "mlperftiny__kws_ref_model",
        "mlperftiny__pretrainedResnet_quant",
        // SVDF's and the LSTM's state, kept by the generated C between invocations.
        "tflm__keyword_scrambled",
        "tflm__trained_lstm_int8",
        // MAX_POOL_2D, PAD, MUL, CONCATENATION, float QUANTIZE and DEQUANTIZE.
        "tf_int8_ops",
        // TRANSPOSE_CONV, MEAN, STRIDED_SLICE, MAXIMUM, MINIMUM, RELU; a convolution run direct.
        "tf_int8_ops2",
        // The 16x8 kernels.
        "tf_int16_ops",
        // TFLM's signal library, CAST, STRIDED_SLICE and int32 arithmetic; the noise estimate's
        // state.
        "tflm__audio_preprocessor_int8",
    ] {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("tflite-c-{stem}"));
        let _ = std::fs::remove_dir_all(&dir);
        let generated = Build::new()
            .model(model_path(&corpus, stem))
            .target("corstone-300")
            // Run here, so the host's plain-C CMSIS-NN: its scratch, not Helium's.
            .kernel_isa(Isa::Plain)
            .name("m")
            .sources(Vec::<PathBuf>::new())
            .symbols(Symbols::C)
            .emit(c_only)
            .out_dir(&dir)
            .cargo_metadata(false)
            .try_compile()
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/tflm-reference")
            .join(stem);
        let main = main_c(
            &folder,
            generated.program.inputs.len(),
            generated.program.outputs.len(),
        );
        let printed = common::run_generated_c_on(
            &generated.dir,
            &["m.c", "m_program.c"],
            &main,
            &common::tflite_kernel_sources()
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            &cmsis,
            &[nn.join("Include")],
        );
        let invocations = common::npy::invocations(&folder);
        assert_eq!(
            printed.trim(),
            format!("ok {invocations}"),
            "{stem}: {printed}"
        );
    }
}
