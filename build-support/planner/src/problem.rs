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

/// A placement constraint: buffer `member` sits `offset` bytes into buffer `within`, wherever
/// the planner places `within`. The buffers inside one form a rigid group: each part keeps
/// its own lifetime, and the group moves as one.
///
/// That is how a delegate call's input and output live inside its NPU scratch, where the
/// command stream reads and writes them: the input slot is alive from its producer to the
/// call, the scratch during the call, the output slot from the call to its last consumer.
///
/// Rules ([`Problem::validate`]): a member lies wholly inside `within`, is not pinned, is
/// inside one buffer only, and holds no members of its own; `offset` and `within`'s alignment
/// are multiples of the member's alignment (the pool's alignment is not applied to a member:
/// its place is its group's). A member shares memory with `within` at any time, and with
/// another member of `within` only while `within` is alive (the NPU owns the whole buffer
/// then); otherwise members are buffers like any other.
///
/// ```
/// use arenaplan_planner::{Buffer, Planner, Problem};
/// // Input alive 0..2, the call's scratch during 1, the output 1..3; both I/O inside it.
/// let p = Problem::new(vec![
///     Buffer::new(64, 1, 2),                     // scratch
///     Buffer::new(16, 0, 2).with_alignment(16),  // input, at 0 in the scratch
///     Buffer::new(16, 1, 3).with_alignment(16),  // output, at 32 in the scratch
/// ])
/// .with_alignment(16)
/// .with_inside(1, 0, 0)
/// .with_inside(2, 0, 32);
/// let plan = Planner::new().plan(&p)?;
/// assert_eq!(plan.arena, 64);
/// assert_eq!(plan.offsets[1], plan.offsets[0]);
/// assert_eq!(plan.offsets[2], plan.offsets[0] + 32);
/// # Ok::<(), arenaplan_planner::PlanError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Inside {
    /// The buffer placed inside.
    pub member: usize,
    /// The buffer it is inside.
    pub within: usize,
    /// Its offset from `within`'s offset.
    pub offset: u64,
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
    /// Buffers placed at fixed offsets inside others ([`Inside`]).
    pub inside: Vec<Inside>,
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
    /// A placement constraint ([`Inside`]) that cannot hold.
    #[error(
        "buffer {member}: cannot be placed at offset {offset} inside buffer {within}: {problem}"
    )]
    BadInside {
        /// The member.
        member: usize,
        /// The buffer it is to be inside.
        within: usize,
        /// Its offset there.
        offset: u64,
        /// Which rule it breaks.
        problem: &'static str,
    },
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
            ProblemError::BadInside { member, .. } => Some(*member),
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
            inside: Vec::new(),
        }
    }

    /// Places buffer `member` at `offset` inside buffer `within` ([`Inside`]).
    pub fn with_inside(mut self, member: usize, within: usize, offset: u64) -> Self {
        self.inside.push(Inside {
            member,
            within,
            offset,
        });
        self
    }

    /// For each buffer, the constraint that places it inside another, if any (the first, for
    /// a problem [`Problem::validate`] refuses).
    pub fn within_of(&self) -> Vec<Option<Inside>> {
        let mut of = vec![None; self.buffers.len()];
        for c in &self.inside {
            if let Some(slot) = of.get_mut(c.member) {
                slot.get_or_insert(*c);
            }
        }
        of
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
        self.check_inside()?;
        self.check_pinned_disjoint()
    }

    fn check_inside(&self) -> Result<(), ProblemError> {
        let n = self.buffers.len();
        let mut is_member = vec![false; n];
        let mut has_members = vec![false; n];
        for c in &self.inside {
            if c.member < n && c.within < n {
                has_members[c.within] = true;
            }
        }
        for c in &self.inside {
            let bad = |problem| ProblemError::BadInside {
                member: c.member,
                within: c.within,
                offset: c.offset,
                problem,
            };
            if c.member >= n || c.within >= n {
                return Err(bad("no such buffer"));
            }
            if c.member == c.within {
                return Err(bad("a buffer cannot be inside itself"));
            }
            if std::mem::replace(&mut is_member[c.member], true) {
                return Err(bad("it is already inside another buffer"));
            }
            if has_members[c.member] {
                return Err(bad("it holds buffers of its own (groups do not nest)"));
            }
            let (m, w) = (&self.buffers[c.member], &self.buffers[c.within]);
            if m.fixed_offset.is_some() {
                return Err(bad("it is pinned (its group places it)"));
            }
            if w.fixed_offset.is_some() {
                return Err(bad(
                    "the buffer it is inside is pinned (groups are never pinned)",
                ));
            }
            if c.offset > MAX_BYTES || c.offset + m.size > w.size {
                return Err(bad("it does not lie wholly inside"));
            }
            let align = m.alignment.max(1);
            if c.offset % align != 0 || w.effective_alignment(self.alignment) % align != 0 {
                return Err(bad(
                    "its alignment does not divide the offset and the outer buffer's alignment",
                ));
            }
        }
        Ok(())
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
