//! The program tables the C runtime runs (`NAME_program.c` / `.h`): tensors, instructions,
//! delegates with their blobs, kernel names — an `ap_program_t` from `arenaplan/runtime.h`.
//! What the tables hold is [`super::tables`]'s: this file only writes it as C, and binds it
//! to the target's arenas and the backends' and kernels' symbols.

use super::tables::{Arguments, InstructionTable, Operation, ValueMemory};
use super::{banner, upper_ident, Blobs, Input, MethodTables};
use crate::backends::{backend_symbol, kernel_symbol, HandleStorage};
use crate::c_writer::CWriter;

pub(super) fn header(input: &Input<'_>) -> String {
    let name = input.name;
    let guard = format!("ARENAPLAN_MODEL_{}_TABLES_H", upper_ident(name));
    let mut w = CWriter::new(&banner(input));
    w.guarded(&guard, |w| {
        w.blank().include("arenaplan/runtime.h").blank();
        w.extern_c(|w| {
            w.comment("The planned program (each method's), for ap_method_init.");
            for m in &input.methods {
                w.line(format!("extern const ap_program_t {}_program;", m.prefix));
            }
            w.comment("Its pools' arenas, for ap_method_init (defined with the arenas).")
                .define_unsigned(
                    &format!("{}_POOL_COUNT", upper_ident(name)),
                    input.pools().len(),
                );
        });
        w.blank();
    });
    w.finish()
}

/// The file blob `d` of model `name` is written to under [`Blobs::Incbin`] (identifier
/// characters only: it lands in a string of the generated assembly).
pub(super) fn blob_file(name: &str, d: usize) -> String {
    format!("{name}_blob{d}.bin")
}

/// The delegates' blobs, 16-byte aligned (as the NPU drivers read them), read-only, in the
/// section the target names: linked from their files, or as C arrays.
fn blobs(w: &mut CWriter, input: &Input<'_>) {
    let name = input.name;
    let section = input.target.blob_section.as_deref();
    let with_blob = || {
        input
            .tables
            .delegates
            .iter()
            .enumerate()
            .filter_map(|(d, delegate)| Some((d, delegate.blob?)))
    };
    match input.blobs {
        Blobs::Incbin => {
            for (d, blob) in with_blob() {
                // The digest makes this file change with the blob's bytes: a build that
                // tracks only C sources (make, CMake) recompiles it when a blob changes.
                w.comment(&format!(
                    "Delegate {d}'s blob: {} bytes, FNV-1a {:#018x}.",
                    blob.len(),
                    arenaplan_syntax::digest::fnv1a(blob)
                ));
                w.line(format!(
                    "AP_INCBIN({name}_blob{d}, {}, {});",
                    CWriter::string(&blob_file(name, d)),
                    CWriter::string(section.unwrap_or(".rodata"))
                ));
            }
        }
        Blobs::CArray => {
            let placed = match section {
                Some(s) => format!(
                    " __attribute__((aligned(16), section({})))",
                    CWriter::string(s)
                ),
                None => " __attribute__((aligned(16)))".to_owned(),
            };
            for (d, blob) in with_blob() {
                w.block(
                    format!(
                        "static const uint8_t {name}_blob{d}[{}]{placed} =",
                        blob.len().max(1)
                    ),
                    ";",
                    |w| {
                        for chunk in blob.chunks(16) {
                            let bytes: Vec<String> =
                                chunk.iter().map(|b| format!("{b:#04x}")).collect();
                            w.line(format!("{},", bytes.join(", ")));
                        }
                        if blob.is_empty() {
                            w.line("0, /* an empty blob: its size says 0 */");
                        }
                    },
                );
            }
        }
    }
}

