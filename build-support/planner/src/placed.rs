//! The buffers placed so far, searchable by lifetime: which memory is taken during an interval.
//!
//! Construction asks this once per buffer, and on training traces thousands of placed buffers
//! are alive at any moment, so the answer's cost is the construction's. Time is cut into
//! buckets, and the answer for an interval comes from two kinds of summary:
//!
//! - **Each bucket's list** of the placed buffers alive somewhere in it, kept sorted by
//!   start. The interval's first and last buckets are scanned through it, keeping the buffers
//!   alive during the interval; their answers come out sorted.
//! - **The union of occupied memory** over a block of buckets: every buffer alive in a bucket
//!   that lies wholly inside the interval is alive during it, so for those buckets only the
//!   occupied memory matters, not which buffers occupy it. Unions are kept for a segment tree
//!   of blocks (a bucket, pairs of buckets, and so on), so any run of inner buckets is a few
//!   unions. Tightly packed memory makes a union a handful of ranges however many buffers it
//!   covers.
//!
//! The sorted pieces are merged. Before, each answer was collected from a tree over the buffers
//! and sorted: on a 28,526-buffer training trace that took 90 % of construction's time, and
//! long-lived buffers (thousands of others alive during their lifetime) most of it.
//!
//! Bucket width is chosen from the buffers' total lifetime so the lists hold about five
//! entries per buffer in all: memory stays bounded however long buffers live.

use crate::item::Item;

/// Most buckets (bounds the index's fixed memory).
const MAX_BUCKETS: u64 = 1 << 16;

/// Entries per buffer the bucket lists aim at, all buckets together.
const ENTRIES_PER_BUFFER: u128 = 4;

/// A placed buffer as a bucket holds it.
#[derive(Clone, Copy)]
struct Entry {
    lower: u64,
    upper: u64,
    start: u64,
    end: u64,
}

/// Placed items of one placement, by lifetime.
pub(crate) struct Placed {
    /// First instant of bucket 0, and bucket width.
    origin: u64,
    width: u64,
    /// Per bucket: the placed items alive somewhere in it, by start.
    buckets: Vec<Vec<Entry>>,
    /// Segment tree over buckets (leaves at `leaves..leaves + buckets.len()`): per node, the
    /// union of the memory occupied in its buckets, as disjoint ranges by start.
    unions: Vec<Vec<(u64, u64)>>,
    leaves: usize,
    /// Working memory of sorting and merging.
    spare: Vec<(u64, u64)>,
    runs: Vec<usize>,
    /// Entries, ranges and nodes touched so far, the set-up included: the work done.
    touched: u64,
    /// Nothing inserted since made or cleared.
    empty: bool,
}

impl Placed {
    /// An empty index for `members` (indices into `items`): only their lifetimes shape it.
    pub(crate) fn new(items: &[Item], members: &[usize]) -> Self {
        let origin = members.iter().map(|&i| items[i].lower).min().unwrap_or(0);
        let horizon = members.iter().map(|&i| items[i].upper).max().unwrap_or(0);
        let duration = horizon.saturating_sub(origin).max(1);
        // Entries in all ≈ buffers + (total lifetime) × buckets / duration.
        let lifetimes: u128 = members
            .iter()
            .map(|&i| u128::from(items[i].upper - items[i].lower))
            .sum();
        let wanted =
            ENTRIES_PER_BUFFER * members.len() as u128 * u128::from(duration) / lifetimes.max(1);
        let count = u64::try_from(wanted)
            .unwrap_or(u64::MAX)
            .clamp(1, MAX_BUCKETS.min(duration));
        let width = duration.div_ceil(count);
        let buckets = duration.div_ceil(width) as usize;
        let leaves = buckets.next_power_of_two();
        Placed {
            origin,
            width,
            buckets: vec![Vec::new(); buckets],
            unions: vec![Vec::new(); 2 * leaves],
            leaves,
            spare: Vec::new(),
            runs: Vec::new(),
            touched: (buckets + 2 * leaves) as u64,
            empty: true,
        }
    }

    /// Empties the index (keeping its memory), as new but for the work already counted.
    pub(crate) fn clear(&mut self) {
        if self.empty {
            return;
        }
        for list in &mut self.buckets {
            list.clear();
        }
        for union in &mut self.unions {
            union.clear();
        }
        self.touched += (self.buckets.len() + self.unions.len()) as u64;
        self.empty = true;
    }

    /// Work done so far: entries, ranges and nodes touched, the set-up included.
    pub(crate) fn work(&self) -> u64 {
        self.touched
    }

