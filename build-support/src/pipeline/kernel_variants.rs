//! Which variant each CPU kernel runs, where its library offers two: CMSIS-NN's convolution
//! and depthwise kernels are fastest with a scratch buffer (im2col columns, Helium's and DSP's
//! reordered inputs), and the runtime's kernels also run without one — a direct convolution,
//! CMSIS-NN's generic depthwise kernel — with the same output bytes ([`ScratchByIsa::optional`]).
//!
//! By default a call keeps its fast variant wherever its scratch fits in memory the plan needs
//! anyway (alongside tensors that are not alive during the call), and runs without scratch
//! where the scratch would make the arena larger: a model's arena is never larger than its
//! tensors need, as TFLite Micro's with its reference kernels. The rule is deterministic: plan
//! with every scratch; if that is larger than the plan without the optional ones, drop the
//! optional scratch buffers that reach past the smaller plan's size and plan again, until the
//! plan is no larger (or every optional scratch is dropped).
//!
//! [`ScratchByIsa::optional`]: crate::model::ScratchByIsa

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{BufferKind, ModelPlan};
use crate::model::{DroppedScratch, Instruction, Isa, Program};

/// How CPU kernels with a scratch-free variant are chosen ([`Build::kernel_variants`]).
///
/// [`Build::kernel_variants`]: crate::Build::kernel_variants
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum KernelVariants {
    /// The fast variant wherever its scratch does not make the arena larger (default).
    #[default]
    FitArena,
    /// The fast variant everywhere, its scratch planned even where the arena grows.
    Fastest,
}

/// The flat indices of the calls whose library scratch the kernel can do without.
pub(super) fn optional_calls(program: &Program) -> BTreeSet<usize> {
    program
        .flat_instructions()
        .into_iter()
        .filter_map(|(at, i)| match i {
            Instruction::Kernel(k) if k.scratch_need.as_ref().is_some_and(|n| n.optional) => {
                Some(at)
            }
            _ => None,
        })
        .collect()
}

/// `program` with the library scratch of the calls in `drop` taken away: those calls run
/// their scratch-free variant. Each remembers what it does without, sized for `isa` (the
/// plan's instruction set), for the report.
pub(super) fn without_scratch(
    program: &Program,
    drop: &BTreeSet<usize>,
    isa: Option<Isa>,
) -> Program {
    let mut program = program.clone();
    program.for_each_instruction_mut(|at, i| {
        if let Instruction::Kernel(k) = i {
            if drop.contains(&at) {
                k.scratch_free = k.scratch_need.take().map(|need| {
                    let isa = isa.unwrap_or(Isa::Plain);
                    DroppedScratch {
                        bytes: need.bytes(isa),
                        function: format!("{}{}", need.function, isa.suffix()),
                    }
                });
            }
        }
    });
    program
}

/// The plan's bytes over all pools.
pub(super) fn total(plan: &ModelPlan) -> u64 {
    plan.pools.iter().map(|p| p.size).sum()
}

/// The optional calls (not yet dropped) whose scratch in `plan` reaches past the size its pool
/// has in `lean`.
pub(super) fn over_lean(
    plan: &ModelPlan,
    lean: &ModelPlan,
    optional: &BTreeSet<usize>,
    dropped: &BTreeSet<usize>,
) -> BTreeSet<usize> {
    plan.buffers
        .iter()
        .filter(|b| b.kind == BufferKind::Scratch)
        .filter_map(|b| {
            let call = b.call?;
            let limit = lean.pool(b.mem_id).map_or(0, |p| p.size);
            (optional.contains(&call) && !dropped.contains(&call) && b.offset + b.size > limit)
                .then_some(call)
        })
        .collect()
}