pub(super) fn source(input: &Input<'_>) -> String {
    let name = input.name;
    let program = input.program;
    let plan = input.plan;
    let mut w = CWriter::new(&banner(input));
    w.include(&format!("{name}.h"))
        .include(&format!("{name}_program.h"));
    if program.state.iter().any(|&v| plan.buffer(v).is_some()) {
        // NAME_init copies state's initial contents, or fills it (zeros without any).
        w.line("#include <string.h>");
    }
    // The headers sizing the delegates' handles.
    let mut headers: Vec<&str> = handles(input).iter().filter_map(|h| h.header).collect();
    headers.sort_unstable();
    headers.dedup();
    for header in headers {
        w.include(header);
    }
    if input.blobs == Blobs::Incbin && program.delegates.iter().any(|d| d.blob.is_some()) {
        w.include("arenaplan/incbin.h");
    }
    w.blank();
    abi_checks(&mut w, input);
    let tables = &input.tables;
    constant_arrays(&mut w, input);
    w.annotated_array(
        format!(
            "static const ap_tensor_desc_t {name}_tensors[{}]",
            tables.values.len().max(1)
        ),
        tables.values.iter().map(|memory| match *memory {
            ValueMemory::Planned {
                mem_id,
                offset,
                size,
            } => (format!("{{{mem_id}u, {offset}u, {size}u, 0}}"), None),
            ValueMemory::Constant { array, size } => (
                format!("{{0u, 0u, {size}u, {name}_const{array}}}"),
                Some("constant, in flash"),
            ),
            ValueMemory::EmptySlot => (
                "{0u, 0u, 0u, 0}".into(),
                Some("empty scratch slot: the backend gets NULL, 0 bytes"),
            ),
            ValueMemory::Unplanned => ("{0u, 0u, 0u, 0}".into(), Some("not planned")),
        }),
    );
    w.blank();
    value_meta(&mut w, input);
    blobs(&mut w, input);
    for (d, delegate) in tables.delegates.iter().enumerate() {
        if delegate.specs.is_empty() {
            continue;
        }
        w.block(
            format!(
                "static const ap_compile_spec_t {name}_specs{d}[{}] =",
                delegate.specs.len()
            ),
            ";",
            |w| {
                for (key, value) in &delegate.specs {
                    w.line(format!(
                        "{{{}, {}}},",
                        CWriter::string(key),
                        CWriter::string(value)
                    ));
                }
            },
        );
    }
    let specs_of = |d: usize| match tables.delegates[d].specs.len() {
        0 => "0, 0u".to_owned(),
        n => format!("{name}_specs{d}, {n}u"),
    };
    w.blank().annotated_array(
        format!(
            "static const ap_delegate_desc_t {name}_delegates[{}]",
            tables.delegates.len().max(1)
        ),
        tables
            .delegates
            .iter()
            .enumerate()
            .map(|(d, delegate)| match delegate.blob {
                Some(blob) => (
                    format!(
                        "{{{}, {name}_blob{d}, {}u, {}}}",
                        CWriter::string(delegate.backend),
                        blob.len(),
                        specs_of(d)
                    ),
                    None,
                ),
                None => (
                    format!("{{{}, 0, 0u, 0, 0u}}", CWriter::string(delegate.backend)),
                    Some("the model carries no blob"),
                ),
            }),
    );
    w.blank();
    w.inline_array(
        format!(
            "static const char *const {name}_kernels[{}]",
            tables.kernels.len().max(1)
        ),
        tables.kernels.iter().map(|k| CWriter::string(k)),
        "0",
    )
    .blank();
    for c in &tables.calls {
        w.inline_array(
            format!(
                "static const uint32_t {name}_args{}[{}]",
                c.flat,
                c.args.len().max(1)
            ),
            c.args.iter().map(|a| format!("{a}u")),
            "0u",
        );
    }
    for instruction in &tables.instructions {
        if let Arguments::Predicate { step, value } = instruction.arguments {
            w.line(format!(
                "static const uint32_t {name}_predicate{step}[1] = {{{value}u}};"
            ));
        }
    }
    let methods = &input.methods;
    for m in methods {
        method_program(&mut w, input, m, methods.len() > 1);
    }
    bound(&mut w, input, methods);
    for m in methods {
        super::program_api::api(&mut w, input, m, tables.has_jumps() || methods.len() > 1);
    }
    w.finish()
}

