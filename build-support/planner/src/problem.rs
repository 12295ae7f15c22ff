//! The planning problem: buffers with sizes, alignments and lifetimes, in one pool.

use thiserror::Error;

/// One buffer to place: a tensor or a delegate's scratch.
///
/// Lifetimes are half-open: the buffer is alive during instructions `lower..upper`, so a
/// buffer used by instructions `first..=last` has `lower = first`, `upper = last + 1`.
///
/// ```
/// use arenaplan_planner::Buffer;
/// let b = Buffer::new(1024, 3, 7).with_alignment(16);
/// assert_eq!(b.padded_size(16), 1024);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Buffer {
    /// Size in bytes.
    pub size: u64,
    /// Required alignment of the offset, in bytes (at least 1). The pool's own alignment
    /// applies on top: the effective alignment is the larger of the two.
    pub alignment: u64,
    /// First instruction during which the buffer is alive.
    pub lower: u64,
    /// First instruction after `lower` during which the buffer is no longer alive.
    pub upper: u64,
    /// An offset fixed in advance (by an offline plan); the planner keeps it.
    pub fixed_offset: Option<u64>,
}

impl Buffer {
    /// A buffer of `size` bytes alive during `[lower, upper)`, alignment 1, not pinned.
    pub fn new(size: u64, lower: u64, upper: u64) -> Self {
        Buffer {
            size,
            alignment: 1,
            lower,
            upper,
            fixed_offset: None,
        }
    }

    /// The same buffer with an alignment requirement.
    pub fn with_alignment(mut self, alignment: u64) -> Self {
        self.alignment = alignment;
        self
    }

    /// The same buffer pinned at `offset`.
    pub fn pinned_at(mut self, offset: u64) -> Self {
        self.fixed_offset = Some(offset);
        self
    }

    /// Effective alignment in a pool whose own alignment is `pool_alignment`.
    pub fn effective_alignment(&self, pool_alignment: u64) -> u64 {
        self.alignment.max(pool_alignment).max(1)
    }

    /// Size rounded up to the effective alignment: the room the planner reserves.
    ///
    /// Saturates at `u64::MAX`; [`Problem::validate`] rejects sizes where that could matter.
    pub fn padded_size(&self, pool_alignment: u64) -> u64 {
        round_up(self.size, self.effective_alignment(pool_alignment))
    }

    /// Whether two buffers are alive at the same time.
    pub fn overlaps_in_time(&self, other: &Buffer) -> bool {
        self.lower < other.upper && other.lower < self.upper
    }
}

/// Rounds `value` up to a multiple of `alignment` (saturating).
#[inline]
pub(crate) fn round_up(value: u64, alignment: u64) -> u64 {
    let a = alignment.max(1);
    // Alignments are nearly always powers of two, and the search rounds in its inner loop: a
    // mask instead of a division there.
    let r = if a.is_power_of_two() {
        value & (a - 1)
    } else {
        value % a
    };
    match r {
        0 => value,
        r => value.saturating_add(a - r),
    }
}

/// All buffers of one pool, and the pool's constraints.
///
/// ```
/// use arenaplan_planner::{Buffer, Problem};
/// let p = Problem::new(vec![Buffer::new(64, 0, 2), Buffer::new(32, 1, 3)]).with_alignment(16);
/// assert!(p.validate().is_ok());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problem {
    /// The buffers; a plan gives one offset per buffer, in this order.
    pub buffers: Vec<Buffer>,
    /// The pool's alignment: every offset is a multiple of it (at least 1).
    pub alignment: u64,
    /// The pool's capacity in bytes, if it has one.
    pub capacity: Option<u64>,
}

/// Largest size or offset the planner accepts: sums of many such values must not overflow.
pub const MAX_BYTES: u64 = 1 << 48;

/// A problem that cannot be planned as stated.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProblemError {
    /// A buffer's lifetime is empty or reversed.
    #[error("buffer {index}: upper ({upper}) must be greater than lower ({lower})")]
    EmptyLifetime {
        /// Index of the buffer.
        index: usize,
        /// Its `lower`.
        lower: u64,
        /// Its `upper`.
        upper: u64,
    },
    /// An alignment of zero.
    #[error("buffer {index}: alignment must be at least 1")]
    ZeroAlignment {
        /// Index of the buffer.
        index: usize,
    },
    /// The pool's alignment is zero.
    #[error("pool alignment must be at least 1")]
    ZeroPoolAlignment,
    /// The pool's alignment is beyond what the planner handles.
    #[error("pool alignment {value} exceeds the supported maximum of {MAX_BYTES} bytes")]
    PoolAlignmentTooLarge {
        /// The alignment given.
        value: u64,
    },
    /// A size, alignment or offset beyond what the planner handles.
    #[error("buffer {index}: {what} {value} exceeds the supported maximum of {MAX_BYTES} bytes")]
    TooLarge {
        /// Index of the buffer.
        index: usize,
        /// Which quantity.
        what: &'static str,
        /// Its value.
        value: u64,
    },
    /// A pinned offset that breaks the buffer's alignment.
    #[error(
        "buffer {index}: fixed offset {offset} is not a multiple of its alignment {alignment}"
    )]
    MisalignedFixedOffset {
        /// Index of the buffer.
        index: usize,
        /// The pinned offset.
        offset: u64,
        /// The effective alignment.
        alignment: u64,
    },
    /// The sizes add up to more than the planner's arithmetic allows.
    #[error("the buffers' sizes add up to more than 2^62 bytes")]
    TotalTooLarge,
    /// Two pinned buffers alive at the same time share memory.
    #[error("buffers {first} and {second} are both pinned and overlap in time and memory")]
    FixedOverlap {
        /// Index of one buffer.
        first: usize,
        /// Index of the other.
        second: usize,
    },
}

