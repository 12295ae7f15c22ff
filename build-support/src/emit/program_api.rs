//! The C API over the program tables (in `NAME_program.c`, declared in `NAME.h`): each
//! method's input, output, run and failed-call functions, and `NAME_init`/`NAME_deinit`, which
//! give state its initial contents and set up and tear down every method.

use super::{upper_ident, Input, MethodTables};
use crate::c_writer::CWriter;

/// Method `m`'s C API (declared in `NAME.h`): input, run, output, and the call a run failed
/// at, named by its prefix; the first method's also init and deinit, which set up and tear down
/// every method.
pub(super) fn api(w: &mut CWriter, input: &Input<'_>, m: &MethodTables, flat_table: bool) {
    let name = input.name;
    let prefix = &m.prefix;
    let up = upper_ident(prefix);
    if prefix == name {
        init_and_deinit(w, input);
    }
    for (kind, list, count, ret, n) in [
        (
            "input",
            "inputs",
            "INPUT_COUNT",
            "uint8_t *",
            m.inputs.len(),
        ),
        (
            "output",
            "outputs",
            "OUTPUT_COUNT",
            "const uint8_t *",
            m.outputs.len(),
        ),
    ] {
        w.comment(&format!(
            "Where {kind} `index` lives: an address fixed at link time, valid before init."
        ));
        // No value there: size 0, NULL.
        let none = |w: &mut CWriter| {
            w.block("if (size != 0)", "", |w| {
                w.line("*size = 0u;");
            })
            .line("return 0;");
        };
        w.block(
            format!("{ret}{prefix}_{kind}(uint32_t index, uint32_t *size)"),
            "",
            |w| {
                if n == 0 {
                    // `index >= 0u` would be a comparison that is always true.
                    w.line("(void)index;");
                    none(w);
                    return;
                }
                w.block(format!("if (index >= {up}_{count})"), "", none)
                    .line(format!(
                        "const ap_buffer_t *b = &{name}_values[{prefix}_{list}[index]];"
                    ));
                w.block("if (size != 0)", "", |w| {
                    w.line("*size = (uint32_t)b->size;");
                })
                .line("return b->data;");
            },
        );
        w.blank();
    }
    w.line(format!(
        "ap_status_t {prefix}_run(void) {{ return ap_method_execute(&{prefix}_method); }}"
    ))
    .blank();
    let several = input.methods.len() > 1;
    if flat_table {
        // Table positions differ from flat indices where branches add jumps or methods follow
        // one another.
        w.block(format!("uint32_t {prefix}_failed_call(void)"), "", |w| {
            if several && prefix == name {
                w.block(format!("if ({name}_init_failed_at != 0u)"), "", |w| {
                    w.line(format!("return {name}_init_failed_at - 1u;"));
                });
            }
            w.line(format!("uint32_t at = {prefix}_method.failed_instruction;"))
                .line(format!(
                    "return at < sizeof {prefix}_flat_index / sizeof {prefix}_flat_index[0] ? {prefix}_flat_index[at] : at;"
                ));
        });
    } else {
        // Without branches, a call's table position is its flat index.
        w.line(format!(
            "uint32_t {prefix}_failed_call(void) {{ return {prefix}_method.failed_instruction; }}"
        ));
    }
    w.blank();
}

/// `NAME_init`, which gives state its initial contents, then initializes every method
/// (destroying those it initialized when one fails), and `NAME_deinit`, which destroys them all.
fn init_and_deinit(w: &mut CWriter, input: &Input<'_>) {
    let name = input.name;
    let methods = &input.methods;
    let initial = initial_state(w, input);
    w.blank();
    if methods.len() == 1 && initial.is_empty() {
        w.line(format!(
            "ap_status_t {name}_init(void) {{ return ap_method_init_bound(&{name}_method, &{name}_bound); }}"
        ))
        .blank()
        .line(format!(
            "void {name}_deinit(void) {{ ap_method_destroy(&{name}_method); }}"
        ))
        .blank();
        return;
    }
    if methods.len() > 1 {
        w.comment("The call a failed init stopped at, plus one (0: none), whichever method it was in: init destroys the methods before it, which forget theirs.")
            .line(format!("static uint32_t {name}_init_failed_at;"));
    }
    w.block(format!("ap_status_t {name}_init(void)"), "", |w| {
        if methods.len() > 1 {
            w.line(format!("{name}_init_failed_at = 0u;"));
        }
        if !initial.is_empty() {
            w.comment("State starts from the program's initial contents, as at method load.");
        }
        for line in &initial {
            w.line(line.clone());
        }
        w.line("ap_status_t s = AP_OK;");
        for (k, m) in methods.iter().enumerate() {
            let undo: Vec<String> = methods[..k]
                .iter()
                .rev()
                .map(|done| format!("ap_method_destroy(&{}_method);", done.prefix))
                .collect();
            w.block(
                format!(
                    "if ((s = ap_method_init_bound(&{0}_method, &{0}_bound)) != AP_OK)",
                    m.prefix
                ),
                "",
                |w| {
                    if methods.len() > 1 {
                        w.line(format!(
                            "{name}_init_failed_at = {}_failed_call() + 1u;",
                            m.prefix
                        ));
                    }
                    for line in &undo {
                        w.line(line.clone());
                    }
                    w.line("return s;");
                },
            );
        }
        w.line("return s;");
    })
    .blank();
    w.block(format!("void {name}_deinit(void)"), "", |w| {
        for m in methods {
            w.line(format!("ap_method_destroy(&{}_method);", m.prefix));
        }
    })
    .blank();
}

/// The initial contents of every state value, and the copies into its arena that `NAME_init`
/// makes: a flash array copied in, or a fill where every byte is one value (no flash). State
/// without initial contents (an ExecuTorch mutable buffer the exporter did not serialize)
/// starts at zero, as the exported module's buffer did and as ExecuTorch's runtime gives it:
/// arenas are `NOLOAD`, so nothing else would clear it on a board.
fn initial_state(w: &mut CWriter, input: &Input<'_>) -> Vec<String> {
    let (name, program, plan) = (input.name, input.program, input.plan);
    let mut copies = Vec::new();
    for &v in &program.state {
        let Some(b) = plan.buffer(v) else {
            continue;
        };
        let Some(pool) = input.target.pool(b.mem_id) else {
            continue;
        };
        let at = format!(
            "{name}_arena_{} + {}u",
            crate::names::ident(&pool.name),
            b.offset
        );
        let value = &program.values[v];
        let initial = value.initial_state(b.size);
        let bytes = &initial[..];
        let Some((&first, rest)) = bytes.split_first() else {
            continue;
        };
        if rest.iter().all(|&x| x == first) {
            copies.push(format!(
                "memset({at}, {first:#04x}, {}u); /* state `{}` */",
                bytes.len(),
                crate::names::comment(&value.name)
            ));
            continue;
        }
        w.comment(&format!(
            "Initial contents of state `{}`.",
            crate::names::comment(&value.name)
        ));
        w.block(
            format!("static const uint8_t {name}_initial{v}[{}] =", bytes.len()),
            ";",
            |w| {
                for chunk in bytes.chunks(16) {
                    let text: Vec<String> = chunk.iter().map(|b| format!("{b:#04x}")).collect();
                    w.line(format!("{},", text.join(", ")));
                }
            },
        );
        copies.push(format!(
            "memcpy({at}, {name}_initial{v}, sizeof {name}_initial{v});"
        ));
    }
    copies
}
