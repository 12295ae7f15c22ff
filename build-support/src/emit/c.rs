//! The C header and source for integrators.

use super::{banner, c_ident, upper_ident, Input, Symbols};
use crate::c_writer::CWriter;

pub(super) fn header(input: &Input<'_>) -> String {
    let name = input.name;
    let up = upper_ident(name);
    // Not `ARENAPLAN_<X>_H`: a model named `runtime` would take the runtime header's guard.
    let guard = format!("ARENAPLAN_MODEL_{up}_H");
    let mut w = CWriter::new(&banner(input));
    w.guarded(&guard, |w| {
        w.blank()
            .line("#include <stdint.h>")
            .blank()
            .include("arenaplan/runtime.h")
            .blank();
        w.extern_c(|w| {
            for line in CHECK {
                w.line(line);
            }
            w.define(&format!("{up}_TARGET"), CWriter::string(&input.target.name));
            for (pool, plan) in input.pools() {
                let p = upper_ident(&pool.name);
                w.blank().comment(&format!(
                    "Pool `{}`: mem_id {}, section {}, region {}.",
                    pool.name, pool.mem_id, pool.section, pool.region
                ));
                w.define_unsigned(&format!("{up}_MEM_ID_{p}"), pool.mem_id)
                    .define_unsigned(&format!("{up}_ARENA_{p}_SIZE"), plan.size)
                    .define_unsigned(&format!("{up}_ARENA_{p}_ALIGN"), pool.arena_alignment())
                    .define(
                        &format!("{up}_POOL_{p}_DCACHE_LINE"),
                        format!(
                            "{}u /* 0: no data cache in front of the pool */",
                            pool.dcache_line.unwrap_or(0)
                        ),
                    )
                    .define_unsigned(&format!("{up}_POOL_{p}_CAPACITY"), pool.capacity)
                    .define_unsigned(&format!("{up}_POOL_{p}_LOWER_BOUND"), plan.lower_bound)
                    .line(format!(
                        "ARENAPLAN_CHECK({name}_arena_{}_within_capacity, {up}_ARENA_{p}_SIZE <= {up}_POOL_{p}_CAPACITY);",
                        c_ident(&pool.name)
                    ));
            }
            let regions = input.regions();
            if !regions.is_empty() {
                w.blank()
                    .comment("Scratch regions: one per buffer of each delegate and kernel call.");
            }
            for r in &regions {
                w.comment(&format!("call {}: {}", r.call, r.about))
                    .define_unsigned(&format!("{up}_{}_MEM_ID", r.ident), r.mem_id)
                    .define_unsigned(&format!("{up}_{}_OFFSET", r.ident), r.offset)
                    .define_unsigned(&format!("{up}_{}_SIZE", r.ident), r.size);
            }
            w.blank()
                .define_unsigned(&format!("{up}_BUFFER_COUNT"), input.plan.buffers.len())
                .define_unsigned(&format!("{up}_CALL_COUNT"), input.plan.calls.len())
                .comment("Bytes of constants the program keeps in flash (each used constant once).")
                .define_unsigned(
                    &format!("{up}_CONSTANT_BYTES"),
                    input.constants.bytes(),
                )
                .blank();
            types(w);
            w.blank();
            for (pool, _) in input.pools() {
                w.line(format!(
                    "extern uint8_t {name}_arena_{}[{up}_ARENA_{}_SIZE];",
                    c_ident(&pool.name),
                    upper_ident(&pool.name)
                ));
            }
            if !input.plan.buffers.is_empty() {
                w.line(format!(
                    "extern const arenaplan_buffer_t {name}_buffers[{up}_BUFFER_COUNT];"
                ));
            }
            if input.symbols == Symbols::C && !input.plan.calls.is_empty() {
                w.line(format!(
                    "extern const arenaplan_call_t {name}_calls[{up}_CALL_COUNT];"
                ));
            }
            api(w, input);
        });
        w.blank();
    });
    w.finish()
}

/// A compile-time check in ISO C99 (C11's `_Static_assert` is not C99): a false condition gives
/// an array of negative size, and the compiler's error names the check.
const CHECK: [&str; 4] = [
    "/* Compile-time checks: a failing one is an array of negative size named after the check. */",
    "#ifndef ARENAPLAN_CHECK",
    "#define ARENAPLAN_CHECK(name, cond) typedef char arenaplan_check_##name[(cond) ? 1 : -1]",
    "#endif",
];

/// The table types, shared by every generated header (guarded, so two models' headers can be
/// included together).
fn types(w: &mut CWriter) {
    w.guarded("ARENAPLAN_TABLE_TYPES", |w| {
        w.comment("A planned buffer: value id, pool, offset and size.");
        w.block(
            "typedef struct arenaplan_buffer",
            " arenaplan_buffer_t;",
            |w| {
                for field in ["value", "mem_id", "offset", "size"] {
                    w.line(format!("uint32_t {field};"));
                }
            },
        );
        w.line("ARENAPLAN_CHECK(buffer_has_the_rust_layout, sizeof(arenaplan_buffer_t) == 16);")
            .blank();
        w.comment("One call's flat argument list: inputs, outputs, then scratch.");
        w.block("typedef struct arenaplan_call", " arenaplan_call_t;", |w| {
            w.line("uint32_t index;")
                .line("uint32_t delegate; /* 1: delegate call, 0: kernel call */")
                .line("const char *backend; /* \"\" for kernels */")
                .line("const uint32_t *args;");
            for field in ["nargs", "inputs", "outputs", "scratch"] {
                w.line(format!("uint32_t {field};"));
            }
        });
    });
}

