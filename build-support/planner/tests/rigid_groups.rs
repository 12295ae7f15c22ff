//! Rigid groups (`Problem::with_inside`): a buffer placed at a fixed offset inside another.
//! One test per rule, then a property test against a quadratic oracle of the overlap rule.

use arenaplan_planner::verify::{verify, VerifyError};
use arenaplan_planner::{end_lower_bound, lower_bound, Buffer, Planner, Problem, ProblemError};
use proptest::prelude::*;

/// The quadratic statement of what may share memory, written apart from the checker: a
/// member with the buffer it is inside, always; two members of one buffer, only at instants
/// that buffer is alive; nothing else.
fn collides(p: &Problem, offsets: &[u64]) -> bool {
    let within = |i: usize| p.inside.iter().find(|c| c.member == i).map(|c| c.within);
    let b = &p.buffers;
    let horizon = b.iter().map(|x| x.upper).max().unwrap_or(0);
    (0..b.len()).any(|i| {
        (i + 1..b.len()).any(|j| {
            let memory = b[i].size > 0
                && b[j].size > 0
                && offsets[i] < offsets[j] + b[j].size
                && offsets[j] < offsets[i] + b[i].size;
            if !memory || within(i) == Some(j) || within(j) == Some(i) {
                return false;
            }
            (0..horizon).any(|t| {
                let alive = |x: &Buffer| x.lower <= t && t < x.upper;
                let shared = match (within(i), within(j)) {
                    (Some(a), Some(c)) if a == c => alive(&b[a]),
                    _ => false,
                };
                alive(&b[i]) && alive(&b[j]) && !shared
            })
        })
    })
}

/// A call's scratch (alive during instruction 5) with its input slot (alive 0..=5) at 0 and its
/// output slot (5..=9) at 32, and a 48-byte tensor alive 0..5 beside the input.
fn npu_call() -> Problem {
    Problem::new(vec![
        Buffer::new(64, 5, 6),
        Buffer::new(16, 0, 6),
        Buffer::new(16, 5, 10),
        Buffer::new(48, 0, 5),
    ])
    .with_alignment(16)
    .with_inside(1, 0, 0)
    .with_inside(2, 0, 32)
}

#[test]
fn the_shape_not_the_box_is_placed() {
    // As a box (64 bytes over 0..10) the group leaves no room for the 48-byte tensor: 112
    // bytes. Its shape leaves 48 bytes above the input slot before the call.
    let p = npu_call();
    assert_eq!(lower_bound(&p), 64);
    let plan = Planner::new().plan(&p).unwrap();
    assert_eq!(plan.arena, 64);
    assert_eq!(plan.offsets[1], plan.offsets[0]);
    assert_eq!(plan.offsets[2], plan.offsets[0] + 32);
    assert!(!collides(&p, &plan.offsets));
}

#[test]
fn members_count_in_the_bound_only_outside_their_group() {
    // Scratch and both slots alive at one instant: the scratch alone.
    let p = Problem::new(vec![
        Buffer::new(100, 0, 1),
        Buffer::new(40, 0, 1),
        Buffer::new(40, 0, 1),
    ])
    .with_inside(1, 0, 0)
    .with_inside(2, 0, 40);
    assert_eq!(lower_bound(&p), 100);
    assert_eq!(end_lower_bound(&p), 100);
    assert_eq!(Planner::new().plan(&p).unwrap().arena, 100);
}

#[test]
fn the_checker_refuses_a_member_away_from_its_slot() {
    let p = npu_call();
    assert!(matches!(
        verify(&p, &[0, 16, 32, 16]),
        Err(VerifyError::MovedMember { index: 1, .. })
    ));
}

#[test]
fn the_checker_refuses_a_member_over_a_foreign_buffer() {
    // The 48-byte tensor at 0 lies over the input slot while both are alive.
    let p = npu_call();
    assert!(matches!(
        verify(&p, &[0, 0, 32, 0]),
        Err(VerifyError::Collision(_))
    ));
    assert!(verify(&p, &[0, 0, 32, 16]).is_ok());
}

#[test]
fn the_checker_refuses_siblings_overlapping_while_their_group_is_not_alive() {
    // Two input slots at one offset: alive together before the call.
    let p = Problem::new(vec![
        Buffer::new(64, 3, 4),
        Buffer::new(16, 0, 4),
        Buffer::new(16, 1, 4),
    ])
    .with_inside(1, 0, 0)
    .with_inside(2, 0, 0);
    assert!(matches!(
        verify(&p, &[0, 0, 0]),
        Err(VerifyError::Collision(_))
    ));
    // An input and an output slot may share bytes: they meet only during the call.
    let q = Problem::new(vec![
        Buffer::new(64, 3, 4),
        Buffer::new(16, 0, 4),
        Buffer::new(16, 3, 8),
    ])
    .with_inside(1, 0, 0)
    .with_inside(2, 0, 0);
    assert!(verify(&q, &[0, 0, 0]).is_ok());
    assert!(!collides(&q, &[0, 0, 0]));
}

#[test]
fn a_member_must_lie_inside() {
    let p = Problem::new(vec![Buffer::new(64, 0, 1), Buffer::new(16, 0, 1)]).with_inside(1, 0, 56);
    assert!(matches!(
        p.validate(),
        Err(ProblemError::BadInside { member: 1, .. })
    ));
}

