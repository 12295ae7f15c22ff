//! Vela-compiled models on the emulated Ethos-U55 and Ethos-U85 against the reference runtime:
//! every model of `../shared/corpus/vela/u55-128-shared-sram` (and `u85-256-dedicated-sram`)
//! runs through the C runtime, the Ethos-U backend, the driver (Arm's, with
//! `ETHOS_U_CORE_DRIVER_PATH`) and the functional NPU model (`runtime-c/emulation/ethosu_model/`), the operators Vela left on the CPU on CMSIS-NN, on the
//! inputs TFLite Micro was given for the *uncompiled* model (`testdata/tflm-reference/`), and
//! every output of every invocation is TFLM's, byte for byte, with the state carried from one
//! invocation to the next (the LSTMs'): with the I/O at its slots in the scratch and apart.
//!
//! And the same comparison catches what a region check cannot: a blob whose input record
//! points elsewhere in the scratch, and state the NPU updates in place but nobody copies back.

#[path = "../../tests/common/corpus.rs"]
mod corpus;
#[path = "../../tests/common/npy.rs"]
mod npy;

#[path = "support/tflm_runner.rs"]
mod tflm_runner;
// The corpus helpers' skip, which tflm_runner uses too.
use corpus::skip;

use std::path::{Path, PathBuf};

use arenaplan_build::backends::{IoRecord, VelaBinStream};
use arenaplan_build::model::Isa;
use arenaplan_build::targets::Catalogue;
use arenaplan_build::{Build, KernelVariants};
use tflm_runner::{compare, have_tflite_kernels, matches_tflm_on};

const U55: &str = "u55-128-shared-sram";
const U85: &str = "u85-256-dedicated-sram";

#[test]
fn the_corpus_s_executorch_ethos_u_programs_give_tflms_outputs() {
    // ExecuTorch programs around Vela's compilation of two corpus models (the corpus's
    // pte-delegated/, packed as ExecuTorch's Arm backend packs Vela's output): their NPU call
    // computes what TFLM computes on the uncompiled model.
    let Some(corpus) = corpus::corpus() else {
        return;
    };
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    for (program, model) in [
        ("ethosu_u55_kws_ref", "mlperftiny__kws_ref_model"),
        ("ethosu_u55_kws_ref_inline", "mlperftiny__kws_ref_model"),
        ("ethosu_u55_person_detect", "tflm__person_detect"),
    ] {
        let rendered = Build::new()
            .model(corpus.join("pte-delegated").join(format!("{program}.pte")))
            .target("corstone-300")
            .sources(Vec::<PathBuf>::new())
            .try_render()
            .unwrap();
        compare(
            program,
            &rendered.program,
            &rendered.plan,
            &reference(model),
            target,
        )
        .unwrap_or_else(|why| panic!("{why}"));
    }
}

#[test]
fn earlier_vela_releases_give_tflms_outputs_in_vela_s_arena() {
    // The fixture's convolution as Vela 2.0.1 to 4.0.1 compiled it (scripts/make_vela_releases.py):
    // their streams compute TFLM's bytes, and their `scratch_fast` tensor, which the offline
    // plan puts at the scratch's place with its size (Shared_Sram: one memory), gets no memory
    // of its own: the arena is Vela's, cache-line rounding aside.
    let folder =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build-support/testdata/vela-releases");
    let catalogue = Catalogue::builtin();
    let mut checked = 0;
    for model in corpus::files(&folder, "tflite") {
        let name = model.file_stem().unwrap().to_string_lossy().into_owned();
        if name.contains("_vela_1.") {
            continue; // refused at build time (vela_releases.rs)
        }
        matches_tflm_on(
            &name,
            &model,
            &reference("fixture_conv"),
            KernelVariants::FitArena,
            &catalogue,
            "corstone-300",
            true,
        )
        .unwrap_or_else(|why| panic!("{name}: {why}"));
        let rendered = Build::new()
            .model(&model)
            .target("corstone-300")
            .sources(Vec::<PathBuf>::new())
            .try_render()
            .unwrap();
        // Vela's arena: the end of the last tensor its offline plan places.
        let plan = rendered.program.source_plan.as_ref().unwrap();
        let vela = (plan.offsets.iter().enumerate())
            .filter_map(|(v, o)| o.map(|(_, at)| at + rendered.program.values[v].bytes))
            .max()
            .unwrap();
        let ours: u64 = rendered.plan.pools.iter().map(|p| p.size).sum();
        assert!(
            ours <= vela.next_multiple_of(32),
            "{name}: {ours} B against Vela's {vela} B"
        );
        checked += 1;
    }
    assert!(checked >= 5, "{checked}");
}

