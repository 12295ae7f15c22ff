//! The C header and source for integrators.

use std::fmt::Write;

use super::{banner, c_ident, upper_ident, Input, Symbols};

pub(super) fn header(input: &Input<'_>) -> String {
    let mut o = String::new();
    let name = input.name;
    let up = upper_ident(name);
    // Not `ARENAPLAN_<X>_H`: a model named `runtime` would take the runtime header's guard.
    let guard = format!("ARENAPLAN_MODEL_{up}_H");
    let _ = writeln!(o, "/* {} */", banner(input));
    let _ = writeln!(o, "#ifndef {guard}");
    let _ = writeln!(o, "#define {guard}");
    let _ = writeln!(o);
    let _ = writeln!(o, "#include <stdint.h>");
    let _ = writeln!(o);
    let _ = writeln!(o, "#ifdef __cplusplus");
    let _ = writeln!(o, "extern \"C\" {{");
    let _ = writeln!(o, "#endif");
    let _ = writeln!(o);
    let _ = writeln!(o, "{CHECK}");
    let _ = writeln!(
        o,
        "#define {up}_TARGET {}",
        crate::names::c_string(&input.target.name)
    );
    for (pool, plan) in input.pools() {
        let p = upper_ident(&pool.name);
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "/* Pool `{}`: mem_id {}, section {}, region {}. */",
            pool.name, pool.mem_id, pool.section, pool.region
        );
        let _ = writeln!(o, "#define {up}_MEM_ID_{p} {}u", pool.mem_id);
        let _ = writeln!(o, "#define {up}_ARENA_{p}_SIZE {}u", plan.size);
        let _ = writeln!(
            o,
            "#define {up}_ARENA_{p}_ALIGN {}u",
            pool.arena_alignment()
        );
        let _ = writeln!(
            o,
            "#define {up}_POOL_{p}_DCACHE_LINE {}u /* 0: no data cache in front of the pool */",
            pool.dcache_line.unwrap_or(0)
        );
        let _ = writeln!(o, "#define {up}_POOL_{p}_CAPACITY {}u", pool.capacity);
        let _ = writeln!(o, "#define {up}_POOL_{p}_LOWER_BOUND {}u", plan.lower_bound);
        let _ = writeln!(
            o,
            "ARENAPLAN_CHECK({name}_arena_{}_within_capacity, {up}_ARENA_{p}_SIZE <= {up}_POOL_{p}_CAPACITY);",
            c_ident(&pool.name)
        );
    }
    let regions = input.regions();
    if !regions.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "/* Scratch regions: one per buffer of each delegate call. */"
        );
    }
    for r in &regions {
        let _ = writeln!(o, "/* call {}: {} */", r.call, r.about);
        let _ = writeln!(o, "#define {up}_{}_MEM_ID {}u", r.ident, r.mem_id);
        let _ = writeln!(o, "#define {up}_{}_OFFSET {}u", r.ident, r.offset);
        let _ = writeln!(o, "#define {up}_{}_SIZE {}u", r.ident, r.size);
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "#define {up}_BUFFER_COUNT {}u", input.plan.buffers.len());
    let _ = writeln!(o, "#define {up}_CALL_COUNT {}u", input.plan.calls.len());
    let _ = writeln!(o);
    o.push_str(TYPES);
    let _ = writeln!(o);
    for (pool, _) in input.pools() {
        let _ = writeln!(
            o,
            "extern uint8_t {name}_arena_{}[{up}_ARENA_{}_SIZE];",
            c_ident(&pool.name),
            upper_ident(&pool.name)
        );
    }
    if !input.plan.buffers.is_empty() {
        let _ = writeln!(
            o,
            "extern const arenaplan_buffer_t {name}_buffers[{up}_BUFFER_COUNT];"
        );
    }
    if input.symbols == Symbols::C && !input.plan.calls.is_empty() {
        let _ = writeln!(
            o,
            "extern const arenaplan_call_t {name}_calls[{up}_CALL_COUNT];"
        );
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "#ifdef __cplusplus");
    let _ = writeln!(o, "}}");
    let _ = writeln!(o, "#endif");
    let _ = writeln!(o);
    let _ = writeln!(o, "#endif /* {guard} */");
    o
}

