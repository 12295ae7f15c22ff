//! Squeaky-wheel search for a placement within a capacity: first fit in an order that learns
//! from each failure.
//!
//! Place every buffer by first fit in the current order. The buffers that end above the
//! capacity are the ones the order served badly: each moves forward by a random part of the
//! way to the front, and the others keep their relative order. Repeat until a placement fits
//! or the budget is spent. (Clements, Crawford et al.'s "squeaky wheel" optimisation.)
//!
//! This complements the exact search, which runs it as one of each round's runs (`search.rs`):
//! on instances that fit with room to spare in places, many orders work and depth-first
//! commitment can miss all of them. MiniMalloc-shaped instances drawn with holes, which
//! MiniMalloc's own solver does not solve in 30 s, mostly fit after tens to a few thousand
//! placements. Where every moment is full it rarely helps, and it gets only its round's share.
//!
//! Deterministic: the random moves come from a fixed seed, and work is counted in steps (one
//! per buffer placed and per occupied range looked at), never in time.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::construct::{place_in, Fit};
use crate::item::{arena_of, Item};
use crate::placed::Placed;

/// Looks for offsets of `items` with every end `<= capacity`, starting from `order`.
/// `budget` is decreased by the steps used.
#[cfg(test)]
pub(crate) fn squeaky_wheel(
    items: &[Item],
    order: &[usize],
    capacity: u64,
    budget: &mut u64,
) -> Option<Vec<u64>> {
    let mut wheel = Squeaky::new(items, order.to_vec());
    let limit = *budget;
    wheel.run(
        items,
        capacity,
        budget,
        limit,
        [&AtomicBool::new(false), &AtomicBool::new(false)],
    )
}

/// The squeaky wheel's state between runs: the order it has learnt so far.
pub(crate) struct Squeaky {
    order: Vec<usize>,
    index: Placed,
    rng: SplitMix,
    keyed: Vec<(u64, usize)>,
}

impl Squeaky {
    /// Starts from `order` (indices into `items`, every item once).
    pub(crate) fn new(items: &[Item], order: Vec<usize>) -> Self {
        Squeaky {
            index: Placed::new(items, &order),
            keyed: Vec::with_capacity(order.len()),
            order,
            rng: SplitMix(0x5eed_5eed_5eed_5eed),
        }
    }

    /// Places and learns until a placement within `capacity` comes out (returned), or `limit`
    /// steps of this run or the whole `budget` are spent, or either `cancel` flag is set; `budget` is
    /// decreased by the steps used. Where it stops depends only on the steps (a cancelled run's
    /// state is never used again), so a later run carries on the same way whatever happened in
    /// between.
    pub(crate) fn run(
        &mut self,
        items: &[Item],
        capacity: u64,
        budget: &mut u64,
        limit: u64,
        cancel: [&AtomicBool; 2],
    ) -> Option<Vec<u64>> {
        let mut used = 0u64;
        let cancelled = || cancel.iter().any(|c| c.load(Ordering::Relaxed));
        while *budget > 0 && used < limit && !cancelled() {
            let (offsets, work) = place_in(items, &self.order, Fit::First, &mut self.index);
            *budget = budget.saturating_sub(work);
            used += work;
            if arena_of(items, &offsets) <= capacity {
                return Some(offsets);
            }
            self.learn(items, &offsets, capacity);
        }
        None
    }

    /// Moves every buffer that ends above `capacity` forward by a random part of the way to
    /// the front; the others keep their relative order.
    fn learn(&mut self, items: &[Item], offsets: &[u64], capacity: u64) {
        // Positions spaced apart so a moved buffer lands between two others, never on one.
        self.keyed.clear();
        for (position, &i) in self.order.iter().enumerate() {
            let at = 2 * position as u64 + 1;
            let at = if items[i].end_at(offsets[i]) > capacity {
                at - 1 - 2 * self.rng.below(position as u64 + 1)
            } else {
                at
            };
            self.keyed.push((at, i));
        }
        self.keyed.sort_unstable();
        self.order.clear();
        self.order.extend(self.keyed.iter().map(|&(_, i)| i));
    }
}

/// One SplitMix64 output for `seed`: a well-mixed hash of it.
pub(crate) fn mix(seed: u64) -> u64 {
    SplitMix(seed).next()
}

/// A small fast generator (SplitMix64), enough for shuffling orders.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::construct::place_counted;

    #[test]
    fn moves_the_buffer_that_ends_too_high_forward() {
        // First fit largest first: the 6-byte buffers at 0, the first 4-byte one above the
        // earlier 6, and the second 4-byte one above everything: 14. Moving that one first
        // gives the lower bound, 10.
        let items = [
            Item::free(4, 0, 2),
            Item::free(4, 1, 3),
            Item::free(6, 2, 4),
            Item::free(6, 0, 1),
        ];
        let order = [2, 3, 0, 1];
        assert_eq!(
            arena_of(&items, &place_counted(&items, &order, Fit::First).0),
            14
        );
        let mut budget = 10_000;
        let offsets =
            squeaky_wheel(&items, &order, 10, &mut budget).expect("a placement within 10");
        assert!(arena_of(&items, &offsets) <= 10);
        assert!(budget < 10_000, "work is charged");
    }

    #[test]
    fn never_moves_a_buffer_onto_a_pinned_one() {
        // A 4-byte buffer pinned at 0 and two free ones, pairwise alive together somewhere:
        // the bound is 12, so nothing fits in 8. Reordering must not put a free buffer ahead of
        // the pin and on top of it.
        let mut pinned = Item::free(4, 0, 2);
        pinned.fixed = Some(0);
        let items = [pinned, Item::free(4, 0, 2), Item::free(4, 1, 3)];
        let mut budget = 100_000;
        assert_eq!(squeaky_wheel(&items, &[0, 1, 2], 8, &mut budget), None);
        let mut budget = 100_000;
        let offsets = squeaky_wheel(&items, &[0, 1, 2], 12, &mut budget).expect("fits 12");
        // All three are alive at instant 1: pairwise apart.
        let mut ranges: Vec<(u64, u64)> = (0..3).map(|i| (offsets[i], offsets[i] + 4)).collect();
        ranges.sort_unstable();
        assert_eq!(ranges, vec![(0, 4), (4, 8), (8, 12)]);
        assert_eq!(offsets[0], 0);
    }

    #[test]
    fn stops_when_the_budget_is_spent() {
        // Three buffers alive together need 12 bytes: nothing fits in 11.
        let items = [
            Item::free(4, 0, 2),
            Item::free(4, 1, 3),
            Item::free(4, 0, 3),
        ];
        let mut budget = 1_000;
        assert_eq!(squeaky_wheel(&items, &[0, 1, 2], 11, &mut budget), None);
        assert_eq!(budget, 0);
    }
}
