//! No baseline the crate ships ever beats the planner, at any search budget (it starts from
//! every one of them); and the fast ExecuTorch greedy is the quadratic rule it re-implements.

use arenaplan_planner::baseline::{arena, bump, executorch_greedy, tflm_greedy};
use arenaplan_planner::{Buffer, Planner, Problem};
use proptest::prelude::*;

fn buffer() -> impl Strategy<Value = Buffer> {
    (
        // Few distinct sizes: ties in size order are where tie-breaking rules differ.
        prop::sample::select(vec![16u64, 32, 48, 64, 64, 96, 128, 200]),
        0u64..40,
        1u64..12,
        prop::sample::select(vec![1u64, 1, 4, 16]),
    )
        .prop_map(|(size, lower, len, align)| {
            Buffer::new(size, lower, lower + len).with_alignment(align)
        })
}

fn problem() -> impl Strategy<Value = Problem> {
    (
        prop::collection::vec(buffer(), 1..60),
        prop::sample::select(vec![1u64, 8, 16]),
    )
        .prop_map(|(buffers, alignment)| Problem::new(buffers).with_alignment(alignment))
}

/// ExecuTorch's greedy shared-object rule, written the obvious quadratic way.
fn executorch_greedy_naive(p: &Problem) -> Vec<u64> {
    let padded = |b: &Buffer| b.padded_size(p.alignment);
    let mut order: Vec<usize> = (0..p.buffers.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(padded(&p.buffers[i])), i));
    let mut objects: Vec<(u64, Vec<usize>)> = Vec::new();
    let mut object_of = vec![0; p.buffers.len()];
    for i in order {
        let b = &p.buffers[i];
        let k = objects
            .iter()
            .position(|(_, m)| m.iter().all(|&j| !p.buffers[j].overlaps_in_time(b)))
            .unwrap_or_else(|| {
                objects.push((0, Vec::new()));
                objects.len() - 1
            });
        objects[k].0 = objects[k].0.max(padded(b));
        objects[k].1.push(i);
        object_of[i] = k;
    }
    let mut base = Vec::new();
    let mut next = 0u64;
    for (size, members) in &objects {
        let align = members
            .iter()
            .map(|&j| p.buffers[j].effective_alignment(p.alignment))
            .max()
            .unwrap_or(1);
        let at = next.div_ceil(align) * align;
        base.push(at);
        next = at + size;
    }
    object_of.iter().map(|&k| base[k]).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn no_baseline_beats_the_planner(p in problem(), budget in prop::sample::select(vec![0u64, 1_000, 100_000])) {
        let plan = Planner::new().step_budget(budget).plan(&p).unwrap();
        for (name, offsets) in [
            ("bump", bump(&p)),
            ("TFLM greedy", tflm_greedy(&p)),
            ("ExecuTorch greedy", executorch_greedy(&p)),
        ] {
            let theirs = arena(&p, &offsets);
            prop_assert!(plan.arena <= theirs, "{} {} < planner {} (budget {})", name, theirs, plan.arena, budget);
        }
    }

    #[test]
    fn fast_executorch_greedy_is_the_quadratic_rule(p in problem()) {
        prop_assert_eq!(executorch_greedy(&p), executorch_greedy_naive(&p));
    }
}
