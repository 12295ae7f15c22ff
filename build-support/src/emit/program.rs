//! The program tables the C runtime runs (`NAME_program.c` / `.h`): tensors, instructions,
//! delegates with their blobs, kernel names — an `ap_program_t` from `arenaplan/runtime.h`.

use std::fmt::Write;

use super::{banner, upper_ident, Input};
use crate::model::{Instruction, Value, ValueKind};
use crate::names::c_string;

/// A scratch argument that holds a role's slot without memory.
fn is_empty_slot(value: &Value) -> bool {
    matches!(value.kind, ValueKind::Scratch { .. }) && value.bytes == 0
}

/// ISO C has no empty initializer: an array of structs with no entries is declared with one
/// zeroed entry (and its count says 0).
fn empty_array(o: &mut String, empty: bool) {
    if empty {
        let _ = writeln!(o, "    {{0}}, /* none */");
    }
}

pub(super) fn header(input: &Input<'_>) -> String {
    let name = input.name;
    let guard = format!("ARENAPLAN_MODEL_{}_TABLES_H", upper_ident(name));
    let mut o = String::new();
    let _ = writeln!(o, "/* {} */", banner(input));
    let _ = writeln!(o, "#ifndef {guard}\n#define {guard}\n");
    let _ = writeln!(o, "#include \"arenaplan/runtime.h\"\n");
    let _ = writeln!(o, "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n");
    let _ = writeln!(o, "/* The planned program, for ap_method_init. */");
    let _ = writeln!(o, "extern const ap_program_t {name}_program;");
    let _ = writeln!(
        o,
        "/* Its pools' arenas, for ap_method_init (defined with the arenas). */"
    );
    let _ = writeln!(
        o,
        "#define {}_POOL_COUNT {}u",
        upper_ident(name),
        input.pools().len()
    );
    let _ = writeln!(
        o,
        "\n#ifdef __cplusplus\n}}\n#endif\n\n#endif /* {guard} */"
    );
    o
}

pub(super) fn source(input: &Input<'_>) -> String {
    let name = input.name;
    let program = input.program;
    let plan = input.plan;
    let mut o = String::new();
    let _ = writeln!(o, "/* {} */", banner(input));
    let _ = writeln!(o, "#include \"{name}_program.h\"\n");
    let _ = writeln!(
        o,
        "static const ap_tensor_desc_t {name}_tensors[{}] = {{",
        program.values.len().max(1)
    );
    for v in 0..program.values.len() {
        match plan.buffer(v) {
            Some(b) => {
                let _ = writeln!(o, "    {{{}u, {}u, {}u, 0}},", b.mem_id, b.offset, b.size);
            }
            None if is_empty_slot(&program.values[v]) => {
                let _ = writeln!(
                    o,
                    "    {{0u, 0u, 0u, 0}}, /* empty scratch slot: the backend gets NULL, 0 bytes */"
                );
            }
            None => {
                let _ = writeln!(o, "    {{0u, 0u, 0u, 0}}, /* not planned */");
            }
        }
    }
    empty_array(&mut o, program.values.is_empty());
    let _ = writeln!(o, "}};\n");
    // Delegate blobs, 16-byte aligned, in flash.
    for (d, delegate) in program.delegates.iter().enumerate() {
        let Some(blob) = &delegate.blob else { continue };
        let _ = writeln!(
            o,
            "static const uint8_t {name}_blob{d}[{}] __attribute__((aligned(16))) = {{",
            blob.len().max(1)
        );
        for chunk in blob.chunks(16) {
            let bytes: Vec<String> = chunk.iter().map(|b| format!("{b:#04x}")).collect();
            let _ = writeln!(o, "    {},", bytes.join(", "));
        }
        if blob.is_empty() {
            let _ = writeln!(o, "    0, /* an empty blob: its size says 0 */");
        }
        let _ = writeln!(o, "}};");
    }
    let _ = writeln!(
        o,
        "\nstatic const ap_delegate_desc_t {name}_delegates[{}] = {{",
        program.delegates.len().max(1)
    );
    for (d, delegate) in program.delegates.iter().enumerate() {
        match &delegate.blob {
            Some(blob) => {
                let _ = writeln!(
                    o,
                    "    {{{}, {name}_blob{d}, {}u, 0, 0u}},",
                    c_string(&delegate.backend),
                    blob.len()
                );
            }
            None => {
                let _ = writeln!(
                    o,
                    "    {{{}, 0, 0u, 0, 0u}}, /* the model carries no blob */",
                    c_string(&delegate.backend)
                );
            }
        }
    }
    empty_array(&mut o, program.delegates.is_empty());
    let _ = writeln!(o, "}};\n");
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
    let names: Vec<String> = kernels.iter().map(|k| c_string(k)).collect();
    let _ = writeln!(
        o,
        "static const char *const {name}_kernels[{}] = {{{}}};\n",
        kernels.len().max(1),
        if names.is_empty() {
            "0".into()
        } else {
            names.join(", ")
        }
    );
    for c in &plan.calls {
        let args: Vec<String> = c.args.iter().map(|a| format!("{a}u")).collect();
        let _ = writeln!(
            o,
            "static const uint32_t {name}_args{}[{}] = {{{}}};",
            c.index,
            c.args.len().max(1),
            if args.is_empty() {
                "0u".into()
            } else {
                args.join(", ")
            }
        );
    }
    let _ = writeln!(
        o,
        "\nstatic const ap_instruction_t {name}_instructions[{}] = {{",
        plan.calls.len().max(1)
    );
    for c in &plan.calls {
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
        let _ = writeln!(
            o,
            "    {{{kind}, {index}u, {name}_args{}, {}u, {}u, {}u}},",
            c.index,
            c.args.len(),
            c.inputs,
            c.outputs
        );
    }
    empty_array(&mut o, plan.calls.is_empty());
    let _ = writeln!(o, "}};\n");
    let list = |ids: &[usize]| ids.iter().map(|i| format!("{i}u")).collect::<Vec<_>>();
    let inputs = list(&program.inputs);
    let outputs = list(&program.outputs);
    let _ = writeln!(
        o,
        "static const uint32_t {name}_inputs[{}] = {{{}}};",
        inputs.len().max(1),
        if inputs.is_empty() {
            "0u".into()
        } else {
            inputs.join(", ")
        }
    );
    let _ = writeln!(
        o,
        "static const uint32_t {name}_outputs[{}] = {{{}}};\n",
        outputs.len().max(1),
        if outputs.is_empty() {
            "0u".into()
        } else {
            outputs.join(", ")
        }
    );
    let _ = writeln!(o, "const ap_program_t {name}_program = {{");
    let _ = writeln!(o, "    {name}_tensors, {}u,", program.values.len());
    let _ = writeln!(o, "    {name}_instructions, {}u,", plan.calls.len());
    let _ = writeln!(o, "    {name}_delegates, {}u,", program.delegates.len());
    let _ = writeln!(o, "    {name}_kernels, {}u,", kernels.len());
    let _ = writeln!(o, "    {name}_inputs, {}u,", inputs.len());
    let _ = writeln!(o, "    {name}_outputs, {}u,", outputs.len());
    let _ = writeln!(o, "}};");
    o
}