#[derive(serde::Deserialize)]
struct Compiled {
    file: String,
    reference: String,
    target: String,
}

#[derive(serde::Deserialize)]
struct Manifest {
    models: Vec<Compiled>,
}

#[test]
fn every_npu_configuration_and_memory_mode_runs_on_the_npu_its_target_names() {
    // scripts/make_vela_op_fixtures.py: TensorFlow's operator models and the fixtures' through
    // Vela for the U55-32, -64, -128 and -256 (Shared_Sram), the U55-128 in Sram_Only, the
    // U85-128 and -256 (Dedicated_Sram) and the U85-256 in Shared_Sram; each target of the
    // folder's catalogue names that NPU, which the host then emulates.
    let folder =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build-support/testdata/vela-ops");
    let manifest: Manifest =
        serde_json::from_str(&std::fs::read_to_string(folder.join("manifest.json")).unwrap())
            .unwrap();
    let catalogue = Catalogue::load(&folder.join("targets.toml")).unwrap();
    assert_eq!(manifest.models.len(), 66);
    for m in &manifest.models {
        let reference = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../build-support/testdata/tflm-reference")
            .join(&m.reference);
        matches_tflm_on(
            &m.file,
            &folder.join(&m.file),
            &reference,
            KernelVariants::FitArena,
            &catalogue,
            &m.target,
            true,
        )
        .unwrap_or_else(|why| panic!("{}: {why}", m.file));
    }
    // A stream for the U55-256 on the U55-128 of corstone-300: refused at build time, naming
    // both NPUs, before anything runs.
    let wrong = match Build::new()
        .catalogue(catalogue.clone())
        .model(folder.join("fixture_conv__ethos-u55-256__Shared_Sram.tflite"))
        .target("corstone-300")
        .sources(Vec::<PathBuf>::new())
        .try_render()
    {
        Ok(_) => panic!("a U55-256 stream planned for a U55-128 target"),
        Err(e) => e.to_string(),
    };
    assert!(wrong.contains("256 MACs"), "{wrong}");
}

/// The TFLM reference of a Vela model: its uncompiled model's (`NAME_vela`, the corpus's
/// naming, and `NAME_vela_u55`, the fixtures').
fn reference(stem: &str) -> PathBuf {
    let uncompiled = stem.trim_end_matches("_u55").trim_end_matches("_vela");
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../build-support/testdata/tflm-reference")
        .join(uncompiled)
}

#[test]
fn the_repository_s_vela_fixtures_give_tflms_outputs_on_the_emulated_npu() {
    // scripts/make_fixtures.py's convolution and pooling through Vela 5.2.0 for the U55.
    let fixtures =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../build-support/testdata/fixtures");
    let models: Vec<PathBuf> = corpus::files(&fixtures, "tflite")
        .into_iter()
        .filter(|m| m.to_string_lossy().ends_with("_vela_u55.tflite"))
        .collect();
    assert_eq!(models.len(), 2, "{models:?}");
    for model in models {
        let stem = model.file_stem().unwrap().to_string_lossy().into_owned();
        for io_in_scratch in [true, false] {
            matches_tflm_on(
                &stem,
                &model,
                &reference(&stem),
                KernelVariants::FitArena,
                &Catalogue::builtin(),
                "corstone-300",
                io_in_scratch,
            )
            .unwrap();
        }
    }
}

fn vela_model(corpus: &Path, stem: &str) -> PathBuf {
    corpus
        .join("vela")
        .join(U55)
        .join(format!("{stem}_vela.tflite"))
}

#[test]
fn every_u55_vela_model_gives_tflms_outputs_on_the_emulated_npu() {
    corpus_gives_tflms_outputs(U55, "corstone-300");
}

/// The Ethos-U85 models of the corpus (Dedicated_Sram: the scratch in region 1, the fast
/// scratch in region 2) on `corstone-320`'s emulated Ethos-U85-256, against the same TFLM
/// references.
#[test]
fn every_u85_vela_model_gives_tflms_outputs() {
    corpus_gives_tflms_outputs(U85, "corstone-320");
}

