//! Host memory standing in for a board's arenas.

use std::vec::Vec;

use arenaplan::sys;
use arenaplan_build::model::Program;
use arenaplan_build::ModelPlan;

/// One data-cache line of arena storage (32 bytes, as the Cortex-M55's): generated arenas
/// start on a line, and the NPU's buffers own whole lines.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Line([u8; 32]);

/// Host memory for every pool of a plan, line-aligned, with the `ap_pool_t` list that hands it
/// to the runtime. No kinder than a board: a board's arenas are `NOLOAD` and hold whatever was
/// there, so these start filled with a poison byte, never zero, but for the program's state
/// at its initial contents (zeros where it has none), as the generated `NAME_init` writes it. A program that reads
/// memory it never wrote gives different outputs on two poisons.
///
/// ```no_run
/// # fn f(program: &arenaplan_build::model::Program, plan: &arenaplan_build::ModelPlan) {
/// let arenas = arenaplan_host::Arenas::new(program, plan);
/// assert_eq!(arenas.pools().len(), plan.pools.len());
/// let other = arenaplan_host::Arenas::poisoned(program, plan, 0x5A);
/// # }
/// ```
pub struct Arenas {
    // Each pool's storage; the pools point into it (a Vec's buffer does not move).
    storage: Vec<Vec<Line>>,
    pools: Vec<sys::ap_pool>,
}

impl Arenas {
    /// The poison [`Arenas::new`] fills arenas with.
    pub const POISON: u8 = 0xA5;

    /// Storage for each of `plan`'s pools, at least one line each, filled with
    /// [`Arenas::POISON`], with `program`'s state at its initial contents (zeros without).
    pub fn new(program: &Program, plan: &ModelPlan) -> Arenas {
        Self::poisoned(program, plan, Self::POISON)
    }

    /// [`Arenas::new`] with another poison byte.
    pub fn poisoned(program: &Program, plan: &ModelPlan, poison: u8) -> Arenas {
        let mut storage: Vec<Vec<Line>> = plan
            .pools
            .iter()
            .map(|pool| std::vec![Line([poison; 32]); (pool.size as usize).div_ceil(32).max(1)])
            .collect();
        // As the generated NAME_init (Value::initial_state).
        for &v in &program.state {
            let Some(b) = plan.buffer(v) else {
                continue;
            };
            let Some(k) = plan.pools.iter().position(|p| p.mem_id == b.mem_id) else {
                continue;
            };
            let initial = program.values[v].initial_state(b.size);
            for (i, &byte) in initial.iter().enumerate().take(b.size as usize) {
                let at = b.offset as usize + i;
                if let Some(line) = storage[k].get_mut(at / 32) {
                    line.0[at % 32] = byte;
                }
            }
        }
        let pools = plan
            .pools
            .iter()
            .zip(storage.iter_mut())
            .map(|(pool, a)| sys::ap_pool {
                mem_id: pool.mem_id,
                base: a.as_mut_ptr().cast(),
                size: a.len() * 32,
            })
            .collect();
        Arenas { storage, pools }
    }

    /// Fills every byte but the state's with `poison`: what a board's other code may leave
    /// in the arenas between two invocations, when only the state is the program's to keep.
    /// Call it between runs, never during one.
    pub fn forget_all_but_state(&mut self, program: &Program, plan: &ModelPlan, poison: u8) {
        let mut keep: Vec<Vec<(usize, usize)>> = std::vec![Vec::new(); plan.pools.len()];
        for &v in &program.state {
            let Some(b) = plan.buffer(v) else { continue };
            if let Some(k) = plan.pools.iter().position(|p| p.mem_id == b.mem_id) {
                keep[k].push((b.offset as usize, (b.offset + b.size) as usize));
            }
        }
        for (k, pool) in self.storage.iter_mut().enumerate() {
            for (l, line) in pool.iter_mut().enumerate() {
                for (i, byte) in line.0.iter_mut().enumerate() {
                    let at = 32 * l + i;
                    if !keep[k].iter().any(|&(start, end)| start <= at && at < end) {
                        *byte = poison;
                    }
                }
            }
        }
    }

    /// The pools, for [`Runner::new`](crate::Runner::new) (valid while `self` lives).
    pub fn pools(&self) -> &[sys::ap_pool] {
        &self.pools
    }
}
