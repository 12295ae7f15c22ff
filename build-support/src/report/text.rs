//! The human-readable plan report (`NAME.report.txt`).

use std::fmt::Write;

use crate::model::{Instruction, Origin, Program, ValueKind};
use crate::targets::Target;

use crate::pipeline::{CallKind, ModelPlan};

/// A plain-text report: every pool's arena against its lower bound and capacity, every
/// delegate call with its scratch buffers, the variant of each CPU kernel that has two, and
/// every buffer's place.
pub fn report(
    program: &Program,
    plan: &ModelPlan,
    target: &Target,
    declared: &crate::pipeline::Declarations,
) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "arenaplan plan of model `{}` for target `{}`",
        program.name, target.name
    );
    if !target.description.is_empty() {
        let _ = writeln!(out, "  {}", target.description);
    }
    if plan.pools.iter().any(|p| p.stopped_early) {
        let _ = writeln!(
            out,
            "\nPlanning was stopped early (a deadline or Ctrl-C): the arenas are the best found by then, not the step budget's deterministic result."
        );
    }
    let _ = writeln!(out, "\nPools");
    let _ = writeln!(
        out,
        "  {:>6}  {:<10} {:>12} {:>12} {:>12} {:>7}",
        "mem_id", "name", "arena", "lower bound", "capacity", "used"
    );
    for p in &plan.pools {
        let used = p.size as f64 * 100.0 / p.capacity.max(1) as f64;
        let _ = writeln!(
            out,
            "  {:>6}  {:<10} {:>12} {:>12} {:>12} {:>6.1}%",
            p.mem_id, p.name, p.size, p.lower_bound, p.capacity, used
        );
    }
    for p in plan.pools.iter().filter(|p| p.search_ended.is_some()) {
        let _ = writeln!(
            out,
            "  {} is above its lower bound: the search {}",
            p.name,
            p.search_ended.as_deref().unwrap_or_default()
        );
    }
    // What the buffers are, pool by pool (more than the arena where lifetimes let them share).
    for p in &plan.pools {
        let buffers: Vec<_> = plan
            .buffers
            .iter()
            .filter(|b| b.mem_id == p.mem_id)
            .collect();
        let _ = writeln!(
            out,
            "  {} by role (bytes, before sharing): {}",
            p.name,
            super::roles::totals(program, &buffers)
        );
    }
    if let (Some(own), Some(own_bytes)) = (&program.source_plan, program.source_arena()) {
        let arenas: u64 = plan.pools.iter().map(|p| p.size).sum();
        let what = if own.buffer_sizes.is_empty() {
            "the model's offline plan (TFLite OfflineMemoryAllocation, as Vela writes it: the NPU's scratch and its inputs and outputs included)"
        } else {
            "ExecuTorch's plan in the program (its planned buffers; a delegate's scratch comes from the temp allocator on top)"
        };
        let _ = writeln!(
            out,
            "  beside {what}: {own_bytes} bytes; arenaplan's arenas: {arenas} bytes"
        );
    }
    let tables = super::table_sizes(program, plan, declared);
    let _ = writeln!(
        out,
        "\nRuntime tables (32-bit target)\n  flash {} B of const tables (+ {} B of blobs, {} B of constants); RAM {} B outside the arenas ({} B of delegate handles)",
        tables.flash, tables.blobs, tables.constants, tables.ram, tables.handles
    );
    let _ = writeln!(out, "\nDelegate calls");
    let delegate_calls: Vec<_> = plan
        .calls
        .iter()
        .filter(|c| c.kind == CallKind::Delegate)
        .collect();
    if delegate_calls.is_empty() {
        let _ = writeln!(out, "  (none)");
    }
    for call in delegate_calls {
        let delegate = program
            .flat_instructions()
            .into_iter()
            .find_map(|(i, instruction)| match instruction {
                crate::model::Instruction::Delegate(d) if i == call.index => {
                    program.delegates.get(d.delegate).map(|x| x.name.as_str())
                }
                _ => None,
            })
            .unwrap_or("?");
        let _ = writeln!(
            out,
            "  call {} `{delegate}` ({}): {} input(s), {} output(s), {} scratch",
            call.index,
            call.backend.as_deref().unwrap_or("?"),
            call.inputs,
            call.outputs,
            call.scratch
        );
        let in_place: Vec<_> = call.args[..call.inputs + call.outputs]
            .iter()
            .filter_map(|&a| plan.buffer(a).filter(|b| b.within.is_some()))
            .collect();
        if !in_place.is_empty() {
            let ids: Vec<String> = in_place.iter().map(|b| b.id.to_string()).collect();
            let _ = writeln!(
                out,
                "    inputs and outputs at their slots in the scratch (the NPU reads and writes them there): values {}; {} bytes no longer copied per inference",
                ids.join(", "),
                in_place.iter().map(|b| b.size).sum::<u64>()
            );
        }
        for &arg in &call.args[call.inputs + call.outputs..] {
            let value = &program.values[arg];
            let ValueKind::Scratch { slot, origin, .. } = &value.kind else {
                continue;
            };
            let Some(buffer) = plan.buffer(arg) else {
                let _ = writeln!(
                    out,
                    "    scratch {slot} `{}`: empty (0 bytes from {origin}; a later slot is needed)",
                    value.name
                );
                continue;
            };
            let pool = target.pool(buffer.mem_id).map_or("?", |p| p.name.as_str());
            let _ = writeln!(
                out,
                "    scratch {slot} `{}`: {} bytes in {pool} (mem_id {}) at offset {}; size from {origin}",
                value.name, buffer.size, buffer.mem_id, buffer.offset
            );
        }
    }
    kernel_variants(&mut out, program);
    // In memory order (pool, then offset), as a memory map reads; the name column as wide as
    // the longest name (up to 64 characters) so the numbers line up.
    let mut order: Vec<&crate::pipeline::BufferPlan> = plan.buffers.iter().collect();
    order.sort_by_key(|b| (b.mem_id, b.offset, b.id));
    let width = order
        .iter()
        .map(|b| program.values[b.id].name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(4, 64);
    let _ = writeln!(out, "\nBuffers (by pool and offset)");
    let _ = writeln!(
        out,
        "  {:>6} {:>10} {:>10}  {:<8} {:>5}  {:<width$}  alive",
        "mem_id", "offset", "size", "kind", "id", "name"
    );
    for b in order {
        let kind = super::roles::Role::of(program, b).name();
        let within = b
            .within
            .map_or(String::new(), |s| format!("  (at its slot in scratch {s})"));
        let _ = writeln!(
            out,
            "  {:>6} {:>10} {:>10}  {:<8} {:>5}  {:<width$}  {}..={}{within}",
            b.mem_id, b.offset, b.size, kind, b.id, program.values[b.id].name, b.first, b.last
        );
    }
    // Names come from the model: nothing in them may act on the terminal that shows the report.
    crate::names::display(&out)
}

