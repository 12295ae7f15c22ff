//! Which variant a CPU kernel runs, where it has a scratch-free one (`KernelVariants`): the
//! fast one wherever its scratch fits in memory the plan needs anyway, the scratch-free one
//! where the scratch would make the arena larger. One test per rule, on a model TensorFlow's
//! converter exported (`testdata/tflite-ops/`) and, beside the repository, the corpus's.

mod common;

use std::path::{Path, PathBuf};

use arenaplan_build::model::{Instruction, Isa};
use arenaplan_build::pipeline::{KernelVariants, ModelPlan};
use arenaplan_build::Build;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("testdata/tflite-ops/{name}.tflite"))
}

/// The plan of `model` for corstone-300 with `isa`'s kernels and `variants`, and how many of
/// its calls have kernel scratch.
fn plan(model: &Path, isa: Isa, variants: KernelVariants) -> (ModelPlan, usize) {
    let rendered = Build::new()
        .model(model)
        .target("corstone-300")
        .kernel_isa(isa)
        .kernel_variants(variants)
        .sources(Vec::<PathBuf>::new())
        .try_render()
        .unwrap();
    let with_scratch = rendered
        .program
        .flat_instructions()
        .into_iter()
        .filter(|(_, i)| matches!(i, Instruction::Kernel(k) if !k.scratch.is_empty()))
        .count();
    (rendered.plan, with_scratch)
}

fn bytes(plan: &ModelPlan) -> u64 {
    plan.pools.iter().map(|p| p.size).sum()
}

#[test]
fn a_scratch_that_fits_beside_the_tensors_stays() {
    // The fixture's convolutions' buffers fit where no large tensor is alive.
    for isa in [Isa::Plain, Isa::Dsp, Isa::Mve] {
        let (fit, fit_calls) = plan(&fixture("tf_int8_ops"), isa, KernelVariants::FitArena);
        let (fast, fast_calls) = plan(&fixture("tf_int8_ops"), isa, KernelVariants::Fastest);
        assert!(fast_calls > 0, "{isa:?}: no kernel scratch to keep");
        assert_eq!(
            (bytes(&fit), fit_calls),
            (bytes(&fast), fast_calls),
            "{isa:?}"
        );
    }
}

#[test]
fn a_scratch_that_would_grow_the_arena_is_dropped_and_fastest_keeps_it() {
    // The second fixture's 3x3 convolution runs between its two largest tensors.
    let model = fixture("tf_int8_ops2");
    let (fit, fit_calls) = plan(&model, Isa::Plain, KernelVariants::FitArena);
    let (fast, fast_calls) = plan(&model, Isa::Plain, KernelVariants::Fastest);
    assert!(
        bytes(&fit) < bytes(&fast),
        "{} B, fastest {} B",
        bytes(&fit),
        bytes(&fast)
    );
    assert!(
        fit_calls < fast_calls,
        "{fit_calls} calls with scratch, fastest {fast_calls}"
    );
    let Some(corpus) = common::corpus() else {
        return;
    };
    // The keyword model's depthwise buffers on Helium, the ResNet's im2col columns in plain C:
    // each alive with the largest tensors.
    for (stem, isa) in [
        ("mlperftiny__kws_ref_model", Isa::Mve),
        ("mlperftiny__pretrainedResnet_quant", Isa::Plain),
    ] {
        let model = corpus.join("tflite").join(format!("{stem}.tflite"));
        let (fit, fit_calls) = plan(&model, isa, KernelVariants::FitArena);
        let (fast, fast_calls) = plan(&model, isa, KernelVariants::Fastest);
        assert!(
            bytes(&fit) < bytes(&fast),
            "{stem}: {} B, fastest {} B",
            bytes(&fit),
            bytes(&fast)
        );
        assert!(
            fit_calls < fast_calls,
            "{stem}: {fit_calls} calls with scratch, fastest {fast_calls}"
        );
    }
}