pub(super) fn source(input: &Input<'_>) -> String {
    let name = input.name;
    let up = upper_ident(name);
    let mut w = CWriter::new(&banner(input));
    w.include(&format!("{name}.h"));
    if input.symbols == Symbols::Rust {
        w.blank().comment(
            "The Rust module defines the arenas and the buffer table; nothing to define here.",
        );
        return w.finish();
    }
    for (pool, _) in input.pools() {
        w.blank()
            .comment(&format!(
                "Pool `{}`: no initialisation; the linker fragment places the section.",
                pool.name
            ))
            .line(format!(
                "__attribute__((section({}), aligned({}))) uint8_t {name}_arena_{}[{up}_ARENA_{}_SIZE];",
                CWriter::string(&pool.section),
                pool.arena_alignment(),
                c_ident(&pool.name),
                upper_ident(&pool.name)
            ));
    }
    if !input.plan.buffers.is_empty() {
        w.blank().array(
            format!("const arenaplan_buffer_t {name}_buffers[{up}_BUFFER_COUNT]"),
            input
                .plan
                .buffers
                .iter()
                .map(|b| format!("{{{}u, {}u, {}u, {}u}}", b.id, b.mem_id, b.offset, b.size)),
        );
    }
    if !input.plan.calls.is_empty() {
        w.blank();
        for c in input.plan.calls.iter().filter(|c| !c.args.is_empty()) {
            w.inline_array(
                format!(
                    "static const uint32_t {name}_call{}_args[{}]",
                    c.index,
                    c.args.len()
                ),
                c.args.iter().map(|a| format!("{a}u")),
                "0u",
            );
        }
        w.blank().array(
            format!("const arenaplan_call_t {name}_calls[{up}_CALL_COUNT]"),
            input.plan.calls.iter().map(|c| {
                let args = if c.args.is_empty() {
                    "0".to_owned()
                } else {
                    format!("{name}_call{}_args", c.index)
                };
                format!(
                    "{{{}u, {}u, {}, {args}, {}u, {}u, {}u, {}u}}",
                    c.index,
                    u8::from(c.backend.is_some()),
                    CWriter::string(c.backend.as_deref().unwrap_or("")),
                    c.args.len(),
                    c.inputs,
                    c.outputs,
                    c.scratch
                )
            }),
        );
    }
    w.finish()
}

