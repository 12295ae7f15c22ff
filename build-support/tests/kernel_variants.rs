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

/// The report of `model` planned with `variants` (plain C), and its calls that keep their
/// library scratch and those that run without it.
fn report(model: &Path, variants: KernelVariants) -> (String, usize, usize) {
    let rendered = Build::new()
        .model(model)
        .target("corstone-300")
        .kernel_isa(Isa::Plain)
        .kernel_variants(variants)
        .sources(Vec::<PathBuf>::new())
        .try_render()
        .unwrap();
    let text = common::text(&rendered.files, &format!("{}.report.txt", rendered.name)).to_owned();
    let calls = rendered.program.flat_instructions();
    let kernels = calls.iter().filter_map(|(_, i)| match i {
        Instruction::Kernel(k) => Some(k),
        _ => None,
    });
    let (mut fast, mut slow) = (0, 0);
    for k in kernels {
        fast += usize::from(k.scratch_need.as_ref().is_some_and(|n| n.optional));
        slow += usize::from(k.scratch_free.is_some());
    }
    (text, fast, slow)
}

#[test]
fn the_report_names_each_call_that_runs_the_scratch_free_variant() {
    let lines = |text: &str, what: &str| text.lines().filter(|l| l.contains(what)).count();
    // The second fixture's 3x3 convolution runs without its scratch; with `Fastest`, with it.
    let model = fixture("tf_int8_ops2");
    let (text, fast, slow) = report(&model, KernelVariants::FitArena);
    assert!(slow > 0, "no call runs the scratch-free variant");
    assert!(
        text.contains(&format!(
            "CPU kernel variants ({slow} of {} calls run the scratch-free variant",
            fast + slow
        )),
        "{text}"
    );
    assert_eq!(lines(&text, "): scratch-free; its "), slow, "{text}");
    assert_eq!(lines(&text, "): fast, "), fast, "{text}");
    // The plain-C function and the bytes the fast variant would have needed.
    assert!(
        text.contains("(arm_convolve_wrapper_s8_get_buffer_size): scratch-free; its "),
        "{text}"
    );
    let (text, fastest, none) = report(&model, KernelVariants::Fastest);
    assert_eq!((fastest, none), (fast + slow, 0));
    assert_eq!(lines(&text, "): fast, "), fastest, "{text}");
    assert!(text.contains(&format!("(0 of {fastest} calls")), "{text}");

    // The first fixture's convolutions all keep theirs.
    let (text, fast, slow) = report(&fixture("tf_int8_ops"), KernelVariants::FitArena);
    assert!(fast > 0 && slow == 0, "{fast} fast, {slow} scratch-free");
    assert_eq!(lines(&text, "): fast, "), fast, "{text}");
}
