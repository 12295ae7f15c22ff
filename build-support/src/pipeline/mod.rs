//! Planning a whole model for a target: bind scratch → scratch pass → lifetimes → pools →
//! plan each pool; the build then runs the [`verify`](crate::verify) stage on the result. Each step is a module of its own; data flows one way.
//!
//! ```
//! use arenaplan_build::diagnostic::SourceText;
//! use arenaplan_build::import::parse_toml_model;
//! use arenaplan_build::pipeline::Pipeline;
//! use arenaplan_build::targets::Catalogue;
//!
//! let model = parse_toml_model(&SourceText::new("m.toml", r#"
//!     name = "one_call"
//!     inputs = ["x"]
//!     outputs = ["y"]
//!     [[tensor]]
//!     name = "x"
//!     dtype = "int8"
//!     shape = [1024]
//!     [[tensor]]
//!     name = "y"
//!     dtype = "int8"
//!     shape = [1024]
//!     [[delegate]]
//!     name = "npu"
//!     backend = "EthosUBackend"
//!     scratch = [ { size = 1536, pool = "npu_scratch" } ]
//!     [[instruction]]
//!     kind = "delegate"
//!     delegate = "npu"
//!     inputs = ["x"]
//!     outputs = ["y"]
//! "#), None)?;
//! let catalogue = Catalogue::builtin();
//! let plan = Pipeline::new(catalogue.target("corstone-300")?).plan(model)?;
//! assert_eq!(plan.calls[0].scratch, 1);
//! assert_eq!(plan.pools[0].size, 1024 + 1024 + 1536);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod argument_needs;
mod arguments;
mod bind;
mod constants;
mod in_scratch;
mod io_sizes;
mod kernel_variants;
mod lifetimes;
mod npu_check;
mod pools;
mod scratch_pass;
mod steps;
mod value_meta;

use std::fmt;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::model::{Program, ValueKind};
use crate::targets::Target;
use arenaplan_planner::Planner;

pub use argument_needs::{add_argument_needs, add_target_specs, ArgumentNeedsError, OWN_SPECS};
pub use arguments::{argument_lists, CallArgs, MissingScratch};
pub use bind::{
    bind_scratch, BackendScratch, Bound, BoundScratch, Declarations, DeclaredScratch,
    KernelScratch, ScratchError, ScratchProblem, ScratchSite,
};
pub use constants::{ConstantLayout, FlashConstant};
pub use in_scratch::InScratch;
pub use io_sizes::{check_io_sizes, IoSizeError};
pub use kernel_variants::KernelVariants;
pub use lifetimes::{lifetimes, Lifetime};
pub use npu_check::{check_npu, NpuMismatchError};
pub use pools::{npu_visible, PeakBuffer, PoolAssignmentError, PoolOverflow};
pub use scratch_pass::{insert_scratch, strip_scratch};
pub use steps::{steps, BranchError, Step, Steps};
pub use value_meta::ValueMetas;

/// A model's memory plan: every planned buffer's place, and every call's argument list.
///
/// Its JSON form (`NAME.plan.json`, see [`ModelPlan::to_json`]) is a fixed format other tools
/// read: field names as here, `kind` as `"tensor"`/`"scratch"` and `"delegate"`/`"kernel"`,
/// `call` and `backend` present only where they apply, `first`/`last` inclusive instruction
/// indices, `args` value ids (constants and empty scratch slots have no buffer).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPlan {
    /// The target it was planned for.
    pub target: String,
    /// One entry per pool that holds something, by `mem_id`.
    pub pools: Vec<PoolPlan>,
    /// Every planned buffer, by value id.
    pub buffers: Vec<BufferPlan>,
    /// Every kernel and delegate call, in execution order.
    pub calls: Vec<CallPlan>,
}

