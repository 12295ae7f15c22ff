//! Choosing each buffer's pool, checking pool rules, and planning one pool.
//!
//! In a pool with a data-cache line (`dcache_line` in targets.toml), a buffer the NPU reads or
//! writes is planned on whole lines: aligned to the line and its room rounded up to whole
//! lines, so no other buffer shares a line with it. The backend cleans such a buffer before the
//! NPU runs and invalidates it after; without the padding, invalidating the last line would
//! throw away a neighbour's bytes the CPU had just written. The padding is the planner's item
//! size, so the lower bound and the checker count it. In `plan.json` (and so in the runtime's
//! tables) a delegate's scratch has that padded size, so the backend can check it owns the lines
//! it maintains; tensors keep their real size.

use std::fmt;

use thiserror::Error;

use crate::backends::plugin_for;
use crate::model::{Instruction, PoolChoice, Program, ValueKind};
use crate::targets::{Pool, SpecError, Target};
use arenaplan_planner::{Buffer, PlanError, Planner, Problem};

use super::in_scratch::InScratch;
use super::lifetimes::Lifetime;
use super::{PipelineError, PoolPlan};

/// A tensor whose pool cannot hold it.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PoolAssignmentError {
    /// The pool the model names cannot be used.
    #[error("tensor `{tensor}`: {source}")]
    Unusable {
        /// The tensor.
        tensor: String,
        /// Why.
        source: SpecError,
    },
    /// A CPU kernel touches a tensor in a pool the CPU cannot reach, or a backend's C code
    /// does (Ethos-U copies its inputs and outputs through its scratch with the CPU).
    #[error("tensor `{tensor}` is in pool `{pool}` (mem_id {mem_id}), which the CPU cannot reach, but the CPU touches it in `{op}` (instruction {instruction}: a kernel, or a backend that copies its inputs and outputs with the CPU); put it in a pool with cpu_access = true")]
    NotCpuReachable {
        /// The tensor.
        tensor: String,
        /// Its pool.
        pool: String,
        /// The pool's id.
        mem_id: u32,
        /// The kernel.
        op: String,
        /// Its flat index.
        instruction: usize,
    },
    /// State shared between methods outside the default pool.
    #[error("method `{method}`: buffer `{tensor}` is state shared between methods, but it is in pool `{pool}` (mem_id {mem_id}); shared state lives in the default pool `{default}` (mem_id {default_mem_id}), which every method's tables bind and no backend claims between runs: remove the buffer's pool override")]
    SharedStatePool {
        /// The first method that uses it.
        method: String,
        /// The buffer.
        tensor: String,
        /// Its pool.
        pool: String,
        /// The pool's id.
        mem_id: u32,
        /// The target's default pool.
        default: String,
        /// Its id.
        default_mem_id: u32,
    },
}

/// A pool whose buffers do not fit, with the largest buffers alive at the peak.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("pool `{pool}` (mem_id {mem_id}) needs {arena} bytes but has {capacity} ({} over; lower bound {lower_bound}); largest buffers alive at instruction {peak_at}: {}",
    arena - capacity, .largest.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))]
pub struct PoolOverflow {
    /// The pool.
    pub pool: String,
    /// Its id.
    pub mem_id: u32,
    /// Its capacity.
    pub capacity: u64,
    /// The best arena found.
    pub arena: u64,
    /// The lower bound (if above the capacity, no plan can fit).
    pub lower_bound: u64,
    /// The instruction where the most bytes are alive.
    pub peak_at: usize,
    /// The largest buffers alive there, largest first (at most five).
    pub largest: Vec<PeakBuffer>,
}

/// A buffer named in an overflow report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeakBuffer {
    /// The value's name.
    pub name: String,
    /// Bytes.
    pub size: u64,
    /// For scratch: the delegate and the call it belongs to.
    pub scratch_of: Option<(String, usize)>,
}

impl fmt::Display for PeakBuffer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.scratch_of {
            Some((delegate, call)) => write!(
                f,
                "scratch of delegate `{delegate}` at call {call} ({} bytes)",
                self.size
            ),
            None => write!(f, "tensor `{}` ({} bytes)", self.name, self.size),
        }
    }
}

