//! `arenaplan run` as a user runs it: calls in order with state kept, outputs named by call
//! and method, and the exit-status contract — 5 with the reason for a program that cannot run
//! here (each missing operator named), 6 for a call that fails while running (the runtime's
//! status named), 2 for bad input (naming the file or call), 3 for an output that cannot be
//! written, nothing written then.

use std::path::{Path, PathBuf};

#[path = "../../tests/common/skip.rs"]
mod skip;
mod support;
use support::{npy, run, stderr, temp_dir};

/// A file of an exported fixture.
fn fixture(case: &str, file: &str) -> PathBuf {
    support::exported().join(case).join(file)
}

fn floats(path: &Path) -> Vec<f32> {
    let array = npy::parse(&std::fs::read(path).unwrap()).unwrap();
    array
        .data
        .chunks(4)
        .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

/// A call of `method` on `files`.
fn call(method: &str, files: &[&Path]) -> String {
    let files: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    format!("{method}:{}", files.join(","))
}

#[test]
fn calls_run_in_order_with_state_kept_and_outputs_named_by_call_and_method() {
    let out = temp_dir("counter");
    let program = fixture("state_counter_copy", "program.pte");
    let ones = fixture("state_counter_copy", "0-forward-in0.npy");
    // An empty method is the first; a call without files runs on zeros.
    let calls = ["".to_owned(), call("forward", &[&ones]), call("", &[&ones])];
    let result = run(&program, "corstone-300", &calls, &out);
    assert!(result.status.success(), "{}", stderr(&result));
    assert_eq!(floats(&out.join("0-forward-0.npy")), [0.0; 8]);
    assert_eq!(floats(&out.join("1-forward-0.npy")), [1.0; 8]);
    assert_eq!(floats(&out.join("2-forward-0.npy")), [2.0; 8]);
}

#[test]
fn a_program_with_an_operator_no_kernel_implements_exits_5_naming_it() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/models/two_npu_calls.toml");
    let out = temp_dir("missing");
    let result = run(&model, "corstone-300", &["".to_owned()], &out);
    assert_eq!(result.status.code(), Some(5), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("`app_max_pool`"),
        "{}",
        stderr(&result)
    );
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        0,
        "nothing written"
    );
}

#[test]
fn bad_input_exits_2_naming_the_call_or_the_file() {
    let out = temp_dir("bad");
    let program = fixture("state_counter_copy", "program.pte");
    let ones = fixture("state_counter_copy", "0-forward-in0.npy");
    let garbage = out.join("garbage.npy");
    std::fs::write(&garbage, b"not an array").unwrap();
    let int8 = out.join("int8.npy");
    let array = npy::Array {
        dtype: arenaplan_build::model::DType::Int8,
        shape: vec![8],
        data: vec![1; 8],
    };
    std::fs::write(&int8, npy::write(&array).unwrap()).unwrap();
    let cases: [(String, &str); 4] = [
        ("nope".into(), "no method `nope`"),
        (call("forward", &[&garbage]), "garbage.npy: not a .npy file"),
        (call("forward", &[&int8]), "int8.npy: input 0 is int8"),
        (
            call("forward", &[&ones, &ones]),
            "takes 1 input(s), 2 file(s) given",
        ),
    ];
    for (call, reason) in cases {
        let result = run(
            &program,
            "corstone-300",
            std::slice::from_ref(&call),
            &out.join("o"),
        );
        assert_eq!(result.status.code(), Some(2), "{call}: {}", stderr(&result));
        assert!(
            stderr(&result).contains(reason),
            "{call}: {}",
            stderr(&result)
        );
        assert!(!out.join("o").exists(), "{call}: nothing written");
    }
}

#[test]
fn an_output_folder_that_cannot_be_written_exits_3() {
    let dir = temp_dir("io");
    let file = dir.join("a-file");
    std::fs::write(&file, b"").unwrap();
    let program = fixture("state_counter_copy", "program.pte");
    // Below a file: the file system refuses.
    let below = file.join("out");
    let result = run(&program, "corstone-300", &["forward".to_owned()], &below);
    assert_eq!(result.status.code(), Some(3), "{}", stderr(&result));
    // A file where the folder goes: not an output folder, bad input, left as it was.
    let result = run(&program, "corstone-300", &["forward".to_owned()], &file);
    assert_eq!(result.status.code(), Some(2), "{}", stderr(&result));
    assert!(stderr(&result).contains("is a file"), "{}", stderr(&result));
    assert_eq!(std::fs::read(&file).unwrap(), b"");
}

/// A model of the corpus beside the repository, if it is there (else skipped, saying so).
fn corpus_tflite(stem: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/tflite")
        .join(format!("{stem}.tflite"));
    if !path.is_file() {
        skip::skip(&format!("no corpus model at {}", path.display()));
    }
    path.is_file().then_some(path)
}

