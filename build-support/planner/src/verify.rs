//! The independent checker: proves a plan valid without trusting the planner.
//!
//! It shares no code with the planner beyond the problem types. It sweeps over time and keeps
//! the live buffers ordered by offset, so a collision shows up between neighbours: `O(n log n)`.
//!
//! A buffer inside another ([`crate::Inside`]) must sit exactly at its offset there, lie
//! within it, and be aligned to its own alignment (its group sets its place, not the pool).
//! It may share bytes with the buffer it is inside, and with that buffer's other members while
//! that buffer is alive; the sweep therefore sees a member only for the part of its lifetime
//! outside the outer buffer's, where it is checked like any other buffer. No other overlap is
//! accepted.

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
    /// A buffer inside another is not where its constraint puts it.
    #[error("buffer {index}: planned at {offset}, but it belongs at {expected} (offset {rel} inside buffer {within}), or it does not lie inside that buffer")]
    MovedMember {
        /// Index of the member.
        index: usize,
        /// Its planned offset.
        offset: u64,
        /// Where its constraint puts it.
        expected: u64,
        /// The buffer it is inside.
        within: usize,
        /// Its offset there.
        rel: u64,
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
    let mut within: Vec<Option<(usize, u64)>> = vec![None; problem.buffers.len()];
    for c in &problem.inside {
        if let Some(w) = within.get_mut(c.member) {
            *w = Some((c.within, c.offset));
        }
    }
    for (index, (b, &offset)) in problem.buffers.iter().zip(offsets).enumerate() {
        let alignment = match within[index] {
            Some(_) => b.alignment.max(1),
            None => b.alignment.max(problem.alignment).max(1),
        };
        if let Some((w, rel)) = within[index] {
            let outer = problem.buffers.get(w);
            let expected = offsets.get(w).map_or(u64::MAX, |o| o.saturating_add(rel));
            let contained = outer.is_some_and(|o| rel.saturating_add(b.size) <= o.size);
            if offset != expected || !contained {
                return Err(VerifyError::MovedMember {
                    index,
                    offset,
                    expected,
                    within: w,
                    rel,
                });
            }
        }
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
    check_collisions(problem, offsets, &within)?;
    Ok(Verified { end })
}

fn check_collisions(
    problem: &Problem,
    offsets: &[u64],
    within: &[Option<(usize, u64)>],
) -> Result<(), VerifyError> {
    // Events (time, kind, index) with kind 0 = end, 1 = start: at the same instant a buffer
    // that ends is gone before one that starts arrives (lifetimes are half-open). A member is
    // swept only while the buffer it is inside is not alive: before it and after it.
    let mut events: Vec<(u64, u8, usize)> = Vec::with_capacity(offsets.len() * 2);
    for (i, b) in problem.buffers.iter().enumerate() {
        if b.size == 0 || b.lower >= b.upper {
            continue;
        }
        let spans = match within[i] {
            None => [(b.lower, b.upper), (0, 0)],
            Some((w, _)) => {
                let o = &problem.buffers[w];
                [
                    (b.lower, b.upper.min(o.lower)),
                    (b.lower.max(o.upper), b.upper),
                ]
            }
        };
        for (lower, upper) in spans {
            if lower < upper {
                events.push((lower, 1, i));
                events.push((upper, 0, i));
            }
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
