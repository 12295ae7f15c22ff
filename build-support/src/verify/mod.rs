//! The verify stage, between planning and emission: checks the [`ModelPlan`] that is
//! serialised and emitted against the program and the target, on every build. The emitters
//! take only a [`Verified`] plan, which nothing but [`verify`] makes, so no plan reaches
//! generated code unchecked. The planner's own checker (`arenaplan_planner::verify`) proves
//! each pool's placement; this stage proves what ships — that the plan's buffers, pools and
//! argument lists say what the program needs — so a bug in the stages between them (binding,
//! argument lists, the assembly of the plan) cannot reach firmware.
//!
//! It shares no code with the pipeline. What it checks the plan against, it works out itself,
//! from the program, the blobs' facts and the target, one module each:
//!
//! - `order`: the instructions in execution order (control flow's arms after their branch),
//!   the numbering every index in the plan uses;
//! - `needed`: when each value must hold its bytes;
//! - `npu`: which values an NPU reads or writes;
//! - `cache_lines`: which bytes a buffer owns and where it may start, given its pool's line;
//! - `slots`: which inputs and outputs sit at their slot inside their call's NPU scratch;
//! - `branches`: the runtime's instruction table, jumps included.
//!
//! So a bug in the pipeline's lifetimes, pool assignment, cache-line rule, slot resolution or
//! jumps is a disagreement here, not a bug both sides agree on. The mutation test
//! (`tests/mutants.rs`) plants one such bug at a time in the pipeline and requires this stage
//! to refuse the plans it makes.
//!
//! What it trusts rather than derives, because it is the format or the ABI and not a decision
//! of the pipeline: the program as imported and planned (scratch inserted); the target's
//! pools; each backend's blob reader for the blob's own facts (Vela's I/O offsets,
//! [`crate::backends::BackendPlugin::io_slots`]; whether the NPU reads a call's inputs and
//! outputs in place, [`crate::backends::BackendPlugin::npu_reads_io`]), found by
//! [`crate::backends::plugin_for`]; and each scratch role's argument position
//! ([`crate::model::ScratchRole::slot`], the header the C backends are compiled against).
//! The one pipeline function it calls is [`crate::pipeline::steps`], as the thing checked: the
//! instruction table the emitters lay out must be the one `branches` lays out.
//!
//! Checked: the plan is for this target; every planned value has exactly one buffer (a tensor's
//! or its call's scratch, as the program says) and nothing else has one; each buffer in
//! an enabled pool of the target, aligned to the pool (and to its data-cache line when the NPU
//! uses it), at least as large as its value (an NPU scratch whole lines), inside its pool's
//! arena; each arena within its capacity and reaching exactly the end of its last buffer, one
//! per pool and named as the target names it; no two buffers alive at the same time sharing a
//! byte, but a tensor at its slot in a call's scratch, or a view on the value it views (which
//! it must lie exactly on); one entry per kernel and delegate call
//! of the program, in order, with its backend, and its arguments the program's inputs, outputs
//! and scratch in that order and counts, each buffer alive during its call; every branch one
//! the runtime runs, and the instruction table the checker's.

use thiserror::Error;

use crate::model::{Instruction, Program};
use crate::pipeline::ModelPlan;
use crate::targets::Target;

mod arenas;
mod branches;
mod buffers;
mod cache_lines;
mod calls;
mod declarations;
mod needed;
mod npu;
mod order;
mod overlap;
mod slots;

pub use declarations::check_declarations;

use needed::{needed, Needed};
use npu::npu_touches;

/// A plan that does not hold for its program and target: a bug in arenaplan.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("the plan for target `{target}` does not hold: {problem} (a bug in arenaplan; please report it)")]
pub struct PlanCheckError {
    /// The target.
    pub target: String,
    /// What is wrong.
    pub problem: String,
}

/// A plan the verify stage accepted, with the program and target it was checked against: the
/// only input the emitters take.
#[derive(Clone, Copy, Debug)]
pub struct Verified<'a> {
    program: &'a Program,
    plan: &'a ModelPlan,
    target: &'a Target,
}

impl<'a> Verified<'a> {
    /// The program as planned (scratch inserted).
    pub fn program(&self) -> &'a Program {
        self.program
    }

    /// The plan.
    pub fn plan(&self) -> &'a ModelPlan {
        self.plan
    }

    /// The target.
    pub fn target(&self) -> &'a Target {
        self.target
    }
}

/// Checks `plan` against `program` (as planned: scratch inserted) and `target`; the build runs
/// it on every plan before anything is emitted.
///
/// ```
/// use arenaplan_build::diagnostic::SourceText;
/// use arenaplan_build::import::parse_toml_model;
/// use arenaplan_build::pipeline::Pipeline;
/// use arenaplan_build::verify::verify;
/// use arenaplan_build::targets::Catalogue;
///
/// let model = parse_toml_model(&SourceText::new("m.toml", r#"
///     name = "m"
///     inputs = ["x"]
///     outputs = ["y"]
///     [[tensor]]
///     name = "x"
///     dtype = "int8"
///     shape = [64]
///     [[tensor]]
///     name = "y"
///     dtype = "int8"
///     shape = [64]
///     [[instruction]]
///     kind = "kernel"
///     op = "relu"
///     inputs = ["x"]
///     outputs = ["y"]
/// "#), None)?;
/// let catalogue = Catalogue::builtin();
/// let target = catalogue.target("mcxn947")?;
/// let (program, mut plan) = Pipeline::new(target).run(model)?;
/// assert!(verify(&program, &plan, target).is_ok());
/// plan.buffers[1].offset = plan.buffers[0].offset; // y over x, both alive at the kernel
/// assert!(verify(&program, &plan, target).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn verify<'a>(
    program: &'a Program,
    plan: &'a ModelPlan,
    target: &'a Target,
) -> Result<Verified<'a>, PlanCheckError> {
    let flat = order::flat(program);
    let account = Account {
        needed: needed(program, &flat),
        npu: npu_touches(program, &flat),
        flat,
    };
    check(program, plan, target, &account).map_err(|problem| PlanCheckError {
        target: target.name.clone(),
        problem,
    })?;
    Ok(Verified {
        program,
        plan,
        target,
    })
}

/// The checker's own account of the program, derived without the pipeline (see each module).
struct Account<'a> {
    /// The instructions in execution order ([`order::flat`]).
    flat: Vec<(usize, &'a Instruction)>,
    /// When each value is needed ([`needed()`]).
    needed: Vec<Option<Needed>>,
    /// Whether an NPU touches each value ([`npu_touches`]).
    npu: Vec<bool>,
}

/// Every check, in order; `Err` says what is wrong.
fn check(
    program: &Program,
    plan: &ModelPlan,
    target: &Target,
    account: &Account,
) -> Result<(), String> {
    if plan.target != target.name {
        return Err(format!("the plan names target `{}`", plan.target));
    }
    // Every branch is one the runtime runs (the emitters lay out the jumps from this).
    branches::all_runnable(program, &account.flat)?;
    let buffer_of = buffers::check(program, plan, target, account)?;
    arenas::check(plan, target, &account.npu)?;
    overlap::check(program, plan, target, account)?;
    calls::check(program, plan, account, &buffer_of)?;
    // The table the emitters lay out (the pipeline's) is the checker's own.
    let shipped = crate::pipeline::steps(program, plan).map_err(|e| e.to_string())?;
    branches::check_table(program, &shipped)
}