/// A compile-time check in ISO C99 (C11's `_Static_assert` is not C99): a false condition gives
/// an array of negative size, and the compiler's error names the check.
const CHECK: &str = "\
/* Compile-time checks: a failing one is an array of negative size named after the check. */
#ifndef ARENAPLAN_CHECK
#define ARENAPLAN_CHECK(name, cond) typedef char arenaplan_check_##name[(cond) ? 1 : -1]
#endif";

const TYPES: &str = "\
#ifndef ARENAPLAN_TABLE_TYPES
#define ARENAPLAN_TABLE_TYPES
/* A planned buffer: value id, pool, offset and size. */
typedef struct arenaplan_buffer {
    uint32_t value;
    uint32_t mem_id;
    uint32_t offset;
    uint32_t size;
} arenaplan_buffer_t;
ARENAPLAN_CHECK(buffer_has_the_rust_layout, sizeof(arenaplan_buffer_t) == 16);

/* One call's flat argument list: inputs, outputs, then scratch. */
typedef struct arenaplan_call {
    uint32_t index;
    uint32_t delegate; /* 1: delegate call, 0: kernel call */
    const char *backend; /* \"\" for kernels */
    const uint32_t *args;
    uint32_t nargs;
    uint32_t inputs;
    uint32_t outputs;
    uint32_t scratch;
} arenaplan_call_t;
#endif
";

pub(super) fn source(input: &Input<'_>) -> String {
    let mut o = String::new();
    let name = input.name;
    let up = upper_ident(name);
    let _ = writeln!(o, "/* {} */", banner(input));
    let _ = writeln!(o, "#include \"{name}.h\"");
    if input.symbols == Symbols::Rust {
        let _ = writeln!(o);
        let _ = writeln!(o, "/* The Rust module defines the arenas and the buffer table; nothing to define here. */");
        return o;
    }
    for (pool, _) in input.pools() {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "/* Pool `{}`: no initialisation; the linker fragment places the section. */",
            pool.name
        );
        let _ = writeln!(
            o,
            "__attribute__((section({}), aligned({}))) uint8_t {name}_arena_{}[{up}_ARENA_{}_SIZE];",
            crate::names::c_string(&pool.section),
            pool.arena_alignment(),
            c_ident(&pool.name),
            upper_ident(&pool.name)
        );
    }
    if !input.plan.buffers.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "const arenaplan_buffer_t {name}_buffers[{up}_BUFFER_COUNT] = {{"
        );
        for b in &input.plan.buffers {
            let _ = writeln!(
                o,
                "    {{{}u, {}u, {}u, {}u}},",
                b.id, b.mem_id, b.offset, b.size
            );
        }
        let _ = writeln!(o, "}};");
    }
    if !input.plan.calls.is_empty() {
        let _ = writeln!(o);
        for c in &input.plan.calls {
            if c.args.is_empty() {
                continue;
            }
            let args: Vec<String> = c.args.iter().map(|a| format!("{a}u")).collect();
            let _ = writeln!(
                o,
                "static const uint32_t {name}_call{}_args[{}] = {{{}}};",
                c.index,
                c.args.len(),
                args.join(", ")
            );
        }
        let _ = writeln!(o);
        let _ = writeln!(
            o,
            "const arenaplan_call_t {name}_calls[{up}_CALL_COUNT] = {{"
        );
        for c in &input.plan.calls {
            let args = if c.args.is_empty() {
                "0".to_owned()
            } else {
                format!("{name}_call{}_args", c.index)
            };
            let _ = writeln!(
                o,
                "    {{{}u, {}u, {}, {args}, {}u, {}u, {}u, {}u}},",
                c.index,
                u8::from(c.backend.is_some()),
                crate::names::c_string(c.backend.as_deref().unwrap_or("")),
                c.args.len(),
                c.inputs,
                c.outputs,
                c.scratch
            );
        }
        let _ = writeln!(o, "}};");
    }
    o
}