/// The pool of every value that needs one (`None`: constant, or never used).
pub(super) fn assign(
    program: &Program,
    target: &Target,
    life: &[Option<Lifetime>],
) -> Result<Vec<Option<u32>>, PoolAssignmentError> {
    let mut mem_ids = vec![None; program.values.len()];
    for (v, value) in program.values.iter().enumerate() {
        if !value.is_planned() || life[v].is_none() {
            continue;
        }
        let pool = match &value.pool {
            None => target.enabled_pool(i64::from(target.default_mem_id)),
            Some(PoolChoice::Spec(spec)) => target.resolve_spec(spec),
            Some(PoolChoice::MemId(id)) => target.enabled_pool(*id),
        }
        .map_err(|source| PoolAssignmentError::Unusable {
            tensor: value.name.clone(),
            source,
        })?;
        let shared = pool.mem_id != target.default_mem_id && program.state.contains(&v);
        let users = if shared {
            methods_using(program, v)
        } else {
            Vec::new()
        };
        if users.len() > 1 {
            let default = target.pool(target.default_mem_id);
            return Err(PoolAssignmentError::SharedStatePool {
                method: users[0].to_owned(),
                tensor: value.name.clone(),
                pool: pool.name.clone(),
                mem_id: pool.mem_id,
                default: default.map_or_else(String::new, |p| p.name.clone()),
                default_mem_id: target.default_mem_id,
            });
        }
        mem_ids[v] = Some(pool.mem_id);
    }
    for (index, instruction) in program.flat_instructions() {
        let (op, touched) = match instruction {
            Instruction::Kernel(k) => (k.op.clone(), instruction.touched()),
            Instruction::Branch(_) => ("branch predicate".to_owned(), instruction.touched()),
            Instruction::Delegate(d) => match cpu_copied(program, d) {
                Some(touched) => (program.delegates[d.delegate].backend.clone(), touched),
                None => continue,
            },
        };
        for v in touched {
            if let Some(pool) = mem_ids[v].and_then(|id| target.pool(id)) {
                if !pool.cpu_access {
                    return Err(PoolAssignmentError::NotCpuReachable {
                        tensor: program.values[v].name.clone(),
                        pool: pool.name.clone(),
                        mem_id: pool.mem_id,
                        op,
                        instruction: index,
                    });
                }
            }
        }
    }
    Ok(mem_ids)
}

/// The values of delegate call `d` that its backend's C code touches with the CPU: the inputs
/// and outputs of a backend that copies them (its NPU does not read them in place), and the
/// scratch it copies them through. `None` for a backend arenaplan has no plugin for.
fn cpu_copied(program: &Program, d: &crate::model::DelegateCall) -> Option<Vec<usize>> {
    let plugin = plugin_for(&program.delegates[d.delegate].backend)?;
    if plugin.npu_reads_io() {
        return None;
    }
    let through = d.scratch.iter().copied().filter(|&v| {
        matches!(program.values[v].kind, ValueKind::Scratch { role: Some(role), .. } if plugin.cpu_copies_through(role))
    });
    Some(
        d.inputs
            .iter()
            .chain(&d.outputs)
            .copied()
            .chain(through)
            .collect(),
    )
}

/// The methods whose instructions, inputs or outputs use value `v`.
fn methods_using(program: &Program, v: usize) -> Vec<&str> {
    let flat = program.flat_instructions();
    program
        .methods
        .iter()
        .enumerate()
        .filter(|(k, m)| {
            let range = program.method_flat_range(*k);
            m.inputs.contains(&v)
                || m.outputs.contains(&v)
                || flat[range]
                    .iter()
                    .any(|(_, ins)| ins.touched().contains(&v))
        })
        .map(|(_, m)| m.name.as_str())
        .collect()
}

/// Which values the NPU itself reads or writes: the scratch of every call of a backend that
/// arenaplan has a blob plugin for (an NPU backend), and the inputs and outputs of those calls
/// whose backend lets the NPU access them in place ([`BackendPlugin::npu_reads_io`]).
///
/// [`BackendPlugin::npu_reads_io`]: crate::backends::BackendPlugin::npu_reads_io
pub fn npu_visible(program: &Program) -> Vec<bool> {
    let mut visible = vec![false; program.values.len()];
    for (_, instruction) in program.flat_instructions() {
        let Instruction::Delegate(call) = instruction else {
            continue;
        };
        let Some(plugin) = program
            .delegates
            .get(call.delegate)
            .and_then(|d| plugin_for(&d.backend))
        else {
            continue;
        };
        let mut mark = |ids: &[usize]| {
            for &v in ids {
                if let Some(flag) = visible.get_mut(v) {
                    *flag = true;
                }
            }
        };
        mark(&call.scratch);
        if plugin.npu_reads_io() {
            mark(&call.inputs);
            mark(&call.outputs);
        }
    }
    // The planted bug of the mutation test: the NPU's buffers forgotten, so none is put on
    // whole cache lines.
    #[cfg(arenaplan_mutant = "npu_visible")]
    visible.fill(false);
    visible
}

/// The buffer the planner places for value `v`: on whole data-cache lines when the NPU sees it
/// and the pool has a line.
fn planned_buffer(
    program: &Program,
    pool: &Pool,
    v: usize,
    life: Lifetime,
    npu_visible: bool,
) -> Buffer {
    let (lower, upper) = (life.first as u64, life.last as u64 + 1);
    // The owned lines become the size itself, so that the checker, which checks sizes as
    // given, also proves that nothing else is placed in the padding.
    let owned = pool.owned_bytes(program.values[v].bytes, npu_visible);
    let buffer = Buffer::new(owned, lower, upper);
    match pool.npu_line(npu_visible) {
        Some(line) => buffer.with_alignment(line),
        None => buffer,
    }
}

