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

/// Host memory for every pool of a plan, line-aligned, zeroed but for the initial contents of
/// the program's state (as the generated `NAME_init` copies them in), with the `ap_pool_t`
/// list that hands it to the runtime.
///
/// ```no_run
/// # fn f(program: &arenaplan_build::model::Program, plan: &arenaplan_build::ModelPlan) {
/// let arenas = arenaplan_host::Arenas::new(program, plan);
/// assert_eq!(arenas.pools().len(), plan.pools.len());
/// # }
/// ```
pub struct Arenas {
    // Each pool's storage; the pools point into it (a Vec's buffer does not move).
    _storage: Vec<Vec<Line>>,
    pools: Vec<sys::ap_pool>,
}

impl Arenas {
    /// Storage for each of `plan`'s pools, at least one line each, with `program`'s state at
    /// its initial contents.
    pub fn new(program: &Program, plan: &ModelPlan) -> Arenas {
        let mut storage: Vec<Vec<Line>> = plan
            .pools
            .iter()
            .map(|pool| std::vec![Line([0; 32]); (pool.size as usize).div_ceil(32).max(1)])
            .collect();
        for &v in &program.state {
            let (Some(data), Some(b)) = (&program.values[v].data, plan.buffer(v)) else {
                continue;
            };
            let Some(k) = plan.pools.iter().position(|p| p.mem_id == b.mem_id) else {
                continue;
            };
            for (i, &byte) in data.bytes().iter().enumerate().take(b.size as usize) {
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
        Arenas {
            _storage: storage,
            pools,
        }
    }

    /// The pools, for [`Runner::new`](crate::Runner::new) (valid while `self` lives).
    pub fn pools(&self) -> &[sys::ap_pool] {
        &self.pools
    }
}