#[test]
fn tflite_models_run_on_cmsis_nn_with_tflms_output_files() {
    if std::env::var_os("CMSIS_NN_PATH").is_none() {
        skip::skip("CMSIS_NN_PATH is unset (CMSIS-NN's sources)");
        return;
    }
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    // A corpus model on CMSIS-NN; the audio preprocessor's four calls, its noise estimate kept
    // from one to the next; the 16x8 fixture, which needs no corpus.
    let models = [
        (corpus_tflite("mlperftiny__kws_ref_model"), 2),
        (corpus_tflite("tflm__audio_preprocessor_int8"), 4),
        (Some(testdata.join("tflite-ops/tf_int16_ops.tflite")), 4),
    ];
    for (model, calls) in models {
        let Some(model) = model else {
            continue;
        };
        let stem = model.file_stem().unwrap().to_string_lossy().into_owned();
        let reference = testdata.join("tflm-reference").join(&stem);
        let out = temp_dir(&format!("tflite-{stem}"));
        let args: Vec<String> = (0..calls)
            .map(|k| call("", &[&reference.join(format!("{k}-in0.npy"))]))
            .collect();
        let result = run(&model, "corstone-300", &args, &out);
        assert!(result.status.success(), "{stem}: {}", stderr(&result));
        for k in 0..calls {
            // The whole file: TFLM's dtype and shape, and its bytes.
            let got = std::fs::read(out.join(format!("{k}-{stem}-0.npy"))).unwrap();
            let want = std::fs::read(reference.join(format!("{k}-out0.npy"))).unwrap();
            let (got, want) = (npy::parse(&got).unwrap(), npy::parse(&want).unwrap());
            assert_eq!(got.data, want.data, "{stem}: call {k}");
            assert_eq!(got.shape, want.shape, "{stem}: call {k}");
        }
    }
}

#[test]
fn a_tflite_model_with_an_operator_without_kernel_exits_5_naming_it() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/models/tflite_without_kernels.toml");
    let out = temp_dir("tflite-missing");
    let result = run(&model, "corstone-300", &["".to_owned()], &out);
    assert_eq!(result.status.code(), Some(5), "{}", stderr(&result));
    for op in ["builtin:28", "custom:MyFrontEnd"] {
        assert!(stderr(&result).contains(op), "{}", stderr(&result));
    }
}

#[test]
fn placeholder_outputs_are_marked_and_the_marker_goes_with_real_ones() {
    let out = temp_dir("placeholder");
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    // The emulated Neutron has no functional model (NXP's microcode is not public): its
    // outputs come with a marker and a warning naming the backend.
    let neutron = testdata.join("fixtures/neutron_v0_one_call_mcxn94x.pte");
    let result = run(&neutron, "mcxn947", &[String::new()], &out);
    assert!(result.status.success(), "{}", stderr(&result));
    let marker = out.join("PLACEHOLDER-OUTPUTS.txt");
    let text = std::fs::read_to_string(&marker).unwrap();
    assert!(
        text.contains("call 0 (`forward`)") && text.contains("NeutronBackend"),
        "{text}"
    );
    assert!(
        stderr(&result).contains("warning: call 0"),
        "{}",
        stderr(&result)
    );
    // The Ethos-U55 computes: the same folder's outputs are then real, and the marker goes.
    let u55 = testdata.join("fixtures/fixture_conv_vela_u55.tflite");
    let result = run(&u55, "corstone-300", &[String::new()], &out);
    assert!(result.status.success(), "{}", stderr(&result));
    assert!(!marker.exists());
    assert!(!stderr(&result).contains("warning"), "{}", stderr(&result));
}

#[test]
fn a_call_the_npu_refuses_while_running_exits_6_naming_the_status() {
    // A Vela stream whose command-stream version is one Arm's driver does not run: the build
    // has no reason to refuse it (the NPU's product and MACs are the target's), the driver
    // refuses the first job.
    let model = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/fixtures/fixture_conv_vela_u55.tflite");
    let mut bytes = std::fs::read(&model).unwrap();
    let at = bytes
        .windows(4)
        .position(|w| w == b"COP1")
        .expect("a command stream");
    let config = u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) | 0x10;
    bytes[at + 8..at + 12].copy_from_slice(&config.to_le_bytes());
    let out = temp_dir("call-fails");
    let edited = out.with_extension("tflite");
    std::fs::write(&edited, bytes).unwrap();
    let result = run(&edited, "corstone-300", &["".to_owned()], &out);
    assert_eq!(result.status.code(), Some(6), "{}", stderr(&result));
    assert!(
        stderr(&result).contains("AP_ERR_DRIVER") && stderr(&result).contains("cmd_stream_version"),
        "{}",
        stderr(&result)
    );
    assert!(!out.join("0-forward-0.npy").exists());
}

