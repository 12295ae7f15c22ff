//! A readable listing of a program: tensors, delegates with their scratch, instructions.

use std::fmt::Write;

use crate::model::{Instruction, Program, ValueKind};

/// The program as text, for `arenaplan inspect`.
pub fn describe(program: &Program) -> String {
    let mut out = String::new();
    let name = |id: usize| program.values.get(id).map_or("?", |v| v.name.as_str());
    let names = |ids: &[usize]| ids.iter().map(|&i| name(i)).collect::<Vec<_>>().join(", ");
    let _ = writeln!(out, "model `{}`", program.name);
    if program.methods.is_empty() {
        let _ = writeln!(out, "  inputs: [{}]", names(&program.inputs));
        let _ = writeln!(out, "  outputs: [{}]", names(&program.outputs));
    }
    for m in &program.methods {
        let _ = writeln!(
            out,
            "  method `{}`: inputs [{}], outputs [{}], instructions {}..{}",
            m.name,
            names(&m.inputs),
            names(&m.outputs),
            m.body.start,
            m.body.end
        );
    }
    if !program.state.is_empty() {
        let _ = writeln!(
            out,
            "  state kept between runs: [{}]",
            names(&program.state)
        );
    }
    let _ = writeln!(out, "\ntensors ({})", program.values.len());
    for (id, v) in program.values.iter().enumerate() {
        let kind = match &v.kind {
            ValueKind::Constant => "constant".to_owned(),
            ValueKind::Planned => "planned".to_owned(),
            ValueKind::Unmanaged => "not planned".to_owned(),
            ValueKind::Scratch {
                call, slot, origin, ..
            } => {
                format!("scratch {slot} of call {call} (size from {origin})")
            }
        };
        let pool = v
            .pool
            .as_ref()
            .map(|p| format!(", {p}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {id:>4} {:<32} {:<8} {:?} {} bytes, {kind}{pool}",
            v.name,
            v.dtype.name(),
            v.shape,
            v.bytes
        );
    }
    let _ = writeln!(out, "\ndelegates ({})", program.delegates.len());
    for (id, d) in program.delegates.iter().enumerate() {
        let blob = d
            .blob
            .as_ref()
            .map(|b| format!(", blob {} bytes", b.len()))
            .unwrap_or_default();
        let _ = writeln!(out, "  {id:>4} {} ({}){blob}", d.name, d.backend);
        for (k, v) in &d.compile_specs {
            let _ = writeln!(out, "         spec {k} = {v}");
        }
        if let (Some(blob), Some(plugin)) = (&d.blob, crate::backends::plugin_for(&d.backend)) {
            match plugin.inspect(blob, &d.compile_specs) {
                Ok(info) => {
                    let _ = writeln!(
                        out,
                        "         blob: {} input(s), {} output(s)",
                        info.inputs, info.outputs
                    );
                    for (name, value) in &info.facts {
                        let _ = writeln!(out, "         blob {name}: {value}");
                    }
                }
                Err(e) => {
                    let _ = writeln!(out, "         blob unreadable: {e}");
                }
            }
        }
        if d.scratch.is_empty() {
            let _ = writeln!(out, "         no scratch declared");
        }
        for (i, s) in d.scratch.iter().enumerate() {
            let label = s
                .label
                .as_ref()
                .map(|l| format!(" `{l}`"))
                .unwrap_or_default();
            if s.size == 0 && s.role.is_some() {
                let _ = writeln!(
                    out,
                    "         scratch {i}{label}: not needed (0 bytes in {})",
                    s.origin
                );
                continue;
            }
            let _ = writeln!(
                out,
                "         scratch {i}{label}: {} bytes in {} (declared at {})",
                s.size, s.pool, s.origin
            );
        }
    }
    if let Some(plan) = &program.source_plan {
        let placed = plan.offsets.iter().filter(|o| o.is_some()).count();
        let _ = writeln!(
            out,
            "\nthe file's own memory plan: buffer sizes {:?}, {placed} value(s) placed",
            plan.buffer_sizes
        );
    }
    let _ = writeln!(out, "\ninstructions");
    fn walk(
        out: &mut String,
        body: &[Instruction],
        next: &mut usize,
        depth: usize,
        program: &Program,
    ) {
        let name = |id: usize| {
            program
                .values
                .get(id)
                .map_or("?", |v| v.name.as_str())
                .to_owned()
        };
        let names = |ids: &[usize]| ids.iter().map(|&i| name(i)).collect::<Vec<_>>().join(", ");
        for instruction in body {
            let index = *next;
            *next += 1;
            let pad = "  ".repeat(depth + 1);
            match instruction {
                Instruction::Kernel(k) => {
                    let _ = writeln!(
                        out,
                        "{pad}{index:>4} kernel {} ({}) -> ({})",
                        k.op,
                        names(&k.inputs),
                        names(&k.outputs)
                    );
                }
                Instruction::Delegate(d) => {
                    let delegate = program
                        .delegates
                        .get(d.delegate)
                        .map_or("?", |x| x.name.as_str());
                    let _ = writeln!(
                        out,
                        "{pad}{index:>4} delegate {delegate} ({}) -> ({}) scratch [{}]",
                        names(&d.inputs),
                        names(&d.outputs),
                        names(&d.scratch)
                    );
                }
                Instruction::Branch(b) => {
                    let _ = writeln!(out, "{pad}{index:>4} branch on {}", name(b.predicate));
                    for (a, arm) in b.arms.iter().enumerate() {
                        let _ = writeln!(out, "{pad}     arm {a}:");
                        walk(out, arm, next, depth + 2, program);
                    }
                }
            }
        }
    }
    walk(&mut out, &program.body, &mut 0, 0, program);
    out
}