    fn bucket(&self, t: u64) -> usize {
        let last = self.buckets.len() as u64 - 1;
        // Clamped before narrowing: times past the end must not wrap on 32-bit hosts.
        ((t.saturating_sub(self.origin) / self.width).min(last)) as usize
    }

    /// Records an item alive `[lower, upper)` as occupying `[start, end)`.
    pub(crate) fn insert(&mut self, lower: u64, upper: u64, start: u64, end: u64) {
        if upper <= lower || end <= start {
            return;
        }
        self.empty = false;
        let entry = Entry {
            lower,
            upper,
            start,
            end,
        };
        let (first, last) = (self.bucket(lower), self.bucket(upper - 1));
        for b in first..=last {
            let list = &mut self.buckets[b];
            let at = list.partition_point(|e| e.start <= start);
            list.insert(at, entry);
            self.touched += 1 + (list.len() - at) as u64 / 8;
        }
        // Every segment-tree node over one of those buckets.
        let (mut from, mut to) = (self.leaves + first, self.leaves + last);
        while from >= 1 {
            for node in from..=to {
                add_to_union(&mut self.unions[node], start, end);
            }
            self.touched += (to - from + 1) as u64;
            if from == 1 {
                break;
            }
            (from, to) = (from / 2, to / 2);
        }
    }

    /// Sets `out` to ranges whose union is the memory occupied at some instant of
    /// `[lower, upper)` by placed items, sorted by start (ranges may overlap or repeat).
    pub(crate) fn occupied_by_start(&mut self, lower: u64, upper: u64, out: &mut Vec<(u64, u64)>) {
        out.clear();
        self.runs.clear();
        if upper <= lower {
            return;
        }
        let (first, last) = (self.bucket(lower), self.bucket(upper - 1));
        // Inner buckets: canonical segment-tree nodes of (first, last), their unions whole.
        if last > first + 1 {
            let (mut lo, mut hi) = (self.leaves + first + 1, self.leaves + last);
            while lo < hi {
                if lo & 1 == 1 {
                    self.runs.push(out.len());
                    out.extend_from_slice(&self.unions[lo]);
                    lo += 1;
                }
                if hi & 1 == 1 {
                    hi -= 1;
                    self.runs.push(out.len());
                    out.extend_from_slice(&self.unions[hi]);
                }
                (lo, hi) = (lo / 2, hi / 2);
            }
        }
        // The first and last buckets, item by item; an item in both is taken from the first.
        let ends = [first, last];
        for &b in &ends[..if last == first { 1 } else { 2 }] {
            self.runs.push(out.len());
            self.touched += self.buckets[b].len() as u64;
            for e in &self.buckets[b] {
                if e.lower < upper && lower < e.upper && (b == first || self.bucket(e.lower) == b) {
                    out.push((e.start, e.end));
                }
            }
        }
        self.touched += 1 + out.len() as u64;
        if self.runs.len() > 1 {
            self.touched += out.len() as u64 * self.runs.len().min(MERGE_RUNS) as u64;
            if self.runs.len() > MERGE_RUNS {
                sort_by_start(out, &mut self.spare);
            } else {
                merge_runs(out, &self.runs, &mut self.spare);
            }
        }
    }
}

/// Most sorted runs merged one after another; more are sorted together.
const MERGE_RUNS: usize = 8;

/// Adds `[start, end)` to `union` (disjoint ranges by start), merging what it touches.
fn add_to_union(union: &mut Vec<(u64, u64)>, start: u64, end: u64) {
    // First range that ends at or after `start`: everything before stays as it is.
    let from = union.partition_point(|r| r.1 < start);
    // Ranges from `from` that start at or before `end` touch the new one.
    let to = from + union[from..].partition_point(|r| r.0 <= end);
    if from == to {
        union.insert(from, (start, end));
        return;
    }
    let merged = (start.min(union[from].0), end.max(union[to - 1].1));
    union[from] = merged;
    union.drain(from + 1..to);
}

/// Merges the sorted runs of `ranges` that start at `starts` (ascending, the first 0) into
/// one list sorted by start.
fn merge_runs(ranges: &mut [(u64, u64)], starts: &[usize], spare: &mut Vec<(u64, u64)>) {
    let mut sorted_to = starts.get(1).copied().unwrap_or(ranges.len());
    for r in 1..starts.len() {
        let end = starts.get(r + 1).copied().unwrap_or(ranges.len());
        // Merge [0, sorted_to) with [sorted_to, end).
        spare.clear();
        let (mut i, mut j) = (0, sorted_to);
        while i < sorted_to && j < end {
            if ranges[j].0 < ranges[i].0 {
                spare.push(ranges[j]);
                j += 1;
            } else {
                spare.push(ranges[i]);
                i += 1;
            }
        }
        spare.extend_from_slice(&ranges[i..sorted_to]);
        spare.extend_from_slice(&ranges[j..end]);
        ranges[..end].copy_from_slice(spare);
        sorted_to = end;
    }
}

