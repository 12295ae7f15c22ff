//! `cargo run -p arenaplan-demo [-- --model FILE --target NAME]`: plan, run, show.

mod run;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use arenaplan_build::model::ValueKind;
use arenaplan_build::targets::Catalogue;
use arenaplan_build::{BufferKind, Build, BuildError, CallKind, ExitStatus};
use arenaplan_planner::{Buffer, Planner, Problem};

fn main() -> ExitCode {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut model = root.join("build-support/testdata/fixtures/ethosu_u55_two_calls.pte");
    let mut target_name = "corstone-300".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--model", Some(v)) => model = PathBuf::from(v),
            ("--target", Some(v)) => target_name = v,
            _ => {
                eprintln!("usage: arenaplan-demo [--model FILE.pte|.tflite|.toml] [--target NAME]");
                return ExitCode::from(ExitStatus::BadInput as u8);
            }
        }
    }
    let catalogue = Catalogue::builtin();
    let target = match catalogue.target(&target_name) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(ExitStatus::BadInput as u8);
        }
    };
    // No firmware sources to scan: the demo's delegates declare their scratch in the model.
    // The CPU kernels run here are the host's plain-C CMSIS-NN: their scratch is planned for
    // it, in the target's pools (`arenaplan plan` gives the board's figures).
    let planned = match Build::new()
        .catalogue(catalogue.clone())
        .model(&model)
        .target(&target_name)
        .kernel_isa(arenaplan_build::model::Isa::Plain)
        .sources(Vec::<PathBuf>::new())
        .try_render()
    {
        Ok(p) => p,
        // The status every arenaplan program gives (`ExitStatus`): 1 for buffers that do not
        // fit, 2 for a model that cannot be read or planned (as for the target), 5 for one
        // with an operator no kernel implements.
        Err(e @ BuildError::Input(_)) => {
            eprintln!("error: {e}");
            return ExitCode::from(e.exit_status());
        }
        Err(e) => {
            eprintln!("error: {}: {e}", model.display());
            return ExitCode::from(e.exit_status());
        }
    };
    let (program, plan, name) = (&planned.program, &planned.plan, &planned.name);
    let out = root.join("target/arenaplan-demo");
    if let Err(e) = std::fs::create_dir_all(&out) {
        eprintln!("error: {}: {e}", out.display());
        return ExitCode::from(ExitStatus::Io as u8);
    }
    for (file, bytes) in &planned.files {
        let path = out.join(file);
        // Unchanged files keep their timestamps (an SVG viewer need not reload).
        if std::fs::read(&path).is_ok_and(|old| old == *bytes) {
            continue;
        }
        if let Err(e) = std::fs::write(&path, bytes) {
            eprintln!("error: {file}: {e}");
            return ExitCode::from(ExitStatus::Io as u8);
        }
    }

    println!(
        "arenaplan: model `{}` ({}) on {}",
        program.name,
        model.display(),
        target.name
    );
    println!("  {}\n", target.description);
    println!("pools");
    for p in &plan.pools {
        println!(
            "  {:<6} mem_id {}  arena {:>10}   lower bound {:>10}   capacity {:>10}",
            p.name,
            p.mem_id,
            human_bytes(p.size),
            human_bytes(p.lower_bound),
            human_bytes(p.capacity)
        );
    }
    println!("\ndelegate calls");
    for c in plan.calls.iter().filter(|c| c.kind == CallKind::Delegate) {
        println!(
            "  call {}  {}  inputs {:?}  outputs {:?}",
            c.index,
            c.backend.as_deref().unwrap_or("?"),
            &c.args[..c.inputs],
            &c.args[c.inputs..c.inputs + c.outputs]
        );
        for &a in &c.args[c.inputs + c.outputs..] {
            // A role the call does not need before one it does: an empty slot, no memory.
            let Some(b) = plan.buffer(a) else {
                println!(
                    "    scratch `{}`: empty slot (not needed)",
                    program.values[a].name
                );
                continue;
            };
            let pool = target.pool(b.mem_id).map_or("?", |p| p.name.as_str());
            let origin = match &program.values[a].kind {
                ValueKind::Scratch { origin, .. } => origin.to_string(),
                _ => String::new(),
            };
            println!(
                "    scratch `{}`: {} in {pool} at offset {} (size from {origin})",
                program.values[a].name,
                human_bytes(b.size),
                b.offset
            );
        }
    }

    // The temp-allocator way: the tensors' own arena, plus one temp pool as large as the
    // largest call's scratch (ExecuTorch resets it after every instruction).
    let tensors: Vec<_> = plan
        .buffers
        .iter()
        .filter(|b| b.kind == BufferKind::Tensor)
        .collect();
    let alignment = target.pools.iter().map(|p| p.alignment).max().unwrap_or(16);
    let tensor_arena = Planner::new()
        .plan(
            &Problem::new(
                tensors
                    .iter()
                    .map(|b| Buffer::new(b.size, b.first as u64, b.last as u64 + 1))
                    .collect(),
            )
            .with_alignment(alignment),
        )
        .map_or(0, |p| p.arena);
    let temp_pool = plan
        .calls
        .iter()
        .map(|c| {
            c.args[c.inputs + c.outputs..]
                .iter()
                .filter_map(|&a| plan.buffer(a))
                .map(|b| b.size.div_ceil(16) * 16)
                .sum::<u64>()
        })
        .max()
        .unwrap_or(0);
    let ours: u64 = plan.pools.iter().map(|p| p.size).sum();
    let theirs = tensor_arena + temp_pool;
    let kib = human_bytes;
    println!("\nRAM a firmware team provisions for this model");
    let executorch_plan = program
        .source_plan
        .as_ref()
        .filter(|s| !s.buffer_sizes.is_empty());
    let ethos_u = program
        .delegates
        .iter()
        .any(|d| d.backend == "EthosUBackend");
    if let (true, Some(source)) = (ethos_u, executorch_plan) {
        // ExecuTorch's Arm executor_runner: NPU scratch comes from a temp allocator pool of
        // 0x200000 bytes by default (ET_ARM_BAREMETAL_SCRATCH_TEMP_ALLOCATOR_POOL_SIZE), beside
        // the program's own planned arena.
        let planned: u64 = source.buffer_sizes.iter().sum();
        let today = ARM_RUNNER_TEMP_POOL + planned;
        println!(
            "  today, ExecuTorch's Arm runner: temp pool {} (its default: a guess) + planned arena {} = {} ({today} B)",
            kib(ARM_RUNNER_TEMP_POOL),
            kib(planned),
            kib(today)
        );
        println!(
            "  arenaplan:                      {} in {} pool(s): {:.2} % of that",
            kib(ours),
            plan.pools.len(),
            ours as f64 * 100.0 / today as f64
        );
    }
    println!(
        "  a measured temp pool instead:   tensor arena {} + temp pool for the largest call's scratch {} = {}",
        kib(tensor_arena),
        kib(temp_pool),
        kib(theirs)
    );
    println!(
        "  arenaplan:                      {} — scratch shares memory with tensors no longer alive{}",
        kib(ours),
        if theirs > ours {
            format!(
                ", {} ({:.1} %) less",
                kib(theirs - ours),
                (theirs - ours) as f64 * 100.0 / theirs as f64
            )
        } else {
            String::new()
        }
    );

    println!(
        "\nmemory map: {} (open it in a browser; hover a buffer)",
        out.join(format!("{name}.svg")).display()
    );
    println!(
        "plan:       {}",
        out.join(format!("{name}.plan.json")).display()
    );
    println!(
        "\nrun (C runtime on the emulated NPUs, arenas poisoned: the Ethos-U55 and Ethos-U85 \
         compute the model; Neutron writes placeholders)"
    );
    match run::run(program, plan) {
        Ok(report) => {
            println!("  {report}");
            ExitCode::SUCCESS
        }
        Err((status, why)) => {
            eprintln!(
                "error: {}: planned, but the demo cannot run it: {why}",
                model.display()
            );
            ExitCode::from(status as u8)
        }
    }
}

/// ExecuTorch's Arm executor_runner's temp allocator pool by default (0x200000 bytes).
const ARM_RUNNER_TEMP_POOL: u64 = 0x20_0000;

use arenaplan_build::report::human_bytes;