/// The arena of one pool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolPlan {
    /// The pool's id.
    pub mem_id: u32,
    /// The pool's name.
    pub name: String,
    /// Bytes of the arena: up to the last byte a buffer uses (the last buffer is not padded to
    /// the alignment; the arena's start is aligned).
    pub size: u64,
    /// Bytes the pool has.
    pub capacity: u64,
    /// No arena for these buffers can be smaller: `size` is never below it
    /// ([`arenaplan_planner::end_lower_bound`]: the most bytes alive at one time, each buffer
    /// rounded up to the pool's alignment but the one ending highest, whose last byte the
    /// arena reaches). It is below the figure that rounds every buffer (TFLM's, Vela's) by
    /// less than one alignment.
    pub lower_bound: u64,
    /// Planning was stopped early (a deadline, Ctrl-C: [`arenaplan_planner::Planner::stop_flag`]):
    /// the arena is the best verified one found by then. Absent from the JSON when false, so
    /// a complete plan's files are the same as ever.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stopped_early: bool,
    /// What ended the search when the arena is above its lower bound (the planner's
    /// [`arenaplan_planner::Ended`], said in words): whether more budget or patience could
    /// help. Absent at the bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_ended: Option<String>,
}

/// Where one buffer lives.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferPlan {
    /// The value's id in the program (also its id in argument lists).
    pub id: usize,
    /// A tensor or a call's scratch.
    pub kind: BufferKind,
    /// Its pool.
    pub mem_id: u32,
    /// Offset in the pool's arena.
    pub offset: u64,
    /// Bytes the buffer owns. A buffer the NPU reads or writes, in a pool with a data-cache
    /// line, starts on a line and nothing else is placed in the rest of its last line; for a
    /// delegate's scratch that padding is part of its size, so the backend can check that the
    /// whole lines it cleans and invalidates are the buffer's own. Tensors keep their bytes.
    pub size: u64,
    /// First instruction alive (inclusive).
    pub first: usize,
    /// Last instruction alive (inclusive).
    pub last: usize,
    /// For scratch: the flat index of the call it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<usize>,
    /// For a call's input or output planned at its slot inside the call's scratch (the NPU
    /// reads or writes it there; nothing is copied): the scratch's value id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within: Option<usize>,
}

/// What a buffer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferKind {
    /// A tensor of the model.
    Tensor,
    /// A delegate or kernel call's scratch.
    Scratch,
}

/// A call and its flat argument list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallPlan {
    /// Flat instruction index.
    pub index: usize,
    /// Kernel or delegate.
    pub kind: CallKind,
    /// For delegate calls: the backend id (a kernel call's operator is in the program).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// Value ids: inputs, outputs, then scratch.
    pub args: Vec<usize>,
    /// How many of `args` are inputs.
    pub inputs: usize,
    /// How many are outputs.
    pub outputs: usize,
    /// How many are scratch.
    pub scratch: usize,
}

/// What a call runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CallKind {
    /// A CPU kernel.
    Kernel,
    /// A delegate.
    Delegate,
}

impl ModelPlan {
    /// The plan as `plan.json` text: pretty-printed, keys in a fixed order, ending in a newline.
    /// The same plan always gives the same bytes.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("plans serialize");
        text.push('\n');
        text
    }

    /// Reads `plan.json` text.
    pub fn from_json(text: &str) -> Result<ModelPlan, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The pool plan with this `mem_id`.
    pub fn pool(&self, mem_id: u32) -> Option<&PoolPlan> {
        self.pools.iter().find(|p| p.mem_id == mem_id)
    }

    /// The buffer of value `id`, if it is planned.
    pub fn buffer(&self, id: usize) -> Option<&BufferPlan> {
        self.buffers.iter().find(|b| b.id == id)
    }
}

