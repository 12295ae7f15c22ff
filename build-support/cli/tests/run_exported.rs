//! `arenaplan run` on the programs the real exporters made (`scripts/export_fixtures.py`:
//! ExecuTorch 1.5.1, torch 2.14.1, Vela 5.2.0), each call's outputs compared with the
//! reference its manifest names (ExecuTorch's own runtime for CPU programs). Every case either
//! runs with the reference outputs, or is listed in [`NOT_YET`] with the reason `run` gives:
//! a case that starts to run, or fails for another reason, fails this test until the list says
//! so. A program ExecuTorch's own runtime refuses to load (`"reference":
//! "executorch.runtime-refuses"`) must be refused here too, with exit 5, naming the operators
//! its manifest lists.

use std::path::Path;

mod support;
use support::npy;

/// Cases refused today, with a part of the reason `arenaplan run` gives.
const NOT_YET: &[(&str, &str)] = &[];

/// Cases whose float outputs may differ from the reference by a few units in the last place,
/// with the most allowed and why. Every other case must match bit for bit.
///
/// ExecuTorch's Python runtime (the reference) registers its optimized CPU kernels
/// (`libexecutorch_kernels_optimized`) where they exist; arenaplan runs the portable kernels,
/// as ExecuTorch's own Cortex-M builds do. The two agree bit for bit on every operator of these
/// fixtures but `aten::gelu.out` (the optimized one evaluates erf vectorized) and
/// `aten::bmm.out` (a BLAS product, summed in another order): measured one operator at a time,
/// gelu within 1 ulp, bmm within 3e-5 absolute.
const TOLERANCE: &[(&str, u32, &str)] = &[
    (
        "mlp_layernorm_gelu_softmax",
        1,
        "the reference's aten::gelu.out is ExecuTorch's optimized kernel",
    ),
    (
        "transformer_encoder",
        16,
        "the reference's aten::bmm.out is ExecuTorch's optimized (BLAS) kernel",
    ),
];

/// Outputs whose values cannot be checked here, with why: only their type and size are. A
/// case's every other output is checked.
const UNCHECKED: &[(&str, &str, &str)] = &[
    // `forward`'s own copy of the state has no initial contents; ExecuTorch's Python runtime
    // gives every method one set of arenas, so the reference reads what `set` left there.
    // arenaplan gives each method's state its own memory, zeroed.
    (
        "state_unshared_three_methods",
        "2-forward-0",
        "the reference reads another method's memory",
    ),
    (
        "state_unshared_three_methods",
        "3-forward-0",
        "the reference reads another method's memory",
    ),
];

/// Units in the last place between two floats of one width (as ordered integers).
fn ulps(a: f64, b: f64, single: bool) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    let key = |x: f64| -> i64 {
        let bits = if single {
            i64::from((x as f32).to_bits() as i32)
        } else {
            x.to_bits() as i64
        };
        if bits < 0 {
            i64::MIN - bits
        } else {
            bits
        }
    };
    key(a).abs_diff(key(b))
}

/// Compares one output with its reference; a message when they differ.
fn compare(got: &npy::Array, want: &npy::Array, max_ulps: u32) -> Option<String> {
    let numel = |a: &npy::Array| a.shape.iter().product::<u64>();
    if got.dtype != want.dtype || numel(got) != numel(want) {
        return Some(format!(
            "{} {:?} where the reference is {} {:?}",
            got.dtype.name(),
            got.shape,
            want.dtype.name(),
            want.shape
        ));
    }
    let single = want.dtype == arenaplan_build::model::DType::Float32;
    if !single && want.dtype != arenaplan_build::model::DType::Float64 {
        return (got.data != want.data).then(|| "the integers differ".to_owned());
    }
    let width = if single { 4 } else { 8 };
    let value = |b: &[u8]| -> f64 {
        if single {
            f64::from(f32::from_le_bytes(b.try_into().unwrap()))
        } else {
            f64::from_le_bytes(b.try_into().unwrap())
        }
    };
    let worst = got
        .data
        .chunks(width)
        .zip(want.data.chunks(width))
        .enumerate()
        .map(|(i, (g, w))| (ulps(value(g), value(w), single), i, value(g), value(w)))
        .max_by_key(|d| d.0)?;
    (worst.0 > u64::from(max_ulps)).then(|| {
        format!(
            "element {} is {} where the reference is {} ({} ulps; {max_ulps} allowed)",
            worst.1, worst.2, worst.3, worst.0
        )
    })
}

