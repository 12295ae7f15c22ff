//! The program tables the C runtime runs (`NAME_program.c` / `.h`): tensors, instructions,
//! delegates with their blobs, kernel names — an `ap_program_t` from `arenaplan/runtime.h`.

use crate::c_writer::CWriter;
use super::{banner, upper_ident, Input};
use crate::model::{Instruction, Value, ValueKind};

/// A scratch argument that holds a role's slot without memory.
fn is_empty_slot(value: &Value) -> bool {
    matches!(value.kind, ValueKind::Scratch { .. }) && value.bytes == 0
}

pub(super) fn header(input: &Input<'_>) -> String {
    let name = input.name;
    let guard = format!("ARENAPLAN_MODEL_{}_TABLES_H", upper_ident(name));
    let mut w = CWriter::new(&banner(input));
    w.guarded(&guard, |w| {
        w.blank().include("arenaplan/runtime.h").blank();
        w.extern_c(|w| {
            w.comment("The planned program, for ap_method_init.")
                .line(format!("extern const ap_program_t {name}_program;"))
                .comment("Its pools' arenas, for ap_method_init (defined with the arenas).")
                .define_unsigned(
                    &format!("{}_POOL_COUNT", upper_ident(name)),
                    input.pools().len(),
                );
        });
        w.blank();
    });
    w.finish()
}

pub(super) fn source(input: &Input<'_>) -> String {
    let name = input.name;
    let program = input.program;
    let plan = input.plan;
    let mut w = CWriter::new(&banner(input));
    w.include(&format!("{name}_program.h")).blank();
    w.annotated_array(
        format!(
            "static const ap_tensor_desc_t {name}_tensors[{}]",
            program.values.len().max(1)
        ),
        (0..program.values.len()).map(|v| match plan.buffer(v) {
            Some(b) => (
                format!("{{{}u, {}u, {}u, 0}}", b.mem_id, b.offset, b.size),
                None,
            ),
            None if is_empty_slot(&program.values[v]) => (
                "{0u, 0u, 0u, 0}".into(),
                Some("empty scratch slot: the backend gets NULL, 0 bytes"),
            ),
            None => ("{0u, 0u, 0u, 0}".into(), Some("not planned")),
        }),
    );
    w.blank();
    // Delegate blobs, 16-byte aligned, in flash.
    for (d, delegate) in program.delegates.iter().enumerate() {
        let Some(blob) = &delegate.blob else { continue };
        w.block(
            format!(
                "static const uint8_t {name}_blob{d}[{}] __attribute__((aligned(16))) =",
                blob.len().max(1)
            ),
            ";",
            |w| {
                for chunk in blob.chunks(16) {
                    let bytes: Vec<String> = chunk.iter().map(|b| format!("{b:#04x}")).collect();
                    w.line(format!("{},", bytes.join(", ")));
                }
                if blob.is_empty() {
                    w.line("0, /* an empty blob: its size says 0 */");
                }
            },
        );
    }
    w.blank().annotated_array(
        format!(
            "static const ap_delegate_desc_t {name}_delegates[{}]",
            program.delegates.len().max(1)
        ),
        program
            .delegates
            .iter()
            .enumerate()
            .map(|(d, delegate)| match &delegate.blob {
                Some(blob) => (
                    format!(
                        "{{{}, {name}_blob{d}, {}u, 0, 0u}}",
                        CWriter::string(&delegate.backend),
                        blob.len()
                    ),
                    None,
                ),
                None => (
                    format!("{{{}, 0, 0u, 0, 0u}}", CWriter::string(&delegate.backend)),
                    Some("the model carries no blob"),
                ),
            }),
    );
    w.blank();
    // Kernels by name, in order of first use.
    let mut kernels: Vec<&str> = Vec::new();
    let mut delegate_of = Vec::new();
    for (_, ins) in program.flat_instructions() {
        match ins {
            Instruction::Kernel(k) => {
                if !kernels.contains(&k.op.as_str()) {
                    kernels.push(&k.op);
                }
                delegate_of.push(None);
            }
            Instruction::Delegate(d) => delegate_of.push(Some(d.delegate)),
            Instruction::Branch(_) => delegate_of.push(None),
        }
    }
    w.inline_array(
        format!(
            "static const char *const {name}_kernels[{}]",
            kernels.len().max(1)
        ),
        kernels.iter().map(|k| CWriter::string(k)),
        "0",
    )
    .blank();
    for c in &plan.calls {
        w.inline_array(
            format!(
                "static const uint32_t {name}_args{}[{}]",
                c.index,
                c.args.len().max(1)
            ),
            c.args.iter().map(|a| format!("{a}u")),
            "0u",
        );
    }
    w.blank().array(
        format!(
            "static const ap_instruction_t {name}_instructions[{}]",
            plan.calls.len().max(1)
        ),
        plan.calls.iter().map(|c| {
            let (kind, index) = match delegate_of.get(c.index).copied().flatten() {
                Some(d) => ("AP_INSTR_DELEGATE", d),
                None => {
                    let op = program
                        .flat_instructions()
                        .into_iter()
                        .find_map(|(i, ins)| match ins {
                            Instruction::Kernel(k) if i == c.index => Some(k.op.clone()),
                            _ => None,
                        });
                    (
                        "AP_INSTR_KERNEL",
                        op.and_then(|op| kernels.iter().position(|k| *k == op))
                            .unwrap_or(0),
                    )
                }
            };
            format!(
                "{{{kind}, {index}u, {name}_args{}, {}u, {}u, {}u}}",
                c.index,
                c.args.len(),
                c.inputs,
                c.outputs
            )
        }),
    );
    w.blank();
    let list = |ids: &[usize]| ids.iter().map(|i| format!("{i}u")).collect::<Vec<_>>();
    let inputs = list(&program.inputs);
    let outputs = list(&program.outputs);
    w.inline_array(
        format!("static const uint32_t {name}_inputs[{}]", inputs.len().max(1)),
        inputs.iter().cloned(),
        "0u",
    )
    .inline_array(
        format!(
            "static const uint32_t {name}_outputs[{}]",
            outputs.len().max(1)
        ),
        outputs.iter().cloned(),
        "0u",
    )
    .blank();
    w.block(format!("const ap_program_t {name}_program ="), ";", |w| {
        w.line(format!("{name}_tensors, {}u,", program.values.len()))
            .line(format!("{name}_instructions, {}u,", plan.calls.len()))
            .line(format!("{name}_delegates, {}u,", program.delegates.len()))
            .line(format!("{name}_kernels, {}u,", kernels.len()))
            .line(format!("{name}_inputs, {}u,", inputs.len()))
            .line(format!("{name}_outputs, {}u,", outputs.len()));
    });
    w.finish()
}