/// Sorts occupied ranges by start. Only the starts' order matters to [`choose_gap`] (among
/// ranges starting together, none but the first can leave a gap below the start), so the order
/// among equal starts is free. Thousands of ranges (a training trace keeps thousands of tensors
/// alive at once) go through a radix sort on the start, 11 bits a pass and only as many
/// passes as the largest start needs, instead of a comparison sort.
fn sort_by_start(ranges: &mut Vec<(u64, u64)>, spare: &mut Vec<(u64, u64)>) {
    const BITS: u32 = 11;
    if ranges.len() < 256 {
        ranges.sort_unstable_by_key(|r| r.0);
        return;
    }
    let top = ranges.iter().map(|r| r.0).max().unwrap_or(0);
    let passes = (64 - top.leading_zeros()).div_ceil(BITS);
    spare.clear();
    spare.resize(ranges.len(), (0, 0));
    let mut counts = [0usize; 1 << BITS];
    for pass in 0..passes {
        let shift = pass * BITS;
        let digit = |r: &(u64, u64)| ((r.0 >> shift) & ((1 << BITS) - 1)) as usize;
        counts.fill(0);
        for r in ranges.iter() {
            counts[digit(r)] += 1;
        }
        let mut at = 0;
        for c in counts.iter_mut() {
            let n = *c;
            *c = at;
            at += n;
        }
        for r in ranges.iter() {
            let d = digit(r);
            spare[counts[d]] = *r;
            counts[d] += 1;
        }
        std::mem::swap(ranges, spare);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sort_orders_by_start() {
        let mut ranges: Vec<(u64, u64)> = (0..5_000u64)
            .map(|i| {
                let start = (i * 2_654_435_761) % 40_000_000;
                (start, start + 1 + i % 7)
            })
            .collect();
        let mut expected: Vec<u64> = ranges.iter().map(|r| r.0).collect();
        expected.sort_unstable();
        sort_by_start(&mut ranges, &mut Vec::new());
        assert_eq!(ranges.iter().map(|r| r.0).collect::<Vec<_>>(), expected);
        assert!(ranges.iter().all(|&(s, e)| e > s && e <= s + 7));
    }

    /// The union of `ranges` as disjoint ranges by start.
    fn union_of(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
        ranges.sort_unstable();
        let mut union: Vec<(u64, u64)> = Vec::new();
        for (s, e) in ranges {
            match union.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => union.push((s, e)),
            }
        }
        union
    }

    #[test]
    fn answers_exactly_the_memory_overlapping_placed_items_occupy() {
        // Short lifetimes and a few that span most of the horizon; ranges that touch, overlap
        // in memory (different times) and leave holes.
        let items: Vec<Item> = (0..300u64)
            .map(|i| {
                let lower = (i * 37) % 997;
                let life = if i % 29 == 0 { 400 + i } else { 1 + i % 6 };
                Item::free(1 + i % 5, lower, lower + life)
            })
            .collect();
        let start = |j: usize| (j as u64 * 7) % 113;
        let members: Vec<usize> = (0..items.len()).collect();
        let mut index = Placed::new(&items, &members);
        assert!(
            index.buckets.len() > 10,
            "the test must cover several buckets"
        );
        for placed in 0..items.len() {
            for q in 0..items.len() {
                let mut found = Vec::new();
                index.occupied_by_start(items[q].lower, items[q].upper, &mut found);
                assert!(
                    found.windows(2).all(|w| w[0].0 <= w[1].0),
                    "sorted by start"
                );
                let expected: Vec<(u64, u64)> = (0..placed)
                    .filter(|&j| items[j].lower < items[q].upper && items[q].lower < items[j].upper)
                    .map(|j| (start(j), start(j) + items[j].size))
                    .collect();
                assert_eq!(
                    union_of(found),
                    union_of(expected),
                    "query {q} after {placed} placed"
                );
            }
            let it = &items[placed];
            index.insert(it.lower, it.upper, start(placed), start(placed) + it.size);
        }
    }

    #[test]
    fn unions_merge_touching_and_overlapping_ranges() {
        let mut union = Vec::new();
        for (s, e) in [
            (10, 20),
            (30, 40),
            (20, 25),
            (50, 60),
            (24, 31),
            (0, 5),
            (45, 50),
        ] {
            add_to_union(&mut union, s, e);
        }
        assert_eq!(union, vec![(0, 5), (10, 40), (45, 60)]);
    }
}