/// Method `m`'s instruction table (its run of the program's, jumps and delegates counted from
/// its first), inputs, outputs and `ap_program_t`; the values, kernels and argument lists are
/// the program's.
fn method_program(w: &mut CWriter, input: &Input<'_>, m: &MethodTables, several: bool) {
    let (name, tables) = (input.name, &input.tables);
    let prefix = &m.prefix;
    if several {
        w.blank().comment(&format!(
            "Method `{}`.",
            crate::names::comment(m.name.as_deref().unwrap_or(""))
        ));
    }
    let entries = &tables.instructions[m.steps.clone()];
    w.blank().array(
        format!(
            "static const ap_instruction_t {prefix}_instructions[{}]",
            m.steps.len().max(1)
        ),
        entries.iter().map(|i| instruction(input, i)),
    );
    if tables.has_jumps() || several {
        w.comment(
            "The flat instruction index of each entry (a jump: its branch's), for failed_call.",
        )
        .inline_array(
            format!(
                "static const uint32_t {prefix}_flat_index[{}]",
                m.steps.len().max(1)
            ),
            entries.iter().map(|i| format!("{}u", i.flat)),
            "0u",
        );
    }
    w.blank();
    let list = |ids: &[usize]| ids.iter().map(|i| format!("{i}u")).collect::<Vec<_>>();
    let inputs = list(&m.inputs);
    let outputs = list(&m.outputs);
    w.inline_array(
        format!(
            "static const uint32_t {prefix}_inputs[{}]",
            inputs.len().max(1)
        ),
        inputs.iter().cloned(),
        "0u",
    )
    .inline_array(
        format!(
            "static const uint32_t {prefix}_outputs[{}]",
            outputs.len().max(1)
        ),
        outputs.iter().cloned(),
        "0u",
    )
    .blank();
    w.block(format!("const ap_program_t {prefix}_program ="), ";", |w| {
        w.line(format!("{name}_tensors, {}u,", tables.values.len()))
            .line(format!("{prefix}_instructions, {}u,", m.steps.len()))
            .line(format!(
                "{name}_delegates{}, {}u,",
                offset(m.delegates.start),
                m.delegates.len()
            ))
            .line(format!("{name}_kernels, {}u,", tables.kernels.len()))
            .line(format!("{prefix}_inputs, {}u,", inputs.len()))
            .line(format!("{prefix}_outputs, {}u,", outputs.len()))
            .line(format!("{name}_meta,"));
    });
}

/// One `ap_instruction_t` initializer: its argument list is a call's `NAME_args<flat>` or a
/// jump's `NAME_predicate<step>`.
fn instruction(input: &Input<'_>, i: &InstructionTable) -> String {
    let name = input.name;
    let (kind, index) = match i.operation {
        Operation::Kernel(k) => ("AP_INSTR_KERNEL", k),
        Operation::Delegate(d) => ("AP_INSTR_DELEGATE", d),
        Operation::JumpFalse(to) => ("AP_INSTR_JUMP_FALSE", to),
        Operation::Jump(to) => ("AP_INSTR_JUMP", to),
    };
    let args = match i.arguments {
        Arguments::Call(k) => format!("{name}_args{}", input.tables.calls[k].flat),
        Arguments::Predicate { step, .. } => format!("{name}_predicate{step}"),
        Arguments::Nothing => "0".to_owned(),
    };
    format!(
        "{{{kind}, {index}u, {args}, {}u, {}u, {}u}}",
        input.tables.arguments(i).len(),
        i.inputs,
        i.outputs
    )
}

