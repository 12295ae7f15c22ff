//! The planner's working view of a buffer: padded size and effective alignment resolved.

use crate::problem::Problem;

/// A buffer as the placement algorithms see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Item {
    /// Size rounded up to `align`: the room reserved.
    pub size: u64,
    /// Effective alignment (buffer's and pool's, whichever is larger).
    pub align: u64,
    /// First instruction alive.
    pub lower: u64,
    /// First instruction no longer alive.
    pub upper: u64,
    /// Offset pinned in advance.
    pub fixed: Option<u64>,
}

impl Item {
    /// A free item of alignment 1, for tests.
    #[cfg(test)]
    pub fn free(size: u64, lower: u64, upper: u64) -> Self {
        Item {
            size,
            align: 1,
            lower,
            upper,
            fixed: None,
        }
    }

    /// Items for every buffer of a validated problem, in the problem's order.
    pub fn from_problem(problem: &Problem) -> Vec<Item> {
        problem
            .buffers
            .iter()
            .map(|b| Item {
                size: b.padded_size(problem.alignment),
                align: b.effective_alignment(problem.alignment),
                lower: b.lower,
                upper: b.upper,
                fixed: b.fixed_offset,
            })
            .collect()
    }

    /// One past the last byte when placed at `offset`.
    pub fn end_at(&self, offset: u64) -> u64 {
        offset + self.size
    }
}

/// Highest end over a placement: the arena it needs.
pub(crate) fn arena_of(items: &[Item], offsets: &[u64]) -> u64 {
    items
        .iter()
        .zip(offsets)
        .map(|(item, &o)| item.end_at(o))
        .max()
        .unwrap_or(0)
}