/// Every Vela model of the corpus's folder `config` on `target`'s emulated NPU: TFLM's bytes,
/// state carried, with the I/O at its slots and apart.
fn corpus_gives_tflms_outputs(config: &str, target: &str) {
    let Some(corpus) = corpus::corpus() else {
        return;
    };
    let cpu_kernels = have_tflite_kernels();
    let mut ran = Vec::new();
    let mut not_yet = Vec::new();
    let mut state_mattered = Vec::new();
    for model in corpus::files(&corpus.join("vela").join(config), "tflite") {
        let stem = model.file_stem().unwrap().to_string_lossy().into_owned();
        let folder = reference(&stem);
        let mut outcome = Vec::new();
        for io_in_scratch in [true, false] {
            outcome.push(matches_tflm_on(
                &stem,
                &model,
                &folder,
                KernelVariants::FitArena,
                &Catalogue::builtin(),
                target,
                io_in_scratch,
            ));
        }
        match &outcome[0] {
            Ok(r) => {
                assert!(
                    outcome[1].is_ok(),
                    "{stem}: {:?}",
                    outcome[1].as_ref().err()
                );
                if r.state_mattered {
                    state_mattered.push(stem.clone());
                }
                ran.push(stem);
            }
            Err(why) if why.starts_with("not yet: ") => not_yet.push(stem),
            Err(why) => panic!("{stem}: {why}"),
        }
    }
    eprintln!("{config}: bit-exact with TFLM: {ran:?}; not yet: {not_yet:?}");
    // Without CMSIS-NN the models with CPU operators between NPU calls (the keyword models'
    // SVDFs, the audio preprocessor's signal operators) cannot run.
    assert_eq!(ran.len() + not_yet.len(), 13, "{ran:?} {not_yet:?}");
    assert!(
        ran.len() >= if cpu_kernels { 13 } else { 10 },
        "{not_yet:?}"
    );
    // The LSTM's later invocations depend on the state the NPU kept in the scratch.
    assert!(
        state_mattered
            .iter()
            .any(|m| m == "tflm__trained_lstm_int8_vela"),
        "{state_mattered:?}"
    );
}

/// trained_lstm_int8 planned with its I/O apart from the scratch (so every copy is the
/// backend's), after `plant` changed its blob's records.
fn planted(corpus: &Path, plant: impl Fn(&mut Vec<u8>, &VelaBinStream)) -> Result<(), String> {
    let stem = "tflm__trained_lstm_int8";
    let mut rendered = Build::new()
        .model(vela_model(corpus, stem))
        .target("corstone-300")
        .kernel_isa(Isa::Plain)
        .io_in_scratch(false)
        .sources(Vec::<PathBuf>::new())
        .try_render()
        .unwrap();
    let blob = rendered.program.delegates[0].blob.as_mut().unwrap();
    let stream = VelaBinStream::parse(blob).unwrap();
    plant(blob, &stream);
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    compare(
        stem,
        &rendered.program,
        &rendered.plan,
        &reference(stem),
        target,
    )
    .map(|_| ())
}

/// Rewrites the region and offset words of the blob's record `record` (found by its bytes).
fn rewrite(blob: &mut [u8], record: &IoRecord, offset: u32, region: u32) {
    let bytes: Vec<u8> = record
        .shape
        .iter()
        .chain([&record.elem_size, &record.offset, &record.region])
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let at = blob
        .windows(bytes.len())
        .position(|w| w == bytes)
        .expect("the record's bytes");
    blob[at + 28..at + 32].copy_from_slice(&offset.to_le_bytes());
    blob[at + 32..at + 36].copy_from_slice(&region.to_le_bytes());
}

#[test]
fn a_planted_slot_or_a_lost_state_shows_in_the_outputs() {
    let Some(corpus) = corpus::corpus() else {
        return;
    };
    // As compiled: TFLM's outputs, the state copied in and out around each job.
    planted(&corpus, |_, _| {}).unwrap();
    // The input copied 16 bytes past where the command stream reads it: wrong values, though
    // every copy stays inside the scratch (the first invocation's outputs saturate, so a later
    // one shows it).
    let wrong = planted(&corpus, |blob, stream| {
        let input = &stream.inputs[0];
        rewrite(blob, input, input.offset + 16, input.region);
    })
    .unwrap_err();
    assert!(wrong.contains("differs from TFLM's"), "{wrong}");
    // The state's record without its in-place flag: the backend no longer copies the old
    // state in, so the first invocation is right and the next start from whatever the scratch
    // held.
    let lost = planted(&corpus, |blob, stream| {
        let state = stream
            .outputs
            .iter()
            .find(|r| r.region & IoRecord::STATE_IN_PLACE != 0)
            .expect("a state record");
        rewrite(blob, state, state.offset, 1);
    })
    .unwrap_err();
    assert!(lost.contains("invocation 1"), "{lost}");
}