/// Why a model could not be planned.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PipelineError {
    /// Scratch declarations the target cannot satisfy (all of them, not just the first).
    #[error("{}", list(.0))]
    Scratch(Vec<ScratchError>),
    /// A tensor's pool is unusable.
    #[error(transparent)]
    Pool(#[from] PoolAssignmentError),
    /// A pool's buffers do not fit its capacity.
    #[error(transparent)]
    Overflow(#[from] PoolOverflow),
    /// A call's argument table cannot be built.
    #[error(transparent)]
    Arguments(#[from] MissingScratch),
    /// The program breaks a rule of every model ([`crate::model::check`]): a read before any
    /// write, a written constant, a value written and passed again, an output never written,
    /// a name too long.
    #[error(transparent)]
    Model(#[from] crate::model::ModelError),
    /// A delegate call's inputs or outputs are not the sizes its blob copies.
    #[error(transparent)]
    IoSize(#[from] IoSizeError),
    /// A TFLite kernel call whose parameters do not fit its tensors.
    #[error(transparent)]
    KernelParams(#[from] crate::kernels::tflite::KernelParamsError),
    /// A delegate's blob is for another NPU than the target's.
    #[error(transparent)]
    Npu(#[from] NpuMismatchError),
    /// A delegate call's tensors cannot be handed to its NPU (Neutron: a transposition NXP's
    /// runtime refuses), or a model sets a compile spec the build fills itself.
    #[error(transparent)]
    ArgumentNeeds(#[from] ArgumentNeedsError),
    /// A branch the runtime cannot run.
    #[error(transparent)]
    Branch(#[from] BranchError),
    /// The planner failed otherwise (an invalid problem or a planner bug).
    #[error("pool `{pool}`: {source}")]
    Plan {
        /// The pool.
        pool: String,
        /// What the planner said.
        source: arenaplan_planner::PlanError,
    },
}

fn list(errors: &[impl fmt::Display]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Plans models for one target. Settings change through `&mut self` methods.
#[derive(Clone, Debug)]
pub struct Pipeline<'t> {
    target: &'t Target,
    planner: Planner,
    external: Vec<BackendScratch>,
    kernels: Vec<KernelScratch>,
    io_in_scratch: bool,
    isa: Option<crate::model::Isa>,
    variants: KernelVariants,
}

impl<'t> Pipeline<'t> {
    /// A pipeline for `target` with the default planner.
    pub fn new(target: &'t Target) -> Self {
        Pipeline {
            target,
            planner: Planner::new(),
            external: Vec::new(),
            kernels: Vec::new(),
            io_in_scratch: true,
            isa: None,
            variants: KernelVariants::default(),
        }
    }

    /// How CPU kernels with a scratch-free variant are chosen (default
    /// [`KernelVariants::FitArena`]: the fast one wherever its scratch does not make the arena
    /// larger).
    pub fn kernel_variants(&mut self, variants: KernelVariants) -> &mut Self {
        self.variants = variants;
        self
    }

    /// Sizes CPU kernels' library scratch for `isa` instead of the target's `cpu` (a host run
    /// of a program for a board: its kernels are the host's plain-C build).
    pub fn kernel_isa(&mut self, isa: crate::model::Isa) -> &mut Self {
        self.isa = Some(isa);
        self
    }

    /// Whether a delegate call's inputs and outputs may be planned at their slots inside its
    /// NPU scratch, where the NPU reads and writes them and nothing is copied (default: yes,
    /// where it saves memory; see [`InScratch`]). Such an input is the NPU's once its call
    /// has run: write it before every run, as under TFLM with Vela's plan. `false` plans
    /// every tensor apart from the scratch, copied in and out at each call.
    pub fn io_in_scratch(&mut self, allow: bool) -> &mut Self {
        self.io_in_scratch = allow;
        self
    }

    /// Uses `planner` for every pool.
    pub fn planner(&mut self, planner: Planner) -> &mut Self {
        self.planner = planner;
        self
    }

    /// Adds scratch declarations for a backend (used by delegates that declare none).
    pub fn declare(&mut self, declaration: BackendScratch) -> &mut Self {
        self.external.push(declaration);
        self
    }

    /// Adds a kernel's scratch declaration: every call of its operator gets these buffers.
    pub fn declare_kernel(&mut self, declaration: KernelScratch) -> &mut Self {
        self.kernels.push(declaration);
        self
    }

    /// Runs every step on `program` and returns the program as planned (scratch inserted)
    /// with its plan.
    pub fn run(&self, mut program: Program) -> Result<(Program, ModelPlan), PipelineError> {
        crate::model::check(&program)?;
        check_io_sizes(&program)?;
        crate::kernels::tflite::check_kernel_params(&program)?;
        check_npu(&program, self.target)?;
        add_argument_needs(&mut program)?;
        add_target_specs(&mut program, self.target);
        // The temp memory ExecuTorch's kernels ask for, as planned scratch (`topk`'s queue).
        crate::kernels::executorch::temp::add_temp_needs(&mut program);
        // The Cortex-M operators, for the core their kernels run on (as the TFLite kernels'
        // scratch, below); a core arenaplan does not know keeps the exporter's lowering.
        let isa = self
            .isa
            .or_else(|| crate::model::Isa::of_cpu(&self.target.cpu));
        if let Some(isa) = isa {
            crate::kernels::executorch::for_core(&mut program, isa);
        }
        let optional = kernel_variants::optional_calls(&program);
        let fast = self.plan_program(program.clone());
        if self.variants == KernelVariants::Fastest || optional.is_empty() {
            return fast;
        }
        // Every optional scratch dropped: the smallest arena these kernels can run in.
        let lean = self.plan_program(kernel_variants::without_scratch(&program, &optional, isa));
        let (mut current, lean) = match (fast, lean) {
            (Ok(fast), Ok(lean)) => (fast, lean),
            (Err(_), Ok(only)) | (Ok(only), Err(_)) => return Ok(only),
            (Err(e), Err(_)) => return Err(e),
        };
        let lean_bytes = kernel_variants::total(&lean.1);
        let mut dropped = std::collections::BTreeSet::new();
        while kernel_variants::total(&current.1) > lean_bytes {
            let over = kernel_variants::over_lean(&current.1, &lean.1, &optional, &dropped);
            if over.is_empty() {
                return Ok(lean);
            }
            dropped.extend(over);
            match self.plan_program(kernel_variants::without_scratch(&program, &dropped, isa)) {
                Ok(next) => current = next,
                Err(_) => return Ok(lean),
            }
        }
        Ok(current)
    }

    /// Binds, inserts and plans the scratch of `program` (checked, its argument needs and
    /// target specs added).
    fn plan_program(&self, mut program: Program) -> Result<(Program, ModelPlan), PipelineError> {
        let bound = bind_scratch(
            &program,
            self.target,
            &self.external,
            &self.kernels,
            self.isa,
        )
        .map_err(PipelineError::Scratch)?;
        insert_scratch(&mut program, &bound);
        let arguments = argument_lists(&program, &bound)?;
        let life = lifetimes(&program);
        let mut mem_ids = pools::assign(&program, self.target, &life)?;
        // A view is its viewed value's bytes: in its pool, and no buffer of its own.
        for view in &program.views {
            mem_ids[view.value] = mem_ids[view.viewed];
        }
        let npu_visible = pools::npu_visible(&program);
        // Each way of placing I/O at its slots, then none: the plan with the fewest bytes (the
        // first of equals) wins, so slots never cost memory (see `in_scratch`).
        let mut variants: Vec<Vec<InScratch>> = Vec::new();
        if self.io_in_scratch {
            for prefer in [in_scratch::Prefer::Producer, in_scratch::Prefer::Consumer] {
                let inside =
                    in_scratch::io_in_scratch(&program, self.target, &life, &mem_ids, prefer);
                if !inside.is_empty() && !variants.contains(&inside) {
                    variants.push(inside);
                }
            }
        }
        variants.push(Vec::new());
        let mut best: Option<(u64, Vec<PoolPlan>, Vec<BufferPlan>)> = None;
        let mut last_error = None;
        for inside in &variants {
            match self.plan_pools(&program, &life, &mem_ids, &npu_visible, inside) {
                Ok((pools, buffers)) => {
                    let bytes: u64 = pools.iter().map(|p| p.size).sum();
                    if best.as_ref().is_none_or(|(b, _, _)| bytes < *b) {
                        best = Some((bytes, pools, buffers));
                    }
                }
                Err(e) => last_error = Some(e),
            }
        }
        let Some((_, pool_plans, mut buffers)) = best else {
            return Err(last_error.expect("a variant that did not plan failed"));
        };
        buffers.sort_by_key(|b| b.id);
        let calls = call_plans(&arguments);
        let plan = ModelPlan {
            target: self.target.name.clone(),
            pools: pool_plans,
            buffers,
            calls,
        };
        // Every branch must be one the runtime can run.
        steps(&program, &plan)?;
        Ok((program, plan))
    }

    /// Plans every pool with the tensors `inside` their calls' scratch at their slots.
    fn plan_pools(
        &self,
        program: &Program,
        life: &[Option<Lifetime>],
        mem_ids: &[Option<u32>],
        npu_visible: &[bool],
        inside: &[InScratch],
    ) -> Result<(Vec<PoolPlan>, Vec<BufferPlan>), PipelineError> {
        let mut pool_plans = Vec::new();
        let mut buffers = Vec::new();
        let views: std::collections::HashSet<usize> =
            program.views.iter().map(|w| w.value).collect();
        for pool in &self.target.pools {
            let members: Vec<usize> = (0..program.values.len())
                .filter(|&v| mem_ids[v] == Some(pool.mem_id) && !views.contains(&v))
                .collect();
            if members.is_empty() {
                continue;
            }
            let (plan, offsets) = pools::plan_pool(
                program,
                pool,
                &members,
                life,
                npu_visible,
                inside,
                &self.planner,
            )?;
            pool_plans.push(plan);
            for (&v, offset) in members.iter().zip(offsets) {
                let l = life[v].expect("pool members have lifetimes");
                let (kind, call) = match program.values[v].kind {
                    ValueKind::Scratch { call, .. } => (BufferKind::Scratch, Some(call)),
                    _ => (BufferKind::Tensor, None),
                };
                // A scratch buffer's size is the lines it owns (the backend checks it owns
                // the lines it maintains); a tensor keeps its own size.
                let bytes = program.values[v].bytes;
                let size = match kind {
                    BufferKind::Scratch => pool.owned_bytes(bytes, npu_visible[v]),
                    BufferKind::Tensor => bytes,
                };
                buffers.push(BufferPlan {
                    id: v,
                    kind,
                    mem_id: pool.mem_id,
                    offset,
                    size,
                    first: l.first,
                    last: l.last,
                    call,
                    within: inside.iter().find(|i| i.value == v).map(|i| i.scratch),
                });
            }
        }
        // Each view where its viewed value lies, alive while it is read.
        for view in &program.views {
            let (Some(l), Some(viewed)) = (
                life[view.value],
                buffers.iter().find(|b| b.id == view.viewed).cloned(),
            ) else {
                continue;
            };
            buffers.push(BufferPlan {
                id: view.value,
                size: program.values[view.value].bytes,
                first: l.first,
                last: l.last,
                within: None,
                ..viewed
            });
        }
        Ok((pool_plans, buffers))
    }

    /// [`Pipeline::run`], keeping only the plan.
    pub fn plan(&self, program: Program) -> Result<ModelPlan, PipelineError> {
        self.run(program).map(|(_, plan)| plan)
    }
}

fn call_plans(arguments: &[CallArgs]) -> Vec<CallPlan> {
    arguments
        .iter()
        .map(|t| CallPlan {
            index: t.call,
            kind: if t.backend.is_some() {
                CallKind::Delegate
            } else {
                CallKind::Kernel
            },
            backend: t.backend.clone(),
            args: t.args.clone(),
            inputs: t.inputs,
            outputs: t.outputs,
            scratch: t.scratch,
        })
        .collect()
}