impl ProblemError {
    /// The index of the buffer the error is about, if it is about one (the first of a pair).
    ///
    /// ```
    /// use arenaplan_planner::{Buffer, Problem};
    /// let p = Problem::new(vec![Buffer::new(4, 0, 1), Buffer::new(4, 3, 3)]);
    /// assert_eq!(p.validate().unwrap_err().buffer_index(), Some(1));
    /// ```
    pub fn buffer_index(&self) -> Option<usize> {
        match self {
            ProblemError::EmptyLifetime { index, .. }
            | ProblemError::ZeroAlignment { index }
            | ProblemError::TooLarge { index, .. }
            | ProblemError::MisalignedFixedOffset { index, .. } => Some(*index),
            ProblemError::FixedOverlap { first, .. } => Some(*first),
            ProblemError::ZeroPoolAlignment
            | ProblemError::PoolAlignmentTooLarge { .. }
            | ProblemError::TotalTooLarge => None,
        }
    }
}

impl Problem {
    /// A problem with alignment 1 and no capacity.
    pub fn new(buffers: Vec<Buffer>) -> Self {
        Problem {
            buffers,
            alignment: 1,
            capacity: None,
        }
    }

    /// Sets the pool alignment.
    pub fn with_alignment(mut self, alignment: u64) -> Self {
        self.alignment = alignment;
        self
    }

    /// Sets the pool capacity.
    pub fn with_capacity(mut self, capacity: u64) -> Self {
        self.capacity = Some(capacity);
        self
    }

    /// Checks that the problem can be planned: lifetimes non-empty, alignments positive,
    /// quantities in range, pinned buffers aligned and not overlapping each other.
    pub fn validate(&self) -> Result<(), ProblemError> {
        if self.alignment == 0 {
            return Err(ProblemError::ZeroPoolAlignment);
        }
        if self.alignment > MAX_BYTES {
            return Err(ProblemError::PoolAlignmentTooLarge {
                value: self.alignment,
            });
        }
        for (index, b) in self.buffers.iter().enumerate() {
            if b.upper <= b.lower {
                return Err(ProblemError::EmptyLifetime {
                    index,
                    lower: b.lower,
                    upper: b.upper,
                });
            }
            if b.alignment == 0 {
                return Err(ProblemError::ZeroAlignment { index });
            }
            for (what, value) in [("size", b.size), ("alignment", b.alignment)] {
                if value > MAX_BYTES {
                    return Err(ProblemError::TooLarge { index, what, value });
                }
            }
            if let Some(offset) = b.fixed_offset {
                if offset > MAX_BYTES {
                    return Err(ProblemError::TooLarge {
                        index,
                        what: "fixed offset",
                        value: offset,
                    });
                }
                let alignment = b.effective_alignment(self.alignment);
                if offset % alignment != 0 {
                    return Err(ProblemError::MisalignedFixedOffset {
                        index,
                        offset,
                        alignment,
                    });
                }
            }
        }
        // Every offset the planner computes is at most the sum of all padded sizes (plus one
        // pinned offset); bounding it keeps all arithmetic exact.
        let total = self
            .buffers
            .iter()
            .map(|b| u128::from(b.padded_size(self.alignment)))
            .sum::<u128>();
        if total > 1 << 62 {
            return Err(ProblemError::TotalTooLarge);
        }
        self.check_pinned_disjoint()
    }

    fn check_pinned_disjoint(&self) -> Result<(), ProblemError> {
        let pinned: Vec<(usize, u64)> = self
            .buffers
            .iter()
            .enumerate()
            .filter_map(|(i, b)| b.fixed_offset.map(|o| (i, o)))
            .collect();
        // Pinned buffers come from offline plans and are few; a pairwise check is enough.
        for (k, &(i, oi)) in pinned.iter().enumerate() {
            for &(j, oj) in &pinned[k + 1..] {
                let (a, b) = (&self.buffers[i], &self.buffers[j]);
                let disjoint_memory = oi + a.size <= oj || oj + b.size <= oi;
                if a.overlaps_in_time(b) && !disjoint_memory && a.size > 0 && b.size > 0 {
                    return Err(ProblemError::FixedOverlap {
                        first: i,
                        second: j,
                    });
                }
            }
        }
        Ok(())
    }
}