/// The model's API, defined in `NAME_program.c` over the runtime: five calls run it; a
/// program with several methods has input, run, output and failed_call per further method,
/// named `NAME_<method>_*`.
/// Per input and output of a method, by name (`UP_INPUT_<KEY>_...`, the key as the README's rule
/// gives it: [`super::io_names`]) and by index (`UP_INPUT0_...`): its index, bytes, element type
/// (a name, and the C type where C has one), rank and dimensions and, where the model quantizes
/// it as a whole, scale and zero point (`real = scale * (q - zero_point)`).
fn io_defines(w: &mut CWriter, input: &Input<'_>, up: &str, inputs: &[usize], outputs: &[usize]) {
    for (side, ids) in [("INPUT", inputs), ("OUTPUT", outputs)] {
        let (values, io) = io_side(input, ids);
        for (i, v) in values.iter().enumerate() {
            let shape: Vec<String> = v.shape.iter().map(|d| format!("{d}u")).collect();
            w.comment(&format!(
                "{} {i}: `{}`, {} [{}].",
                if side == "INPUT" { "Input" } else { "Output" },
                v.name,
                v.dtype.name(),
                v.shape
                    .iter()
                    .map(u64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            // The same numbers under both names: by name for code that reads the model's
            // tensors, by index for loops.
            let by_name = format!("{up}_{side}_{}", io.keys[i]);
            let by_index = format!("{up}_{side}{i}");
            w.define_unsigned(&format!("{by_name}_INDEX"), i);
            for prefix in [&by_name, &by_index] {
                w.define_unsigned(&format!("{prefix}_SIZE"), v.bytes)
                    .line(format!("#define {prefix}_DTYPE \"{}\"", v.dtype.name()));
                if let Some(c) = v.dtype.c_type() {
                    w.line(format!("#define {prefix}_TYPE {c}"));
                }
                w.define_unsigned(&format!("{prefix}_RANK"), v.shape.len());
                if !shape.is_empty() {
                    // An initializer: `static const uint32_t dims[] = MODEL_INPUT0_DIMS;`.
                    w.line(format!("#define {prefix}_DIMS {{{}}}", shape.join(", ")));
                }
                if let Some((scale, zero)) = v.quant.as_ref().and_then(|q| q.per_tensor()) {
                    // Rust's shortest round-trip form always has a `.` or an exponent: a C float
                    // literal that reads back as the same f32.
                    w.line(format!("#define {prefix}_SCALE {scale:?}f"))
                        .line(format!("#define {prefix}_ZERO_POINT ({zero})"));
                }
            }
        }
    }
}

/// The values of a method's inputs (or outputs) and the names the header gives them.
fn io_side<'a>(
    input: &'a Input<'_>,
    ids: &[usize],
) -> (Vec<&'a crate::model::Value>, super::IoNames) {
    let values: Vec<&crate::model::Value> = ids.iter().map(|&v| &input.program.values[v]).collect();
    let names: Vec<&str> = values.iter().map(|v| v.name.as_str()).collect();
    let io = super::io_names(&names);
    (values, io)
}

/// Typed access to each input and output: `NAME_input0_data()` returns the element type's
/// pointer (`int8_t *` for an int8 tensor; `uint8_t *` where C has no type), and
/// `UP_INPUT_<KEY>_DATA()` the same by name. NULL where the value has no memory.
fn io_accessors(
    w: &mut CWriter,
    input: &Input<'_>,
    prefix: &str,
    up: &str,
    inputs: &[usize],
    outputs: &[usize],
) {
    for (side, kind, constness, ids) in [
        ("INPUT", "input", "", inputs),
        ("OUTPUT", "output", "const ", outputs),
    ] {
        let (values, io) = io_side(input, ids);
        for (i, v) in values.iter().enumerate() {
            let c = v.dtype.c_type().unwrap_or("uint8_t");
            w.line(format!(
                "static inline {constness}{c} *{prefix}_{kind}{i}_data(void) {{ return ({constness}{c} *){prefix}_{kind}({i}u, 0); }}"
            ))
            .line(format!(
                "#define {up}_{side}_{}_DATA() {prefix}_{kind}{i}_data()",
                io.keys[i]
            ));
        }
    }
}

/// The model's API, defined in `NAME_program.c` over the runtime: five calls run it; a
/// program with several methods has input, run, output and failed_call per further method,
/// named `NAME_<method>_*`.
fn api(w: &mut CWriter, input: &Input<'_>) {
    let name = input.name;
    let up = upper_ident(name);
    let methods = &input.methods;
    w.blank()
        .define_unsigned(&format!("{up}_INPUT_COUNT"), methods[0].inputs.len())
        .define_unsigned(&format!("{up}_OUTPUT_COUNT"), methods[0].outputs.len());
    io_defines(w, input, &up, &methods[0].inputs, &methods[0].outputs);
    w.comment(&format!(
            "Runs the model (NAME_program.c with the runtime): {name}_init once (binds nothing at run \
             time: every table is const; initializes the delegates), then for every run fill \
             {name}_input (a run may leave other bytes in an input's memory: an NPU reads its \
             inputs inside its scratch), {name}_run, read {name}_output; {name}_deinit destroys \
             the delegates. Input and output \
             addresses are fixed at link time (NULL and size 0 for an index out of range, or a value with no memory)."
        ))
        .line(format!("ap_status_t {name}_init(void);"))
        .line(format!("uint8_t *{name}_input(uint32_t index, uint32_t *size);"))
        .line(format!("ap_status_t {name}_run(void);"))
        .line(format!(
            "const uint8_t *{name}_output(uint32_t index, uint32_t *size);"
        ))
        .line(format!("void {name}_deinit(void);"))
        .comment("The flat instruction index of the call a failed init or run stopped at.")
        .line(format!("uint32_t {name}_failed_call(void);"));
    io_accessors(w, input, name, &up, &methods[0].inputs, &methods[0].outputs);
    if let Some(first) = methods[0].name.as_deref() {
        w.comment(&format!(
            "The functions above run method `{}`; {name}_init and {name}_deinit set up and tear down every method. Methods share memory, as in ExecuTorch, which runs one at a time: fill a method's inputs just before its run and read its outputs just after, since another method's run may overwrite them. State shared between methods keeps its contents from one run to the next.",
            crate::names::comment(first)
        ));
    }
    for m in &methods[1..] {
        let (prefix, up) = (&m.prefix, upper_ident(&m.prefix));
        w.blank()
            .comment(&format!(
                "Method `{}`.",
                crate::names::comment(m.name.as_deref().unwrap_or(""))
            ))
            .define_unsigned(&format!("{up}_INPUT_COUNT"), m.inputs.len())
            .define_unsigned(&format!("{up}_OUTPUT_COUNT"), m.outputs.len());
        io_defines(w, input, &up, &m.inputs, &m.outputs);
        w.line(format!(
            "uint8_t *{prefix}_input(uint32_t index, uint32_t *size);"
        ))
        .line(format!("ap_status_t {prefix}_run(void);"))
        .line(format!(
            "const uint8_t *{prefix}_output(uint32_t index, uint32_t *size);"
        ))
        .line(format!("uint32_t {prefix}_failed_call(void);"));
        io_accessors(w, input, prefix, &up, &m.inputs, &m.outputs);
    }
}
