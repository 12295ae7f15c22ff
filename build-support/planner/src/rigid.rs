//! Rigid groups ([`Inside`]): the unit the placement algorithms move, and its exact shape.
//!
//! A buffer that holds others is placed with them as one *unit*. Its memory is the outer
//! buffer's (members lie wholly inside it), so a unit is an [`Item`] of the outer buffer's size
//! alive from the first part's start to the last part's end: the *box*. Every placement of
//! boxes is a valid placement of the parts, so the search and the rectangle-based
//! constructions plan boxes unchanged. The box overstates the unit where a member outlives the
//! outer buffer (an input slot alive from its producer, the scratch only during the call), so
//! the exact constructions place the unit's *shape* instead: the outer rectangle, and each
//! member's rectangle for the part of its lifetime outside the outer buffer's (inside it the
//! outer rectangle already covers it). The lower bound counts shapes too.

use crate::item::Item;
use crate::problem::{Inside, Problem};

/// One rectangle of a unit's shape, relative to the unit's offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Part {
    /// Offset from the unit's offset.
    pub rel: u64,
    /// Bytes.
    pub size: u64,
    /// First instruction alive.
    pub lower: u64,
    /// First instruction no longer alive.
    pub upper: u64,
}

/// The units of a validated problem.
pub(crate) struct Units {
    /// One box per unit, in the order of the outer buffers' indices.
    pub items: Vec<Item>,
    /// Per unit with members, its shape: the outer buffer's rectangle during its own lifetime,
    /// then the members' parts outside that lifetime. Empty for a plain buffer (its box is
    /// its shape).
    pub shapes: Vec<Vec<Part>>,
    /// Per unit, its outer buffer.
    outer: Vec<usize>,
    /// Per member buffer: its unit and offset there.
    members: Vec<(usize, usize, u64)>,
    buffers: usize,
}

/// The pieces of `[lower, upper)` outside `[outer_lower, outer_upper)`: before it and after it.
pub(crate) fn outside(
    lower: u64,
    upper: u64,
    outer_lower: u64,
    outer_upper: u64,
) -> [(u64, u64); 2] {
    [
        (lower, upper.min(outer_lower)),
        (lower.max(outer_upper), upper),
    ]
}

impl Units {
    /// The units of `problem` (validated: constraints well formed).
    pub fn of(problem: &Problem) -> Units {
        let buffers = Item::from_problem(problem);
        let within = problem.within_of();
        let mut unit_of = vec![usize::MAX; buffers.len()];
        let mut units = Units {
            items: Vec::new(),
            shapes: Vec::new(),
            outer: Vec::new(),
            members: Vec::new(),
            buffers: buffers.len(),
        };
        for (i, item) in buffers.iter().enumerate() {
            if within[i].is_none() {
                unit_of[i] = units.items.len();
                units.items.push(*item);
                units.shapes.push(Vec::new());
                units.outer.push(i);
            }
        }
        for &Inside {
            member,
            within,
            offset,
        } in &problem.inside
        {
            let u = unit_of[within];
            let (outer, m) = (buffers[within], &problem.buffers[member]);
            if units.shapes[u].is_empty() {
                units.shapes[u].push(Part {
                    rel: 0,
                    size: outer.size,
                    lower: outer.lower,
                    upper: outer.upper,
                });
            }
            let unit = &mut units.items[u];
            unit.lower = unit.lower.min(m.lower);
            unit.upper = unit.upper.max(m.upper);
            for (lower, upper) in outside(m.lower, m.upper, outer.lower, outer.upper) {
                if lower < upper && m.size > 0 {
                    units.shapes[u].push(Part {
                        rel: offset,
                        size: m.size,
                        lower,
                        upper,
                    });
                }
            }
            units.members.push((member, u, offset));
        }
        units
    }

    /// Whether any unit holds members.
    pub fn any_groups(&self) -> bool {
        !self.members.is_empty()
    }

    /// Buffer offsets from unit offsets.
    pub fn buffer_offsets(&self, unit_offsets: &[u64]) -> Vec<u64> {
        let mut offsets = vec![0u64; self.buffers];
        for (u, &b) in self.outer.iter().enumerate() {
            offsets[b] = unit_offsets[u];
        }
        for &(member, u, rel) in &self.members {
            offsets[member] = unit_offsets[u] + rel;
        }
        offsets
    }

    /// Unit offsets from buffer offsets (a whole-problem placement, such as a baseline's).
    pub fn unit_offsets(&self, buffer_offsets: &[u64]) -> Vec<u64> {
        self.outer.iter().map(|&b| buffer_offsets[b]).collect()
    }
}

/// The rectangles whose most bytes alive at once bound every plan of `problem` from below:
/// every buffer inside no other, and each member for the part of its lifetime outside the
/// buffer it is inside (members share memory with it while it is alive). Sizes as [`Item`]
/// rounds them, but members' unrounded: their room is inside their group's.
pub(crate) fn bound_pieces(problem: &Problem) -> Vec<Item> {
    let items = Item::from_problem(problem);
    let within = problem.within_of();
    let mut pieces: Vec<Item> = items
        .iter()
        .zip(&within)
        .filter(|(_, w)| w.is_none())
        .map(|(item, _)| *item)
        .collect();
    for c in &problem.inside {
        let (m, outer) = (&problem.buffers[c.member], &items[c.within]);
        for (lower, upper) in outside(m.lower, m.upper, outer.lower, outer.upper) {
            if lower < upper {
                pieces.push(Item {
                    size: m.size,
                    align: 1,
                    lower,
                    upper,
                    fixed: None,
                });
            }
        }
    }
    pieces
}