/// The CPU kernel calls whose library has a fast variant with scratch and a slower one without
/// (CMSIS-NN's convolutions): which one each runs, and the scratch a scratch-free call would need
/// to run fast. Nothing when no call has the choice.
fn kernel_variants(out: &mut String, program: &Program) {
    let mut lines = Vec::new();
    let mut slow = 0;
    for (at, i) in program.flat_instructions() {
        let Instruction::Kernel(k) = i else { continue };
        if let Some(dropped) = &k.scratch_free {
            slow += 1;
            lines.push(format!(
                "  call {at} `{}` ({}): scratch-free; its {} bytes of scratch would have made the arena larger",
                k.op, dropped.function, dropped.bytes
            ));
        } else if k.scratch_need.as_ref().is_some_and(|n| n.optional) {
            // The library's buffer as the scratch pass planned it (none where it needs no bytes
            // on this core).
            let library = k
                .scratch
                .iter()
                .find_map(|&s| match &program.values[s].kind {
                    ValueKind::Scratch {
                        origin: Origin::KernelLibrary { function },
                        ..
                    } => Some((function.as_str(), program.values[s].bytes)),
                    _ => None,
                });
            let (function, bytes) = library.unwrap_or(("no library scratch on this core", 0));
            lines.push(format!(
                "  call {at} `{}` ({function}): fast, {bytes} bytes of scratch",
                k.op
            ));
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nCPU kernel variants ({slow} of {} calls run the scratch-free variant: the same outputs, slower; `--fastest-kernels` / `KernelVariants::Fastest` plans every fast one)",
        lines.len()
    );
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
}
