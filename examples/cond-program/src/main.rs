//! `cargo run -p cond-program`: a program with `torch.cond` whose predicate is a bool input,
//! exported by ExecuTorch (`scripts/export_fixtures.py`, case `cond_bool_input`: `x * 2` when
//! the predicate holds, `x - 1` when not), run three times — true, false, true — through the
//! generated `Model` API on the shipped kernels. Each run's output is compared, bit for bit,
//! with what ExecuTorch's own runtime gave for the same inputs.

arenaplan::include_plan!();

// Link the shipped kernels (their symbols are what the generated tables name).
use arenaplan_kernels as _;

use arenaplan_plan as plan;

/// The data of a `.npy` file (after its header), as NumPy writes it.
fn npy_data(file: &[u8]) -> &[u8] {
    let len = match file.get(6) {
        Some(1) => usize::from(u16::from_le_bytes([file[8], file[9]])) + 10,
        _ => u32::from_le_bytes([file[8], file[9], file[10], file[11]]) as usize + 12,
    };
    &file[len..]
}

/// Each call: the predicate's file, x's file, and the reference output's.
const CALLS: [(&[u8], &[u8], &[u8]); 3] = [
    (
        include_bytes!("../fixture/0-forward-in0.npy"),
        include_bytes!("../fixture/0-forward-in1.npy"),
        include_bytes!("../fixture/0-forward-0.npy"),
    ),
    (
        include_bytes!("../fixture/1-forward-in0.npy"),
        include_bytes!("../fixture/1-forward-in1.npy"),
        include_bytes!("../fixture/1-forward-0.npy"),
    ),
    (
        include_bytes!("../fixture/2-forward-in0.npy"),
        include_bytes!("../fixture/2-forward-in1.npy"),
        include_bytes!("../fixture/2-forward-0.npy"),
    ),
];

fn main() -> std::process::ExitCode {
    println!("arenaplan: `{}` on {}", plan::MODEL, plan::TARGET);
    let mut model = plan::Model::take().expect("taken once");
    let mut right = true;
    for (k, (predicate, x, expected)) in CALLS.iter().enumerate() {
        let predicate = npy_data(predicate);
        model.input(0).copy_from_slice(predicate);
        model.input(1).copy_from_slice(npy_data(x));
        if let Err(e) = model.run() {
            println!("  run {k} failed: {e}");
            return std::process::ExitCode::FAILURE;
        }
        let same = model.output(0) == npy_data(expected);
        let first = f32::from_le_bytes(model.output(0)[..4].try_into().unwrap_or([0; 4]));
        println!(
            "  run {k}: predicate {}, output[0] = {first} {}",
            predicate[0] != 0,
            if same {
                "(as ExecuTorch's runtime)"
            } else {
                "WRONG"
            }
        );
        right &= same;
    }
    if right {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