/// Plans the `members` (value ids) of one pool; offsets in the order of `members`. A tensor
/// `inside` its call's scratch is kept at its offset there (aligned to the pool by its slot).
pub(super) fn plan_pool(
    program: &Program,
    pool: &Pool,
    members: &[usize],
    life: &[Option<Lifetime>],
    npu_visible: &[bool],
    inside: &[InScratch],
    planner: &Planner,
) -> Result<(PoolPlan, Vec<u64>), PipelineError> {
    let mut buffers: Vec<Buffer> = members
        .iter()
        .map(|&v| {
            let l = life[v].expect("planned values have lifetimes");
            planned_buffer(program, pool, v, l, npu_visible[v])
        })
        .collect();
    let position = |v: usize| members.binary_search(&v).ok();
    let mut constraints = Vec::new();
    for i in inside {
        if let (Some(member), Some(within)) = (position(i.value), position(i.scratch)) {
            // The pool's alignment is not applied to a member (its group places it): its
            // slot's offset keeps it, and the buffer says so for the checker.
            buffers[member].alignment = pool.alignment;
            constraints.push((member, within, i.offset));
        }
    }
    // The planner rounds every size up to the pool's alignment, the last buffer's too; the
    // arena only has to reach the last byte a buffer uses (the linker aligns what follows it).
    // So the planner may use the capacity rounded up, and the end of the last byte is what is
    // checked against the capacity and reported: 100 bytes at alignment 16 fit a 100-byte pool.
    let mut problem = Problem::new(buffers);
    for (member, within, offset) in constraints {
        problem = problem.with_inside(member, within, offset);
    }
    let problem = problem.with_alignment(pool.alignment).with_capacity(
        pool.capacity
            .checked_next_multiple_of(pool.alignment)
            .unwrap_or(u64::MAX),
    );
    match planner.plan(&problem) {
        Ok(plan) => {
            let end = problem
                .buffers
                .iter()
                .zip(&plan.offsets)
                .map(|(b, &offset)| offset + b.size)
                .max()
                .unwrap_or(0);
            // The one bound of a pool's arena, which ends at its last byte.
            let lower_bound = arenaplan_planner::end_lower_bound(&problem);
            if end > pool.capacity {
                return Err(overflow(program, pool, members, &problem, end, lower_bound).into());
            }
            Ok((
                PoolPlan {
                    mem_id: pool.mem_id,
                    name: pool.name.clone(),
                    size: end,
                    capacity: pool.capacity,
                    lower_bound,
                    stopped_early: plan.stopped,
                    search_ended: (end > lower_bound).then(|| plan.ended.to_string()),
                },
                plan.offsets,
            ))
        }
        Err(PlanError::DoesNotFit { arena, .. }) => {
            let lower_bound = arenaplan_planner::end_lower_bound(&problem);
            Err(overflow(program, pool, members, &problem, arena, lower_bound).into())
        }
        Err(source) => Err(PipelineError::Plan {
            pool: pool.name.clone(),
            source,
        }),
    }
}

fn overflow(
    program: &Program,
    pool: &Pool,
    members: &[usize],
    problem: &Problem,
    arena: u64,
    lower_bound: u64,
) -> PoolOverflow {
    // The instant with the most (padded) bytes alive.
    let end = problem.buffers.iter().map(|b| b.upper).max().unwrap_or(0);
    let live_at = |t: u64| -> u64 {
        problem
            .buffers
            .iter()
            .filter(|b| b.lower <= t && t < b.upper)
            .map(|b| b.padded_size(pool.alignment))
            .sum()
    };
    let peak_at = (0..end)
        .max_by_key(|&t| (live_at(t), std::cmp::Reverse(t)))
        .unwrap_or(0);
    let mut alive: Vec<usize> = (0..members.len())
        .filter(|&i| problem.buffers[i].lower <= peak_at && peak_at < problem.buffers[i].upper)
        .collect();
    alive.sort_by_key(|&i| (std::cmp::Reverse(problem.buffers[i].size), i));
    let largest = alive
        .iter()
        .take(5)
        .map(|&i| {
            let value = &program.values[members[i]];
            let scratch_of = match &value.kind {
                ValueKind::Scratch { call, owner, .. } => {
                    Some((owner.name(program).to_owned(), *call))
                }
                _ => None,
            };
            PeakBuffer {
                name: value.name.clone(),
                size: value.bytes,
                scratch_of,
            }
        })
        .collect();
    PoolOverflow {
        pool: pool.name.clone(),
        mem_id: pool.mem_id,
        capacity: pool.capacity,
        arena,
        lower_bound,
        peak_at: peak_at as usize,
        largest,
    }
}