/// A 265-byte model with two 700 MB tensors took 2.7 GB to run: refused now before anything
/// is allocated, with the figure and the flag; allowed by the flag, it would run.
#[test]
fn a_run_that_would_take_more_memory_than_allowed_is_refused_up_front() {
    let dir = temp_dir("memory-limit");
    let targets = dir.join("targets.toml");
    std::fs::write(
        &targets,
        "schema_version = 1\n[[target]]\nname = \"big\"\ncpu = \"m55\"\nrust_target = \"t\"\ndefault_pool = \"ddr\"\n[[target.pool]]\nmem_id = 1\nname = \"ddr\"\ncapacity = 1610612736\nsection = \".arenaplan.ddr\"\nregion = \"DDR\"\n",
    )
    .unwrap();
    let model = dir.join("big.toml");
    std::fs::write(
        &model,
        "name = \"big\"\ninputs = [\"x\"]\noutputs = [\"y\"]\n[[tensor]]\nname = \"x\"\ndtype = \"int8\"\nshape = [700000000]\n[[tensor]]\nname = \"y\"\ndtype = \"int8\"\nshape = [700000000]\n[[instruction]]\nkind = \"kernel\"\nop = \"tflite:RESHAPE\"\ninputs = [\"x\"]\noutputs = [\"y\"]\n",
    )
    .unwrap();
    let out = dir.join("out");
    let result = std::process::Command::new(env!("CARGO_BIN_EXE_arenaplan"))
        .args(["run", "--target", "big", "--call", "", "--targets"])
        .arg(&targets)
        .arg("--model")
        .arg(&model)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let text = stderr(&result);
    assert_eq!(result.status.code(), Some(5), "{text}");
    assert!(
        text.contains("this run needs 3338 MiB (1336 MiB of arenas, 2003 MiB for its largest call's inputs and outputs), over the limit of 1024 MiB; raise it with --memory-limit-mib 3338"),
        "{text}"
    );
    assert!(!out.exists(), "nothing written");
}

/// Outputs are written as calls end and made durable once for the set: many calls cost
/// what one costs, times their number (10,000 calls once took a minute, an fsync a file).
#[test]
fn many_calls_write_one_set_of_their_outputs() {
    let out = temp_dir("many-calls");
    let program = fixture("state_counter_copy", "program.pte");
    let ones = fixture("state_counter_copy", "0-forward-in0.npy");
    let calls = vec![call("forward", &[&ones]); 2000];
    let result = run(&program, "corstone-300", &calls, &out);
    assert!(result.status.success(), "{}", stderr(&result));
    assert_eq!(std::fs::read_dir(&out).unwrap().count(), 2000);
    assert_eq!(floats(&out.join("1999-forward-0.npy")), [2000.0; 8]);
}

/// A TOML model's TFLite convolution: a 64x64 input, a 1x1 filter, and an output of
/// `out_h` x `out_w` that its parameters claim too.
fn conv_model(out_h: i32, out_w: i32) -> String {
    let words = [
        0,
        0,
        1,
        1,
        1,
        0,
        0,
        1,
        1,
        -128,
        127,
        1,
        64,
        64,
        1,
        1,
        1,
        out_h,
        out_w,
        1,
        1 << 30,
        1,
    ];
    let bytes: Vec<String> = words
        .iter()
        .flat_map(|w: &i32| w.to_le_bytes())
        .map(|b| b.to_string())
        .collect();
    format!(
        "name = \"conv\"\ninputs = [\"x\"]\noutputs = [\"y\"]\n\
         [[tensor]]\nname = \"x\"\ndtype = \"int8\"\nshape = [1, 64, 64, 1]\n\
         [[tensor]]\nname = \"w\"\ndtype = \"int8\"\nshape = [1, 1, 1, 1]\nconstant = true\ndata = [1]\n\
         [[tensor]]\nname = \"b\"\ndtype = \"int32\"\nshape = [1]\nconstant = true\ndata = [0, 0, 0, 0]\n\
         [[tensor]]\nname = \"p\"\ndtype = \"int32\"\nshape = [{}]\nconstant = true\ndata = [{}]\n\
         [[tensor]]\nname = \"y\"\ndtype = \"int8\"\nshape = [1, {out_h}, {out_w}, 1]\n\
         [[instruction]]\nkind = \"kernel\"\nop = \"tflite:CONV_2D\"\ninputs = [\"x\", \"w\", \"b\", \"p\"]\noutputs = [\"y\"]\n",
        words.len(),
        bytes.join(", ")
    )
}

/// The fault sweep's convolution: a 1x1 output of a 64x64 input through CMSIS-NN's 1x1
/// kernel wrote 16 KB into 4 bytes. Refused now before anything runs (exit 2), naming the
/// operator and the dimension; the output TFLite derives runs.
#[test]
fn a_convolution_whose_output_does_not_follow_is_refused_at_plan_time() {
    let dir = temp_dir("conv-params");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, conv_model(1, 64)).unwrap();
    let out = dir.join("out");
    let result = run(&bad, "corstone-300", &[String::new()], &out);
    let text = stderr(&result);
    assert_eq!(result.status.code(), Some(2), "{text}");
    assert!(
        text.contains("`tflite:CONV_2D`: height: an output of 1 with padding 0 does not follow from an input of 64"),
        "{text}"
    );
    assert!(!out.exists());
    let good = dir.join("good.toml");
    std::fs::write(&good, conv_model(64, 64)).unwrap();
    let result = run(&good, "corstone-300", &[String::new()], &out);
    assert!(result.status.success(), "{}", stderr(&result));
}