/// What each value is (`ap_value_meta_t`), for kernels: one dimensions array per distinct
/// shape, one dim order array per distinct non-contiguous order, and one entry per value.
fn value_meta(w: &mut CWriter, input: &Input<'_>) {
    let name = input.name;
    let metas = &input.tables.meta;
    for (k, dims) in metas.shapes.iter().enumerate() {
        w.inline_array(
            format!("static const uint32_t {name}_dims{k}[{}]", dims.len()),
            dims.iter().map(|d| format!("{d}u")),
            "0u",
        );
    }
    for (k, order) in metas.orders.iter().enumerate() {
        w.inline_array(
            format!("static const uint8_t {name}_order{k}[{}]", order.len()),
            order.iter().map(|d| format!("{d}u")),
            "0u",
        );
    }
    w.array(
        format!(
            "static const ap_value_meta_t {name}_meta[{}]",
            metas.entries.len().max(1)
        ),
        metas
            .entries
            .iter()
            .enumerate()
            .map(|(v, (kind, dtype, dims))| {
                let table = match metas.shape_of(v) {
                    Some(k) => format!("{name}_dims{k}"),
                    None => "0".into(),
                };
                let order = match metas.order_of(v) {
                    Some(k) => format!("{name}_order{k}"),
                    None => "0".into(),
                };
                format!(
                    "{{{}, {dtype}u, {}u, {table}, {order}}}",
                    kind.c_name(),
                    dims.len()
                )
            }),
    );
    w.blank();
}

/// ` + k` after an array naming its element k, nothing for 0.
fn offset(k: usize) -> String {
    if k == 0 {
        String::new()
    } else {
        format!(" + {k}")
    }
}

/// The struct and handle sizes the report counts (`report::ILP32_SIZES`, the backends'
/// handles), checked against the C compiler's own `sizeof` when the program is built for a
/// 32-bit target: the one place those numbers meet the real layout.
fn abi_checks(w: &mut CWriter, input: &Input<'_>) {
    // ARENAPLAN_CHECK comes with NAME.h, included above.
    w.comment("The report counts these at their 32-bit sizes: a 32-bit build checks each.");
    w.line("#if UINTPTR_MAX == 0xFFFFFFFFu");
    for (c_type, bytes) in crate::report::ILP32_SIZES {
        let id: String = c_type
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        w.line(format!(
            "ARENAPLAN_CHECK(ilp32_sizeof_{id}, sizeof({c_type}) == {bytes}u);"
        ));
    }
    let mut sized: Vec<HandleStorage> = handles(input)
        .into_iter()
        .filter(|h| h.bytes_32 > 0)
        .collect();
    sized.sort_unstable_by_key(|h| h.c_size);
    sized.dedup_by_key(|h| h.c_size);
    for h in sized {
        w.line(format!(
            "ARENAPLAN_CHECK(ilp32_handle_{}, {} == {}u);",
            h.c_size, h.c_size, h.bytes_32
        ));
    }
    w.line("#endif");
    w.blank();
}

/// The handle each delegate gets: its backend's (none for a backend written in Rust).
fn handles(input: &Input<'_>) -> Vec<HandleStorage> {
    input
        .program
        .delegates
        .iter()
        .map(|d| input.declared.handle_storage(&d.backend))
        .collect()
}

/// The constants' bytes, one array each, in flash.
fn constant_arrays(w: &mut CWriter, input: &Input<'_>) {
    let name = input.name;
    let constants = &input.tables.constants;
    for (c, array) in constants.iter().enumerate() {
        let names: Vec<String> = array
            .values
            .iter()
            .map(|&v| crate::names::comment(&input.program.values[v].name))
            .collect();
        w.comment(&format!("Constant of {}.", names.join(", ")));
        w.block(
            format!(
                "static const uint8_t {name}_const{c}[{}] __attribute__((aligned({}))) =",
                array.bytes.len(),
                array.align
            ),
            ";",
            |w| {
                for chunk in array.bytes.chunks(16) {
                    let bytes: Vec<String> = chunk.iter().map(|b| format!("{b:#04x}")).collect();
                    w.line(format!("{},", bytes.join(", ")));
                }
            },
        );
    }
    if !constants.is_empty() {
        w.blank();
    }
}

