//! Other tools' planning rules, re-implemented from their published descriptions, for the
//! benchmark to compare against. The planner starts from every one of them and keeps the best,
//! so none of them ever beats it (TFLM's greedy rule it computes in `O(n log n)` as its own
//! first-fit placement in TFLM's order; this module's `tflm_greedy` is the quadratic original).
//!
//! Every function returns one offset per buffer of a valid [`Problem`]; sizes are padded to
//! the effective alignment as the planner pads them.
//!
//! ```
//! use arenaplan_planner::baseline::{bump, tflm_greedy};
//! use arenaplan_planner::{Buffer, Problem};
//! let p = Problem::new(vec![Buffer::new(8, 0, 1), Buffer::new(8, 1, 2)]);
//! assert_eq!(bump(&p), vec![0, 8]);
//! assert_eq!(tflm_greedy(&p), vec![0, 0]);
//! ```

use crate::{Buffer, Problem};

fn padded(problem: &Problem, b: &Buffer) -> u64 {
    b.padded_size(problem.alignment)
}

fn aligned(value: u64, alignment: u64) -> u64 {
    value.div_ceil(alignment) * alignment
}

/// Buffer indices by padded size descending, ties by index.
fn by_size_descending(problem: &Problem) -> Vec<usize> {
    let mut order: Vec<usize> = (0..problem.buffers.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(padded(problem, &problem.buffers[i])), i));
    order
}

/// Naive bump allocation: every buffer gets its own memory, in index order.
pub fn bump(problem: &Problem) -> Vec<u64> {
    let mut next = 0u64;
    problem
        .buffers
        .iter()
        .map(|b| {
            let at = aligned(next, b.effective_alignment(problem.alignment));
            next = at + padded(problem, b);
            at
        })
        .collect()
}

/// TensorFlow Lite Micro's greedy planner: buffers by size descending, each at the lowest
/// gap among already-placed, time-overlapping buffers that fits. Quadratic, as theirs is.
pub fn tflm_greedy(problem: &Problem) -> Vec<u64> {
    let mut offsets = vec![0u64; problem.buffers.len()];
    let mut placed: Vec<usize> = Vec::new();
    for i in by_size_descending(problem) {
        let b = &problem.buffers[i];
        let mut overlapping: Vec<(u64, u64)> = placed
            .iter()
            .filter(|&&j| problem.buffers[j].overlaps_in_time(b))
            .map(|&j| {
                (
                    offsets[j],
                    offsets[j] + padded(problem, &problem.buffers[j]),
                )
            })
            .collect();
        overlapping.sort_unstable();
        let alignment = b.effective_alignment(problem.alignment);
        let size = padded(problem, b);
        let mut candidate = 0u64;
        for (start, end) in overlapping {
            if aligned(candidate, alignment) + size <= start {
                break;
            }
            candidate = candidate.max(end);
        }
        offsets[i] = aligned(candidate, alignment);
        placed.push(i);
    }
    offsets
}

/// ExecuTorch's greedy shared-object planner: buffers by size descending, each into the first
/// shared object none of whose buffers is alive at the same time (else a new object); an
/// object is as large as its largest buffer, and objects are laid out one after another.
/// Each object keeps its members' lifetimes sorted (they never overlap), so "is any alive at
/// the same time" is a binary search.
pub fn executorch_greedy(problem: &Problem) -> Vec<u64> {
    struct Shared {
        size: u64,
        members: Vec<usize>,
        /// Members' `[lower, upper)`, disjoint, sorted by `lower`.
        lifetimes: Vec<(u64, u64)>,
    }
    impl Shared {
        fn free_during(&self, lower: u64, upper: u64) -> bool {
            // The first member ending after `lower` must start at or after `upper`.
            let at = self.lifetimes.partition_point(|&(_, u)| u <= lower);
            self.lifetimes.get(at).is_none_or(|&(l, _)| l >= upper)
        }
    }
    let mut objects: Vec<Shared> = Vec::new();
    let mut object_of = vec![0usize; problem.buffers.len()];
    for i in by_size_descending(problem) {
        let b = &problem.buffers[i];
        let k = match objects.iter().position(|o| o.free_during(b.lower, b.upper)) {
            Some(k) => k,
            None => {
                objects.push(Shared {
                    size: 0,
                    members: Vec::new(),
                    lifetimes: Vec::new(),
                });
                objects.len() - 1
            }
        };
        let o = &mut objects[k];
        o.size = o.size.max(padded(problem, b));
        o.members.push(i);
        let at = o.lifetimes.partition_point(|&(l, _)| l < b.lower);
        o.lifetimes.insert(at, (b.lower, b.upper));
        object_of[i] = k;
    }
    // Each object starts at a multiple of the largest alignment among its members.
    let mut base = Vec::with_capacity(objects.len());
    let mut next = 0u64;
    for o in &objects {
        let alignment = o
            .members
            .iter()
            .map(|&j| problem.buffers[j].effective_alignment(problem.alignment))
            .max()
            .unwrap_or(1);
        let at = aligned(next, alignment);
        base.push(at);
        next = at + o.size;
    }
    object_of.iter().map(|&k| base[k]).collect()
}

/// The arena an offset assignment needs: the highest `offset + padded size`.
pub fn arena(problem: &Problem, offsets: &[u64]) -> u64 {
    problem
        .buffers
        .iter()
        .zip(offsets)
        .map(|(b, &o)| o + padded(problem, b))
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::verify;

    fn sample() -> Problem {
        Problem::new(vec![
            Buffer::new(100, 0, 2),
            Buffer::new(60, 1, 3),
            Buffer::new(40, 2, 5),
            Buffer::new(100, 3, 6),
            Buffer::new(30, 0, 6),
        ])
        .with_alignment(16)
    }

    #[test]
    fn baselines_produce_valid_plans() {
        let p = sample();
        for offsets in [bump(&p), tflm_greedy(&p), executorch_greedy(&p)] {
            verify(&p, &offsets).unwrap();
        }
    }

    #[test]
    fn bump_is_the_sum_and_greedy_shares() {
        let p = sample();
        assert_eq!(arena(&p, &bump(&p)), 112 + 64 + 48 + 112 + 32);
        assert!(arena(&p, &tflm_greedy(&p)) < arena(&p, &bump(&p)));
        assert!(arena(&p, &executorch_greedy(&p)) < arena(&p, &bump(&p)));
    }
}
