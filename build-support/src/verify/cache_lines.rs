//! Which bytes a buffer owns, and where it may start, given its pool's data-cache line: the
//! checker's own statement of the cache-line rule, from the target's facts (the pool's
//! alignment and line), written apart from the rule the pipeline plans by
//! (`targets::Pool::owned_bytes`), so that a bug in that rule is a disagreement here.
//!
//! The rule: a buffer an NPU reads or writes, in a pool whose CPU has a data cache, starts on
//! a line and owns every line it touches, so that cleaning or invalidating it (whole lines,
//! as the backend and the cache do) never touches a neighbour's bytes.

use crate::pipeline::BufferPlan;
use crate::targets::{Pool, Target};

/// The line a buffer in `pool` keeps to: the pool's data-cache line, when the NPU touches it.
fn line(pool: &Pool, npu: bool) -> Option<u64> {
    match (npu, pool.dcache_line) {
        (true, Some(line)) if line > 0 => Some(line),
        _ => None,
    }
}

/// The bytes a buffer of `bytes` owns in `pool`: up to the end of its last line under
/// [`line`], else its own bytes.
pub(super) fn owned(pool: &Pool, bytes: u64, npu: bool) -> u64 {
    match line(pool, npu) {
        Some(line) => match bytes % line {
            0 => bytes,
            partial => bytes.saturating_add(line - partial),
        },
        None => bytes,
    }
}

/// What a buffer's offset in `pool` must be a multiple of: the pool's alignment, and its line
/// under [`line`].
pub(super) fn alignment(pool: &Pool, npu: bool) -> u64 {
    let line = line(pool, npu).unwrap_or(1);
    pool.alignment.max(line).max(1)
}

/// Whether a scratch buffer's planned size is whole lines under [`line`] (the backend cleans
/// and invalidates its scratch by its size, a line at a time).
pub(super) fn whole_lines(pool: &Pool, size: u64, npu: bool) -> bool {
    line(pool, npu).is_none_or(|line| size.is_multiple_of(line))
}

/// The bytes `b` owns in its pool (its size where the target has no such pool: the pool
/// check refuses it).
pub(super) fn extent(target: &Target, b: &BufferPlan, npu: &[bool]) -> u64 {
    match target.pool(b.mem_id) {
        Some(pool) => owned(pool, b.size, npu.get(b.id) == Some(&true)),
        None => b.size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::targets::Catalogue;

    #[test]
    fn an_npu_buffer_owns_whole_lines_from_a_line() {
        let catalogue = Catalogue::builtin();
        let target = catalogue.target("corstone-300").unwrap();
        let sram = target.resolve_spec("npu_scratch").unwrap();
        assert_eq!((sram.alignment, sram.dcache_line), (16, Some(32)));
        assert_eq!(
            [0, 1, 32, 40, 64].map(|b| owned(sram, b, true)),
            [0, 32, 32, 64, 64]
        );
        assert_eq!(owned(sram, 40, false), 40);
        assert_eq!((alignment(sram, true), alignment(sram, false)), (32, 16));
        assert!(whole_lines(sram, 64, true) && !whole_lines(sram, 48, true));
        assert!(whole_lines(sram, 48, false));
        // No overflow at the top of the range: the bytes saturate, never wrap.
        assert_eq!(owned(sram, u64::MAX, true), u64::MAX);
    }

    #[test]
    fn a_pool_without_a_cache_keeps_its_alignment() {
        let catalogue = Catalogue::builtin();
        let target = catalogue.target("mcxn947").unwrap();
        let sram = target.resolve_spec("npu_scratch").unwrap();
        assert_eq!(sram.dcache_line, None);
        assert_eq!(owned(sram, 40, true), 40);
        assert_eq!(alignment(sram, true), sram.alignment.max(1));
    }
}