#[test]
fn groups_do_not_nest_and_a_member_has_one_place() {
    let three = || {
        Problem::new(vec![
            Buffer::new(64, 0, 1),
            Buffer::new(32, 0, 1),
            Buffer::new(16, 0, 1),
        ])
    };
    assert!(three()
        .with_inside(1, 0, 0)
        .with_inside(2, 1, 0)
        .validate()
        .is_err());
    assert!(three()
        .with_inside(2, 0, 0)
        .with_inside(2, 1, 0)
        .validate()
        .is_err());
    assert!(three().with_inside(1, 1, 0).validate().is_err());
    assert!(three().with_inside(1, 5, 0).validate().is_err());
    assert!(three()
        .with_inside(1, 0, 0)
        .with_inside(2, 0, 32)
        .validate()
        .is_ok());
}

#[test]
fn members_and_their_groups_are_never_pinned() {
    let p = Problem::new(vec![
        Buffer::new(64, 0, 1),
        Buffer::new(16, 0, 1).pinned_at(0),
    ])
    .with_inside(1, 0, 0);
    assert!(p.validate().is_err());
    let q = Problem::new(vec![
        Buffer::new(64, 0, 1).pinned_at(0),
        Buffer::new(16, 0, 1),
    ])
    .with_inside(1, 0, 0);
    assert!(q.validate().is_err());
}

#[test]
fn a_member_keeps_its_own_alignment() {
    // Pool alignment 16, member at 8 with alignment 8: accepted, and planned there.
    let p = Problem::new(vec![
        Buffer::new(64, 1, 2),
        Buffer::new(8, 0, 2).with_alignment(8),
    ])
    .with_alignment(16)
    .with_inside(1, 0, 8);
    let plan = Planner::new().plan(&p).unwrap();
    assert_eq!(plan.offsets[1], plan.offsets[0] + 8);
    let bad = Problem::new(vec![
        Buffer::new(64, 1, 2),
        Buffer::new(8, 0, 2).with_alignment(16),
    ])
    .with_inside(1, 0, 8);
    assert!(bad.validate().is_err());
}

/// Random problems with a few NPU-call-like groups: an outer buffer alive briefly, members
/// alive from before it or until after it.
fn grouped() -> impl Strategy<Value = Problem> {
    let plain = (1u64..120, 0u64..24, 1u64..8)
        .prop_map(|(size, lower, len)| Buffer::new(size, lower, lower + len));
    let group = (4u64..12, 0u64..24, 0u64..6, 0u64..6, 0u64..4, 0u64..4).prop_map(
        |(lines, at, before, after, in_slot, out_slot)| {
            let size = lines * 16;
            (
                size,
                at,
                before,
                after,
                in_slot * 16 % size,
                out_slot * 16 % size,
            )
        },
    );
    (
        prop::collection::vec(plain, 0..25),
        prop::collection::vec(group, 1..5),
    )
        .prop_map(|(mut buffers, groups)| {
            let mut inside = Vec::new();
            for (size, at, before, after, in_slot, out_slot) in groups {
                let outer = buffers.len();
                buffers.push(Buffer::new(size, at + 6, at + 7));
                let slot = 16.min(size - in_slot.max(out_slot));
                buffers.push(Buffer::new(slot, at + 6 - before, at + 7));
                inside.push((buffers.len() - 1, outer, in_slot));
                buffers.push(Buffer::new(slot, at + 6, at + 7 + after));
                inside.push((buffers.len() - 1, outer, out_slot));
            }
            let mut p = Problem::new(buffers).with_alignment(16);
            for (member, within, offset) in inside {
                p = p.with_inside(member, within, offset);
            }
            p
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn plans_with_groups_hold_and_the_checker_agrees_with_the_oracle(p in grouped()) {
        let plan = Planner::new().step_budget(100_000).plan(&p).unwrap();
        prop_assert!(verify(&p, &plan.offsets).is_ok());
        prop_assert!(!collides(&p, &plan.offsets));
        prop_assert!(plan.arena >= lower_bound(&p));
        for c in &p.inside {
            prop_assert_eq!(plan.offsets[c.member], plan.offsets[c.within] + c.offset);
        }
    }

    /// Moving one buffer anywhere: the checker and the oracle agree on collisions.
    #[test]
    fn the_checker_finds_what_the_oracle_finds(p in grouped(), pick in any::<prop::sample::Index>(), to in 0u64..40) {
        let mut offsets = Planner::new().step_budget(0).plan(&p).unwrap().offsets;
        let i = pick.index(p.buffers.len());
        if let Some(c) = p.inside.iter().find(|c| c.member == i) {
            offsets[c.within] = to * 16;
            for m in p.inside.iter().filter(|m| m.within == c.within) {
                offsets[m.member] = to * 16 + m.offset;
            }
        } else {
            offsets[i] = to * 16;
            for m in p.inside.iter().filter(|m| m.within == i) {
                offsets[m.member] = to * 16 + m.offset;
            }
        }
        let checked = match verify(&p, &offsets) {
            Ok(_) => false,
            Err(VerifyError::Collision(_)) => true,
            Err(e) => return Err(TestCaseError::fail(e.to_string())),
        };
        prop_assert_eq!(checked, collides(&p, &offsets));
    }
}

#[test]
fn the_bounds_of_a_problem_validate_refuses_do_not_panic() {
    let two = || Problem::new(vec![Buffer::new(64, 0, 1), Buffer::new(16, 0, 2)]);
    for p in [
        two().with_inside(1, 7, 0),
        two().with_inside(9, 0, 0),
        two().with_inside(1, 1, 0),
        two().with_inside(1, 0, 0).with_inside(0, 1, 0),
    ] {
        assert!(p.validate().is_err());
        let _ = (lower_bound(&p), end_lower_bound(&p));
    }
}
