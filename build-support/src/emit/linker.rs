//! Linker-script fragments: one NOLOAD output section per pool.

use super::{banner, c_ident, Input};
use crate::c_writer::CWriter;
use crate::pipeline::PoolPlan;
use crate::targets::Pool;

/// A fragment for lld (and GNU ld when included from the main script, as cortex-m-rt's
/// `memory.x` is): the pool's section in its memory region, NOLOAD (no load image, no
/// initialisation), inserted before `.bss`, with an assertion on the pool's capacity. The input
/// section names (`.arenaplan.<pool>` in the catalogue) must not match the main script's `.bss`
/// patterns, or `.bss` would claim the arenas first and cortex-m-rt would zero them at start-up.
pub(super) fn fragment(input: &Input<'_>, pool: &Pool, plan: &PoolPlan) -> String {
    let sym = format!("__arenaplan_{}_{}", input.name, c_ident(&pool.name));
    let mut w = CWriter::new(&banner(input));
    w.comment(&format!(
        "Pool `{}` (mem_id {}): arena of {} bytes, capacity {}, in memory region `{}`, which memory.x (or the main script) must define. Included by {}.x.",
        pool.name, pool.mem_id, plan.size, pool.capacity, pool.region, input.name
    ));
    w.line("SECTIONS").line("{");
    // The linker script's own two-space layout inside SECTIONS.
    w.line(format!(
        "  .arenaplan.{} (NOLOAD) : ALIGN({})",
        c_ident(&pool.name),
        pool.arena_alignment()
    ))
    .line("  {")
    .line(format!("    {sym}_start = .;"))
    .line(format!("    KEEP(*({} {}.*))", pool.section, pool.section))
    .line(format!("    {sym}_end = .;"))
    .line(format!("  }} > {}", pool.region))
    .line("}")
    .line("INSERT BEFORE .bss;")
    .line(format!(
        "ASSERT({sym}_end - {sym}_start <= {}, \"arenaplan: the arenas in pool {} exceed its {} bytes\");",
        pool.capacity,
        crate::names::ld_string(&pool.name),
        pool.capacity
    ));
    w.finish()
}

/// The model's linker script, `NAME.x`: one `INCLUDE` per pool's fragment, so a firmware build
/// passes one file (`-TNAME.x` after the main script with lld, with the output folder on the
/// library search path; or `INCLUDE NAME.x` from `memory.x` with GNU ld).
pub(super) fn script(input: &Input<'_>, fragments: &[String]) -> String {
    let mut w = CWriter::new(&banner(input));
    let regions: Vec<&str> = input
        .pools()
        .iter()
        .map(|(p, _)| p.region.as_str())
        .collect();
    w.comment(&format!(
        "Every pool's arena of this model. With lld (rustc's linker for Cortex-M): pass -T{0}.x after the main script (cortex-m-rt's -Tlink.x), with this folder on the library search path. With GNU ld (arm-none-eabi-gcc): write INCLUDE {0}.x at the end of memory.x instead, this folder again on the search path (-L); GNU ld refuses the INSERT of a -T script given on the command line (\".bss not found for insert\"). The memory regions it places arenas in must be defined: {1}.",
        input.name,
        regions.join(", ")
    ));
    for f in fragments {
        // File names are the model's base name and pool names: identifiers and dots only.
        w.line(format!("INCLUDE \"{f}\""));
    }
    w.finish()
}
