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
        "Pool `{}` (mem_id {}): arena of {} bytes, capacity {}. Pass with -T after the main script.",
        pool.name, pool.mem_id, plan.size, pool.capacity
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
    w.comment(
        "Every pool's arena of this model: pass with -T after the main script, or INCLUDE it.",
    );
    for f in fragments {
        // File names are the model's base name and pool names: identifiers and dots only.
        w.line(format!("INCLUDE \"{f}\""));
    }
    w.finish()
}
