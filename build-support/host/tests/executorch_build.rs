//! What the build adds to ExecuTorch's kernels, run on the host: selective build by dtype
//! (`executorch::selection`: a kernel compiled for one program's dtypes computes it, and a call
//! with a dtype its selection left out stops with the runtime's error, no wrong numbers, no
//! crash) and planned temp memory (`executorch::temp`: `topk`'s queue is the call's scratch).

#[path = "../../tests/common/skip.rs"]
mod skip;

use arenaplan_build::executorch::{program_operators, Capacities, Dtypes};
use arenaplan_build::model::{DType, EValue, Instruction, KernelCall, Program, Value, ValueKind};
use arenaplan_build::Build;
use arenaplan_host::{executorch_sources, Arenas, ExecuTorchKernels, Runner};

/// A constant scalar argument.
fn scalar(p: &mut Program, name: &str, evalue: EValue, bytes: Vec<u8>) -> usize {
    let dtype = if evalue == EValue::Bool {
        DType::Bool
    } else {
        DType::Int64
    };
    p.add_value(Value::constant(name, evalue, dtype, bytes))
}

/// `y = a + a` (`aten::add.out`, alpha 1) on four elements of `dtype`.
fn add_program(dtype: DType) -> Program {
    let mut p = Program::new("add");
    let a = p.add_value(Value::planned("a", dtype, vec![4]));
    let alpha = scalar(&mut p, "alpha", EValue::Int, 1i64.to_le_bytes().to_vec());
    let y = p.add_value(Value::planned("y", dtype, vec![4]));
    p.inputs.push(a);
    p.outputs.push(y);
    p.body.push(Instruction::Kernel(KernelCall::new(
        "aten::add.out",
        vec![a, a, alpha],
        vec![y],
    )));
    p
}

/// Runs `program` with its kernels compiled for `selected`'s dtypes, input `a`: its outputs,
/// and the bytes of the scratch the build planned.
fn run(program: &Program, selected: &Program, a: &[u8]) -> Result<(Vec<Vec<u8>>, u64), String> {
    let rendered = Build::new()
        .program(program.clone())
        .target("corstone-300")
        .name("add")
        .sources(Vec::<std::path::PathBuf>::new())
        .try_render()
        .map_err(|e| e.to_string())?;
    let (program, plan) = (&rendered.program, &rendered.plan);
    let sources = executorch_sources().expect("EXECUTORCH_PATH")?;
    let ops = program_operators(program, |_| false);
    let caps = Capacities::of(program, |_| true);
    let kernels =
        ExecuTorchKernels::for_operators(&sources, &ops, caps, Some(&Dtypes::of(selected, &ops)))?;
    let mut entries = arenaplan_host::kernels();
    entries.extend_from_slice(kernels.entries());
    let tables = arenaplan_host::method_tables(program, plan).expect("tables");
    let arenas = Arenas::new(program, plan);
    let backends = arenaplan_host::emulated_backends(&plan.target).map_err(|e| e.to_string())?;
    // SAFETY: tables, arenas, backends and kernels outlive the runner, the only user.
    let mut runner =
        unsafe { Runner::with_kernels(&tables[0].1, arenas.pools(), &backends, &entries) }
            .map_err(|e| e.to_string())?;
    runner.input(0).map_err(|e| e.to_string())?[..a.len()].copy_from_slice(a);
    runner
        .execute()
        .map_err(|(e, at)| arenaplan_host::failure_text(&e, at))?;
    let mut outputs = Vec::new();
    for i in 0..program.outputs.len() {
        outputs.push(runner.output(i).map_err(|e| e.to_string())?.to_vec());
    }
    let scratch = program
        .values
        .iter()
        .filter(|v| matches!(v.kind, ValueKind::Scratch { .. }))
        .map(|v| v.bytes)
        .sum();
    Ok((outputs, scratch))
}

fn little<const N: usize>(bytes: &[u8]) -> Vec<[u8; N]> {
    bytes
        .chunks_exact(N)
        .map(|c| c.try_into().unwrap())
        .collect()
}

#[test]
fn a_kernel_runs_the_dtypes_it_was_selected_for_and_refuses_the_rest() {
    if executorch_sources().is_none() {
        skip::skip("EXECUTORCH_PATH is not set (ExecuTorch's sources)");
        return;
    }
    let ints = add_program(DType::Int32);
    let floats = add_program(DType::Float32);
    let a: Vec<u8> = [1i32, -2, 3, 1 << 30]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();

    let (out, _) = run(&ints, &ints, &a).unwrap();
    let sums: Vec<i32> = little(&out[0][..16])
        .into_iter()
        .map(i32::from_le_bytes)
        .collect();
    assert_eq!(sums, [2, -4, 6, i32::MIN]);

    // The same call on a kernel compiled for float only: the int case is gone.
    let err = run(&ints, &floats, &a).unwrap_err();
    assert!(err.contains("BACKEND") || err.contains("backend"), "{err}");
}

/// `topk(x, 3, dim=-1)` of a 2x5 float tensor: values and indices.
fn topk_program() -> Program {
    let mut p = Program::new("topk");
    let x = p.add_value(Value::planned("x", DType::Float32, vec![2, 5]));
    let k = scalar(&mut p, "k", EValue::Int, 3i64.to_le_bytes().to_vec());
    let dim = scalar(&mut p, "dim", EValue::Int, (-1i64).to_le_bytes().to_vec());
    let largest = scalar(&mut p, "largest", EValue::Bool, vec![1]);
    let sorted = scalar(&mut p, "sorted", EValue::Bool, vec![1]);
    let values = p.add_value(Value::planned("values", DType::Float32, vec![2, 3]));
    let indices = p.add_value(Value::planned("indices", DType::Int64, vec![2, 3]));
    p.inputs.push(x);
    p.outputs.extend([values, indices]);
    p.body.push(Instruction::Kernel(KernelCall::new(
        "aten::topk.values",
        vec![x, k, dim, largest, sorted],
        vec![values, indices],
    )));
    p
}

#[test]
fn topk_gets_its_queue_from_the_calls_planned_scratch() {
    if executorch_sources().is_none() {
        skip::skip("EXECUTORCH_PATH is not set (ExecuTorch's sources)");
        return;
    }
    let p = topk_program();
    let x: Vec<u8> = [0.5f32, -1.0, 7.0, 2.0, 2.5, -0.0, f32::NAN, 1.0, -3.0, 4.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let (out, scratch) = run(&p, &p, &x).unwrap();
    // One (value, int64 index) pair per element along the last dimension.
    assert_eq!(scratch, 5 * 16);
    let values: Vec<f32> = little(&out[0])
        .into_iter()
        .map(f32::from_le_bytes)
        .collect();
    let indices: Vec<i64> = little(&out[1])
        .into_iter()
        .map(i64::from_le_bytes)
        .collect();
    assert_eq!(&values[..3], &[7.0, 2.5, 2.0]);
    assert_eq!(&indices[..3], &[2, 4, 3]);
    // NaN is the largest, as torch orders it.
    assert!(values[3].is_nan());
    assert_eq!(&values[4..], &[4.0, 1.0]);
    assert_eq!(&indices[3..], &[1, 4, 2]);
}
