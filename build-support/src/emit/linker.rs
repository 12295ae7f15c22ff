//! Linker-script fragments: one NOLOAD output section per pool.

use std::fmt::Write;

use super::{banner, c_ident, Input};
use crate::pipeline::PoolPlan;
use crate::targets::Pool;

/// A fragment for GNU ld / lld: the pool's section in its memory region, inserted before
/// `.bss` (inserting after it would put the arena inside the range cortex-m-rt zeroes at
/// start-up), with an assertion on the pool's capacity.
pub(super) fn fragment(input: &Input<'_>, pool: &Pool, plan: &PoolPlan) -> String {
    let mut o = String::new();
    let sym = format!("__arenaplan_{}_{}", input.name, c_ident(&pool.name));
    let _ = writeln!(o, "/* {} */", banner(input));
    let _ = writeln!(
        o,
        "/* Pool `{}` (mem_id {}): arena of {} bytes, capacity {}. Pass with -T after the main script. */",
        pool.name, pool.mem_id, plan.size, pool.capacity
    );
    let _ = writeln!(o, "SECTIONS");
    let _ = writeln!(o, "{{");
    let _ = writeln!(
        o,
        "  .arenaplan.{} (NOLOAD) : ALIGN({})",
        c_ident(&pool.name),
        pool.alignment
    );
    let _ = writeln!(o, "  {{");
    let _ = writeln!(o, "    {sym}_start = .;");
    let _ = writeln!(o, "    KEEP(*({} {}.*))", pool.section, pool.section);
    let _ = writeln!(o, "    {sym}_end = .;");
    let _ = writeln!(o, "  }} > {}", pool.region);
    let _ = writeln!(o, "}}");
    let _ = writeln!(o, "INSERT BEFORE .bss;");
    let _ = writeln!(
        o,
        "ASSERT({sym}_end - {sym}_start <= {}, \"arenaplan: the arenas in pool {} exceed its {} bytes\");",
        pool.capacity, pool.name, pool.capacity
    );
    o
}