#[test]
fn every_exported_program_runs_as_its_reference_or_is_listed() {
    let mut cases: Vec<String> = std::fs::read_dir(support::exported())
        .expect("build-support/testdata/exported")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("manifest.json").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 3,
        "the exported fixtures are missing: {cases:?}"
    );
    let mut problems = Vec::new();
    let mut ran = 0;
    for case in &cases {
        let dir = support::exported().join(case);
        let manifest: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
        let calls = manifest["calls"].as_array().expect("calls");
        let arguments: Vec<String> = calls
            .iter()
            .map(|call| {
                let inputs: Vec<String> = call["inputs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|i| dir.join(i.as_str().unwrap()).display().to_string())
                    .collect();
                format!("{}:{}", call["method"].as_str().unwrap(), inputs.join(","))
            })
            .collect();
        let out = support::temp_dir(case);
        let target = manifest["target"].as_str().expect("target");
        // A program ExecuTorch's own runtime refuses to load (an operator without a kernel):
        // refused here too, at plan time, each such operator named.
        if manifest["reference"] == "executorch.runtime-refuses" {
            let result = std::process::Command::new(env!("CARGO_BIN_EXE_arenaplan"))
                .args(["plan", "--target", target, "--emit", "c", "--model"])
                .arg(dir.join("program.pte"))
                .arg("--out")
                .arg(&out)
                .output()
                .expect("runs");
            let stderr = support::stderr(&result);
            let missing = manifest["missing_operators"].as_array().expect("missing");
            let named = missing
                .iter()
                .all(|op| stderr.contains(op.as_str().unwrap()));
            if result.status.code() != Some(5) || !named || missing.is_empty() {
                problems.push(format!(
                    "{case}: ExecuTorch's runtime refuses it for {missing:?}; arenaplan exited \
                     {:?}: {}",
                    result.status.code(),
                    stderr.trim()
                ));
            }
            ran += 1;
            continue;
        }
        let result = support::run(&dir.join("program.pte"), target, &arguments, &out);
        let stderr = support::stderr(&result);
        let listed = NOT_YET.iter().find(|(c, _)| c == case);
        match (result.status.code(), listed) {
            (Some(0), None) => {}
            (Some(0), Some(_)) => {
                problems.push(format!("{case}: runs now; take it off NOT_YET"));
                continue;
            }
            (Some(2 | 5 | 6), Some((_, reason))) if stderr.contains(reason) => continue,
            (code, _) => {
                problems.push(format!("{case}: exit {code:?}: {}", stderr.trim()));
                continue;
            }
        }
        ran += 1;
        let max_ulps = TOLERANCE
            .iter()
            .find(|(c, _, _)| c == case)
            .map_or(0, |t| t.1);
        for call in calls {
            for file in call["outputs"].as_array().unwrap() {
                let file = file.as_str().unwrap();
                let read = |p: &Path| npy::parse(&std::fs::read(p).unwrap()).unwrap();
                let (got, want) = (read(&out.join(file)), read(&dir.join(file)));
                let unchecked = UNCHECKED
                    .iter()
                    .any(|(c, part, _)| c == case && file.contains(part));
                let numel = |a: &npy::Array| a.shape.iter().product::<u64>();
                if unchecked {
                    if got.dtype != want.dtype || numel(&got) != numel(&want) {
                        problems.push(format!("{case}: {file}: not the reference's type and size"));
                    }
                    continue;
                }
                if let Some(why) = compare(&got, &want, max_ulps) {
                    problems.push(format!("{case}: {file}: {why}"));
                }
            }
        }
        let _ = std::fs::remove_dir_all(&out);
    }
    assert!(
        problems.is_empty(),
        "{} of {} cases ran; problems:\n{}",
        ran,
        cases.len(),
        problems.join("\n")
    );
}
