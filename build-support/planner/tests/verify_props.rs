//! Property tests: the planner's plans pass the checker, and the checker rejects what it must.

use arenaplan_planner::verify::{verify, VerifyError};
use arenaplan_planner::{end_lower_bound, lower_bound, Buffer, Planner, Problem};
use proptest::prelude::*;

fn buffer() -> impl Strategy<Value = Buffer> {
    (
        1u64..200,
        0u64..30,
        1u64..10,
        prop::sample::select(vec![1u64, 1, 4, 16]),
    )
        .prop_map(|(size, lower, len, align)| {
            Buffer::new(size, lower, lower + len).with_alignment(align)
        })
}

fn problem() -> impl Strategy<Value = Problem> {
    (
        prop::collection::vec(buffer(), 1..40),
        prop::sample::select(vec![1u64, 8, 16]),
    )
        .prop_map(|(buffers, alignment)| Problem::new(buffers).with_alignment(alignment))
}

/// The obvious quadratic check, written separately from the checker.
fn collides(p: &Problem, offsets: &[u64]) -> bool {
    let b = &p.buffers;
    (0..b.len()).any(|i| {
        (i + 1..b.len()).any(|j| {
            b[i].overlaps_in_time(&b[j])
                && offsets[i] < offsets[j] + b[j].size
                && offsets[j] < offsets[i] + b[i].size
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn planner_output_passes_the_checker(p in problem()) {
        let plan = Planner::new().step_budget(200_000).plan(&p).unwrap();
        prop_assert!(verify(&p, &plan.offsets).is_ok());
        prop_assert!(!collides(&p, &plan.offsets));
        prop_assert!(plan.arena >= lower_bound(&p));
        prop_assert_eq!(plan.lower_bound, lower_bound(&p));
    }

    /// The bound of an arena that ends at its last byte is never above that end (the
    /// corpus's ethosu_u55_kws_ref.pte once reported 22,720 for an arena of 22,716), nor above
    /// the bound of whole rounded buffers.
    #[test]
    fn the_lower_bound_never_exceeds_the_arena(p in problem()) {
        let plan = Planner::new().step_budget(20_000).plan(&p).unwrap();
        let end = p.buffers.iter().zip(&plan.offsets).map(|(b, &o)| o + b.size).max().unwrap();
        prop_assert!(end_lower_bound(&p) <= end, "{} > {end}", end_lower_bound(&p));
        prop_assert!(end_lower_bound(&p) <= lower_bound(&p));
    }

    /// Pinned buffers of mixed alignments may sit in each other's rounding: the bound counts
    /// their bytes only.
    #[test]
    fn the_lower_bound_holds_with_pinned_buffers(p in problem(), pins in prop::collection::vec(0u64..64, 1..4)) {
        let mut p = p;
        // Pin the first buffers at distinct aligned places far apart, where nothing collides.
        for (i, &slot) in pins.iter().enumerate().take(p.buffers.len()) {
            let a = p.buffers[i].alignment.max(p.alignment);
            p.buffers[i].fixed_offset = Some((slot * 1024 + i as u64 * 64 * 1024).div_ceil(a) * a);
        }
        if let Ok(plan) = Planner::new().step_budget(5_000).plan(&p) {
            let end = p.buffers.iter().zip(&plan.offsets).map(|(b, &o)| o + b.size).max().unwrap();
            prop_assert!(end_lower_bound(&p) <= end);
        }
    }

    #[test]
    fn planning_is_deterministic(p in problem()) {
        let a = Planner::new().step_budget(50_000).plan(&p).unwrap();
        let b = Planner::new().step_budget(50_000).plan(&p).unwrap();
        prop_assert_eq!(a, b);
    }

    #[test]
    fn checker_agrees_with_the_quadratic_check(p in problem(), seed in any::<u64>()) {
        // Arbitrary aligned offsets: some collide, some do not.
        let mut x = seed;
        let offsets: Vec<u64> = p.buffers.iter().map(|b| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let a = b.alignment.max(p.alignment);
            ((x >> 33) % 64) * a
        }).collect();
        let reported = matches!(verify(&p, &offsets), Err(VerifyError::Collision(_)));
        prop_assert_eq!(reported, collides(&p, &offsets));
    }

    #[test]
    fn checker_rejects_a_moved_buffer(p in problem(), pick in any::<prop::sample::Index>()) {
        let plan = Planner::new().step_budget(10_000).plan(&p).unwrap();
        let b = &p.buffers;
        // Move two buffers alive at the same time onto the same (aligned) offset.
        let pairs: Vec<(usize, usize)> = (0..b.len())
            .flat_map(|i| (0..b.len()).map(move |j| (i, j)))
            .filter(|&(i, j)| i != j && b[i].overlaps_in_time(&b[j]))
            .collect();
        prop_assume!(!pairs.is_empty());
        let (i, j) = pairs[pick.index(pairs.len())];
        let mut corrupted = plan.offsets.clone();
        corrupted[i] = 0;
        corrupted[j] = 0;
        let rejected = matches!(verify(&p, &corrupted), Err(VerifyError::Collision(_)));
        prop_assert!(rejected);
        // And a misaligned offset where alignment is above 1.
        let a = b[i].alignment.max(p.alignment);
        if a > 1 {
            let mut misaligned = plan.offsets.clone();
            misaligned[i] += 1;
            let rejected = matches!(verify(&p, &misaligned), Err(VerifyError::Misaligned { .. }));
            prop_assert!(rejected);
        }
    }
}

#[test]
fn checker_rejects_wrong_counts_capacity_and_moved_pins() {
    let p = Problem::new(vec![
        Buffer::new(8, 0, 2),
        Buffer::new(8, 1, 3).pinned_at(16),
    ])
    .with_capacity(24);
    assert!(verify(&p, &[0, 16]).is_ok());
    assert!(matches!(
        verify(&p, &[0]),
        Err(VerifyError::WrongCount { .. })
    ));
    assert!(matches!(
        verify(&p, &[0, 8]),
        Err(VerifyError::MovedPinned { .. })
    ));
    let tight = p.clone().with_capacity(20);
    assert!(matches!(
        verify(&tight, &[0, 16]),
        Err(VerifyError::OverCapacity { .. })
    ));
}

#[test]
fn pinned_buffers_stay_where_they_are() {
    let p = Problem::new(vec![
        Buffer::new(64, 0, 4).pinned_at(32),
        Buffer::new(32, 0, 2),
        Buffer::new(32, 1, 3),
        Buffer::new(16, 2, 4),
    ])
    .with_alignment(16);
    let plan = Planner::new().plan(&p).unwrap();
    assert_eq!(plan.offsets[0], 32);
    verify(&p, &plan.offsets).unwrap();
}