/// The program bound at build time: each value's memory as a link-time constant, each
/// delegate's backend and each kernel as a symbol, all const; RAM only for the handles, one
/// argument list and the method.
fn bound(w: &mut CWriter, input: &Input<'_>, methods: &[MethodTables]) {
    let name = input.name;
    let tables = &input.tables;
    w.comment("Bound at build time (flash): where each value lives, each delegate's backend and each kernel.");
    let values = tables.values.iter().map(|memory| match *memory {
        ValueMemory::Planned {
            mem_id,
            offset,
            size,
        } => match input.target.pool(mem_id) {
            Some(pool) => (
                format!(
                    "{{{name}_arena_{} + {offset}u, {size}u}}",
                    crate::names::ident(&pool.name),
                ),
                None,
            ),
            None => ("{0, 0u}".to_owned(), Some("no pool")),
        },
        // Never written: the runtime refuses a constant as an output or scratch.
        ValueMemory::Constant { array, size } => (
            format!("{{(uint8_t *){name}_const{array}, {size}u}}"),
            Some("constant, in flash"),
        ),
        ValueMemory::EmptySlot | ValueMemory::Unplanned => {
            ("{0, 0u}".to_owned(), Some("no memory"))
        }
    });
    w.annotated_array(
        format!(
            "static const ap_buffer_t {name}_values[{}]",
            tables.values.len().max(1)
        ),
        values,
    );
    let mut externs: Vec<String> = Vec::new();
    let backends: Vec<String> = tables
        .delegates
        .iter()
        .map(|d| backend_symbol(d.backend))
        .collect();
    let kernel_symbols: Vec<String> = tables.kernels.iter().map(|k| kernel_symbol(k)).collect();
    for symbol in &backends {
        let line = format!("extern const ap_backend_t {symbol};");
        if !externs.contains(&line) {
            externs.push(line);
        }
    }
    for symbol in &kernel_symbols {
        let line = format!("extern const ap_kernel_t {symbol};");
        if !externs.contains(&line) {
            externs.push(line);
        }
    }
    for line in externs {
        w.line(line);
    }
    w.inline_array(
        format!(
            "static const ap_backend_t *const {name}_backends[{}]",
            backends.len().max(1)
        ),
        backends.iter().map(|s| format!("&{s}")),
        "0",
    );
    w.inline_array(
        format!(
            "static const ap_kernel_t *const {name}_kernel_fns[{}]",
            kernel_symbols.len().max(1)
        ),
        kernel_symbols.iter().map(|s| format!("&{s}")),
        "0",
    );
    let nargs = tables.longest_call();
    w.comment("RAM: each delegate's handle, sized to what its backend keeps (none for a backend written in Rust), one argument list, the method.");
    let storage = handles(input);
    for (d, h) in storage.iter().enumerate() {
        if h.bytes_32 > 0 {
            // 16-byte aligned: a backend may keep a driver's context at a 16-byte offset.
            let (size, _) = crate::backends::delegate_handle(h, &input.program.delegates[d]);
            w.line(format!(
                "static uint8_t {name}_handle{d}[{size}] __attribute__((aligned(16)));"
            ));
        }
    }
    w.inline_array(
        format!(
            "static ap_handle_t *const {name}_handles[{}]",
            storage.len().max(1)
        ),
        storage.iter().enumerate().map(|(d, h)| {
            if h.bytes_32 > 0 {
                format!("(ap_handle_t *)(void *){name}_handle{d}")
            } else {
                "0".to_owned()
            }
        }),
        "0",
    )
    .inline_array(
        format!(
            "static const uint32_t {name}_handle_sizes[{}]",
            storage.len().max(1)
        ),
        storage.iter().enumerate().map(|(d, h)| {
            if h.bytes_32 > 0 {
                format!("sizeof {name}_handle{d}")
            } else {
                "0u".to_owned()
            }
        }),
        "0u",
    );
    w.line(format!(
        "static ap_buffer_t {name}_arg_list[{}];",
        nargs.max(1)
    ));
    // Each method its own method state and bound program over the same values and argument
    // list (one method runs at a time), with its own delegates' backends and handles.
    for m in methods {
        let (prefix, d) = (&m.prefix, offset(m.delegates.start));
        w.line(format!("static ap_method_t {prefix}_method;"));
        w.block(
            format!("static const ap_bound_program_t {prefix}_bound ="),
            ";",
            |w| {
                w.line(format!(
                    "&{prefix}_program, {name}_values, {name}_backends{d}, {name}_kernel_fns,"
                ))
                .line(format!(
                    "{name}_handles{d}, {name}_handle_sizes{d}, {name}_arg_list, {nargs}u,"
                ));
            },
        );
    }
}
