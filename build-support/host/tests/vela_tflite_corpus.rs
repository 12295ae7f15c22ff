//! Every Vela-compiled TFLite model of `../shared/corpus/vela` on the C runtime: imported (the
//! `ethos-u` operator becomes a bin stream built from its constants and Vela's offsets), planned
//! for its Corstone target and run end to end: the NPU's calls through the Ethos-U backend and
//! the driver (Arm's, when `ETHOS_U_CORE_DRIVER_PATH` is set) on the emulated NPU, the operators
//! Vela left on the CPU on the CMSIS-NN kernels, state kept; the same outputs with the I/O at
//! its slots in the scratch and apart. The outputs are compared with TFLM's in `vela_tflm.rs`;
//! here, any inputs: deterministic, input-dependent, and the same whichever way the I/O is
//! placed.

#[path = "../../tests/common/corpus.rs"]
mod corpus;
mod support;

use support::vela_run::run;

/// The corpus's Ethos-U85 models the functional model refuses, and the command's reason.
const U85_REFUSED: &[(&str, &str)] = &[
    ("micro_speech_lstm", "interpolating LUT"),
    ("trained_lstm_int8", "interpolating LUT"),
    ("audio_preprocessor", "accumulator taken from IFM2"),
];

#[test]
fn every_vela_model_runs_or_is_refused_for_a_listed_reason() {
    let Some(corpus) = corpus::corpus() else {
        return;
    };
    // The emulated NPU and its driver are one per process: one test runs them all in turn.
    for (config, target) in [
        ("u55-128-shared-sram", "corstone-300"),
        ("u85-256-dedicated-sram", "corstone-320"),
    ] {
        let mut ran = Vec::new();
        let mut refused = Vec::new();
        for model in corpus::files(&corpus.join("vela").join(config), "tflite") {
            let name = model.file_stem().unwrap().to_string_lossy().into_owned();
            match run(&model, target, 3, true) {
                Ok(first) => {
                    // Deterministic: the same inputs give the same outputs.
                    assert_eq!(run(&model, target, 3, true).unwrap(), first, "{name}");
                    // The same as with every tensor apart, copied in and out.
                    assert_eq!(run(&model, target, 3, false).unwrap(), first, "{name}");
                    ran.push(name);
                }
                Err(why) => refused.push(format!("{name}: {why}")),
            }
        }
        eprintln!("{config}: ran {}, refused {refused:?}", ran.len());
        // The corpus's 13 models per configuration all run — the NPU's call alone, with the
        // LSTMs' state, or with CPU operators on the runtime's kernels (the keyword models'
        // SVDFs, the audio preprocessor's signal library) — which need CMSIS-NN; but for what
        // the Ethos-U85's model refuses by name (U85_REFUSED).
        let cpu_kernels = arenaplan::tflite_kernels().next().is_some();
        let expected = |r: &String| {
            (!cpu_kernels && (r.contains("audio_preprocessor") || r.contains("keyword_scrambled")))
                || (config.starts_with("u85")
                    && U85_REFUSED
                        .iter()
                        .any(|(m, why)| r.contains(m) && r.contains(why)))
        };
        assert!(
            refused.iter().all(expected),
            "{config}: unexpected refusals {refused:?}"
        );
        let u85_refused = if config.starts_with("u85") {
            U85_REFUSED.len()
        } else {
            0
        };
        assert!(
            ran.len()
                >= if cpu_kernels {
                    13 - u85_refused
                } else {
                    10 - u85_refused
                },
            "{config}: only {ran:?} ran; refused {refused:?}"
        );
    }
}
