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
        // One constraint per member (`within_of`); one that `Problem::validate` refuses (a buffer
        // that does not exist, nesting) is left out, so that the public bounds never panic.
        for (member, c) in within.iter().enumerate() {
            let Some(Inside { within, offset, .. }) = *c else {
                continue;
            };
            let Some(&u) = unit_of.get(within).filter(|&&u| u != usize::MAX) else {
                continue;
            };
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

    /// The rectangles whose most bytes alive at once bound every plan from below: each plain
    /// unit, and each part of a shape (members unrounded: their room is inside their group's,
    /// and they count only outside their outer buffer's lifetime).
    pub fn bound_items(&self) -> Vec<Item> {
        let mut items = Vec::with_capacity(self.items.len());
        for (item, shape) in self.items.iter().zip(&self.shapes) {
            if shape.is_empty() {
                items.push(*item);
                continue;
            }
            items.extend(shape.iter().map(|p| Item {
                size: p.size,
                align: 1,
                lower: p.lower,
                upper: p.upper,
                fixed: None,
            }));
        }
        items
    }
}
