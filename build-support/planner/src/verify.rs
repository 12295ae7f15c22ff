//! The independent checker: proves a plan valid without trusting the planner.
//!
//! It shares no code with the planner beyond the problem types. It sweeps over time and keeps
//! the live buffers ordered by offset, so a collision shows up between neighbours: `O(n log n)`.

use std::collections::BTreeMap;
use std::fmt;

use thiserror::Error;

use crate::Problem;

/// What the checker proved about a valid plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verified {
    /// Highest byte used plus one: `max(offset + size)` over all buffers.
    pub end: u64,
}

/// Why a plan is invalid. Any of these coming out of the planner is a planner bug.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum VerifyError {
    /// The plan does not give exactly one offset per buffer.
    #[error("the plan has {offsets} offsets for {buffers} buffers")]
    WrongCount {
        /// Offsets in the plan.
        offsets: usize,
        /// Buffers in the problem.
        buffers: usize,
    },
    /// An offset that is not a multiple of the buffer's alignment.
    #[error("buffer {index}: offset {offset} is not a multiple of {alignment}")]
    Misaligned {
        /// Index of the buffer.
        index: usize,
        /// Its offset.
        offset: u64,
        /// Its effective alignment.
        alignment: u64,
    },
    /// A buffer that reaches past the pool's capacity.
    #[error("buffer {index}: ends at {end}, past the capacity of {capacity} bytes")]
    OverCapacity {
        /// Index of the buffer.
        index: usize,
        /// `offset + size`.
        end: u64,
        /// The pool capacity.
        capacity: u64,
    },
    /// A pinned buffer moved.
    #[error("buffer {index}: pinned at {fixed} but planned at {offset}")]
    MovedPinned {
        /// Index of the buffer.
        index: usize,
        /// The pinned offset.
        fixed: u64,
        /// The planned offset.
        offset: u64,
    },
    /// Two buffers alive at the same time share bytes.
    #[error("{0}")]
    Collision(Collision),
    /// `offset + size` does not fit in 64 bits.
    #[error("buffer {index}: offset {offset} + size overflows")]
    Overflow {
        /// Index of the buffer.
        index: usize,
        /// Its offset.
        offset: u64,
    },
}

/// Two buffers that overlap in both time and memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Collision {
    /// Index of one buffer.
    pub first: usize,
    /// Index of the other.
    pub second: usize,
    /// An instruction at which both are alive.
    pub at_time: u64,
}

impl fmt::Display for Collision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "buffers {} and {} overlap in memory while both are alive (at instruction {})",
            self.first, self.second, self.at_time
        )
    }
}

/// Checks that `offsets` is a valid plan for `problem`: one offset per buffer, aligned,
/// pinned buffers in place, within capacity, and no two buffers alive at the same time
/// sharing a byte. Sizes are checked as declared (not padded).
///
/// ```
/// use arenaplan_planner::{Buffer, Problem};
/// use arenaplan_planner::verify::verify;
/// let p = Problem::new(vec![Buffer::new(8, 0, 2), Buffer::new(8, 1, 3)]);
/// assert_eq!(verify(&p, &[0, 8]).unwrap().end, 16);
/// assert!(verify(&p, &[0, 4]).is_err());
/// ```
pub fn verify(problem: &Problem, offsets: &[u64]) -> Result<Verified, VerifyError> {
    if offsets.len() != problem.buffers.len() {
        return Err(VerifyError::WrongCount {
            offsets: offsets.len(),
            buffers: problem.buffers.len(),
        });
    }
    let mut end = 0u64;
    for (index, (b, &offset)) in problem.buffers.iter().zip(offsets).enumerate() {
        let alignment = b.alignment.max(problem.alignment).max(1);
        if offset % alignment != 0 {
            return Err(VerifyError::Misaligned {
                index,
                offset,
                alignment,
            });
        }
        if let Some(fixed) = b.fixed_offset {
            if fixed != offset {
                return Err(VerifyError::MovedPinned {
                    index,
                    fixed,
                    offset,
                });
            }
        }
        let buffer_end = offset
            .checked_add(b.size)
            .ok_or(VerifyError::Overflow { index, offset })?;
        if let Some(capacity) = problem.capacity {
            if buffer_end > capacity {
                return Err(VerifyError::OverCapacity {
                    index,
                    end: buffer_end,
                    capacity,
                });
            }
        }
        end = end.max(buffer_end);
    }
    check_collisions(problem, offsets)?;
    Ok(Verified { end })
}

fn check_collisions(problem: &Problem, offsets: &[u64]) -> Result<(), VerifyError> {
    // Events (time, kind, index) with kind 0 = end, 1 = start: at the same instant a buffer
    // that ends is gone before one that starts arrives (lifetimes are half-open).
    let mut events: Vec<(u64, u8, usize)> = Vec::with_capacity(offsets.len() * 2);
    for (i, b) in problem.buffers.iter().enumerate() {
        if b.size > 0 && b.lower < b.upper {
            events.push((b.lower, 1, i));
            events.push((b.upper, 0, i));
        }
    }
    events.sort_unstable();
    // Live buffers keyed by (offset, index) -> end. They are pairwise disjoint, so a new
    // buffer collides with some live buffer iff it collides with its neighbour on either side.
    let mut live: BTreeMap<(u64, usize), u64> = BTreeMap::new();
    for (time, kind, i) in events {
        let start = offsets[i];
        if kind == 0 {
            live.remove(&(start, i));
            continue;
        }
        let end = start + problem.buffers[i].size;
        let below = live.range(..(start, i)).next_back();
        if let Some((&(_, j), &j_end)) = below {
            if j_end > start {
                return Err(collision(i, j, time));
            }
        }
        let above = live.range((start, i)..).next();
        if let Some((&(j_start, j), _)) = above {
            if j_start < end {
                return Err(collision(i, j, time));
            }
        }
        live.insert((start, i), end);
    }
    Ok(())
}

fn collision(a: usize, b: usize, at_time: u64) -> VerifyError {
    VerifyError::Collision(Collision {
        first: a.min(b),
        second: a.max(b),
        at_time,
    })
}
