//! Binding delegates and kernels to their scratch declarations, putting blob roles in their
//! argument slots, and checking each buffer against the target.

use std::collections::BTreeMap;
use std::fmt;

use thiserror::Error;

use crate::backends::{slots::slots_of, ScratchRole};
use crate::model::{Instruction, Isa, Origin, PoolChoice, Program, ScratchSpec};
use crate::targets::{SpecError, Target};

/// One scratch argument of a delegate's calls, checked against the target: a positive size in
/// an enabled pool, or an empty slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundScratch {
    /// Size in bytes (0: an empty slot).
    pub size: u64,
    /// The pool's id (0 for an empty slot, as in the runtime's tables).
    pub mem_id: u32,
    /// The pool's name (empty for an empty slot).
    pub pool: String,
    /// Label from the declaration, if any.
    pub label: Option<String>,
    /// Where the declaration came from.
    pub origin: Origin,
    /// The backend role it fills, if any (its position is then the role's slot).
    pub role: Option<ScratchRole>,
}

impl BoundScratch {
    /// An argument for a role the call does not need but whose slot must be kept, because a
    /// later role is needed: no memory, the backend sees data `NULL` and size 0.
    pub fn empty(role: ScratchRole, origin: Origin) -> Self {
        BoundScratch {
            size: 0,
            mem_id: 0,
            pool: String::new(),
            label: Some(role.label().into()),
            origin,
            role: Some(role),
        }
    }

    /// Whether it is an empty slot.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }
}

/// A backend's scratch declaration from outside the model (`#[delegate]` in firmware).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendScratch {
    /// The backend id, e.g. `EthosUBackend`.
    pub backend: String,
    /// What it declares.
    pub scratch: DeclaredScratch,
    /// Declared on a function: a backend written in Rust, which keeps no handle.
    pub rust: bool,
}

/// What a backend declaration says about its calls' scratch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclaredScratch {
    /// Fixed buffers, in argument order; they replace whatever the model or the blob says.
    Sizes(Vec<ScratchSpec>),
    /// `scratch = blob`: each call's sizes come from its blob (the backend's plugin); the
    /// pools given here replace the plugin's choice, role by role in slot order.
    Blob {
        /// Pools for the blob's roles, by slot (fewer is fine).
        pools: Vec<PoolChoice>,
        /// Where the declaration is.
        origin: Origin,
    },
}

/// A CPU kernel's scratch declaration from outside the model (`#[kernel(op, scratch, mem_id)]`
/// in firmware): every call of `op` gets these buffers after its inputs and outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelScratch {
    /// The operator, as the model names it (e.g. `aten::add.out`).
    pub op: String,
    /// The buffers, in argument order.
    pub scratch: Vec<ScratchSpec>,
}

/// Every scratch declaration the firmware makes: `#[delegate]`s by backend, `#[kernel]`s by
/// operator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Declarations {
    /// Delegate backends' declarations.
    pub backends: Vec<BackendScratch>,
    /// Kernels' declarations.
    pub kernels: Vec<KernelScratch>,
}

impl Declarations {
    /// The handle a delegate of `backend` gets: none when the firmware implements that
    /// backend in Rust (`#[delegate] fn`), else its C backend's.
    pub fn handle_storage(&self, backend: &str) -> crate::backends::HandleStorage {
        let rust = self.backends.iter().any(|b| b.backend == backend && b.rust);
        crate::backends::handle_storage(backend, rust)
    }
}

/// The scratch every call gets, after binding: per delegate, and per kernel operator.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bound {
    /// Per delegate (by [`DelegateId`](crate::model::DelegateId)), its calls' buffers.
    pub delegates: Vec<Vec<BoundScratch>>,
    /// Per declared kernel operator, its calls' buffers.
    pub kernels: BTreeMap<String, Vec<BoundScratch>>,
    /// Per kernel call (by flat instruction index) whose operator no `#[kernel]` declares and
    /// whose library needs scratch ([`KernelCall::scratch_need`](crate::model::KernelCall)):
    /// its buffer, sized for the target's instruction set.
    pub kernel_calls: BTreeMap<usize, Vec<BoundScratch>>,
}

impl Bound {
    /// The buffers of a call of delegate `delegate` (none if it has no entry).
    pub fn of_delegate(&self, delegate: usize) -> &[BoundScratch] {
        self.delegates.get(delegate).map_or(&[], Vec::as_slice)
    }

    /// The buffers of kernel call `call` (a flat instruction index) of operator `op`: its
    /// `#[kernel]` declaration's, else what its library needs, else none.
    pub fn of_kernel(&self, call: usize, op: &str) -> &[BoundScratch] {
        self.kernels
            .get(op)
            .or_else(|| self.kernel_calls.get(&call))
            .map_or(&[], Vec::as_slice)
    }
}

/// Whose declaration a [`ScratchError`] is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScratchSite {
    /// A delegate of the model.
    Delegate {
        /// Its name in the model.
        name: String,
        /// Its backend.
        backend: String,
    },
    /// A kernel's declaration.
    Kernel {
        /// The operator.
        op: String,
    },
}

impl fmt::Display for ScratchSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScratchSite::Delegate { name, backend } => write!(f, "delegate `{name}` ({backend})"),
            ScratchSite::Kernel { op } => write!(f, "kernel `{op}`"),
        }
    }
}

/// A scratch declaration the target cannot satisfy.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{origin}: {site}, scratch buffer {index}{}: {problem}",
    label.as_ref().map(|l| format!(" `{l}`")).unwrap_or_default())]
pub struct ScratchError {
    /// The delegate or kernel.
    pub site: ScratchSite,
    /// Which buffer: its position among the scratch arguments (a role's slot, or the
    /// declaration order), from 0.
    pub index: usize,
    /// The buffer's label, if any.
    pub label: Option<String>,
    /// Where it was declared.
    pub origin: Origin,
    /// What is wrong and what to change.
    pub problem: ScratchProblem,
}

/// What is wrong with one scratch declaration.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ScratchProblem {
    /// Size zero or negative.
    #[error("size must be positive, found {0}")]
    NonPositiveSize(i64),
    /// The pool cannot be used.
    #[error(transparent)]
    Pool(#[from] SpecError),
    /// `scratch = blob` for a backend arenaplan has no blob plugin for.
    #[error("declared `scratch = blob`, but arenaplan cannot read this backend's blobs; declare the sizes instead")]
    NoBlobSizes,
    /// A buffer for a role of another backend: it has no slot in this backend's arguments.
    #[error("it fills {0}, a role of another backend; give it no role (declaration order) or move it to that backend")]
    ForeignRole(ScratchRole),
    /// A kernel library's scratch for a core whose instruction set arenaplan does not know.
    #[error("the kernel needs scratch that depends on the core, and target cpu `{0}` is not one arenaplan knows (cortex-m0, m0plus, m1, m3, m23, m4, m7, m33, m35p, m52, m55, m85): set `cpu` in the targets file")]
    UnknownCpu(String),
    /// A second buffer for a role that already has one.
    #[error("a second buffer for {0}; each role has one slot, remove one of them")]
    DuplicateRole(ScratchRole),
    /// Two labels of one delegate's buffers that name the same generated constant.
    #[error("its label and `{other}` both become the generated name `{ident}`; rename one")]
    LabelClash {
        /// The other buffer's label.
        other: String,
        /// The identifier both map to.
        ident: String,
    },
}

/// A scratch argument before binding.
enum Arg {
    /// A buffer to bind against the target.
    Buffer(ScratchSpec),
    /// A role's slot this call does not need, kept because a later role is needed.
    Empty(ScratchRole, Origin),
    /// A declaration that cannot have a slot.
    Refused(ScratchSpec, ScratchProblem),
}

/// Whether a size was read from the compiled partition (a blob, a Vela model's tensor): there
/// zero means "not needed", while a declaration of zero bytes is a mistake to report.
fn from_compiled(origin: &Origin) -> bool {
    matches!(origin, Origin::Blob { .. } | Origin::ModelTensor { .. })
}

/// Buffers declared without a role for a backend whose slots are known take the role of their
/// place in the declaration (the first the backend's slot 0, …), as the backend reads them
/// by position: a role the build adds after them (Neutron's transposition buffer) then keeps
/// its own slot instead of pushing them past it. Buffers beyond the backend's slots keep no
/// role (after the rest, in declaration order).
fn positional_roles(backend: &str, specs: &mut [ScratchSpec]) {
    let Some(slots) = slots_of(backend) else {
        return;
    };
    let mut roles = slots.roles.iter();
    for spec in specs.iter_mut().filter(|s| s.role.is_none()) {
        spec.role = roles.next().copied();
    }
}

/// The call's scratch arguments: buffers with a role at their role's slot, from slot 0 up to
/// the last role needed (an unneeded role before it is an empty argument, so no later role
/// shifts); then buffers without a role, in declaration order.
fn arrange(backend: &str, specs: Vec<ScratchSpec>) -> Vec<Arg> {
    let mut slots: Vec<Option<ScratchSpec>> = Vec::new();
    let mut plain = Vec::new();
    let mut refused = Vec::new();
    for spec in specs {
        let Some(role) = spec.role else {
            plain.push(Arg::Buffer(spec));
            continue;
        };
        if role.backend() != backend {
            refused.push(Arg::Refused(spec, ScratchProblem::ForeignRole(role)));
            continue;
        }
        let slot = role.slot();
        if slots.len() <= slot {
            slots.resize(slot + 1, None);
        }
        if slots[slot].is_some() {
            refused.push(Arg::Refused(spec, ScratchProblem::DuplicateRole(role)));
        } else {
            slots[slot] = Some(spec);
        }
    }
    let needed = |s: &ScratchSpec| s.size != 0 || !from_compiled(&s.origin);
    let used = slots
        .iter()
        .rposition(|s| s.as_ref().is_some_and(needed))
        .map_or(0, |last| last + 1);
    let roles = slots_of(backend).map_or(&[][..], |s| s.roles);
    let mut args = Vec::with_capacity(used + plain.len() + refused.len());
    for (slot, spec) in slots.into_iter().take(used).enumerate() {
        match spec {
            Some(s) if needed(&s) => args.push(Arg::Buffer(s)),
            Some(s) => args.extend(s.role.map(|role| Arg::Empty(role, s.origin))),
            // Every placed role is this backend's, so its table covers the slot.
            None => args.extend(
                roles
                    .get(slot)
                    .map(|&role| Arg::Empty(role, Origin::Unknown)),
            ),
        }
    }
    args.extend(plain);
    args.extend(refused);
    args
}

/// The scratch each delegate's calls get: its own declarations if it has any, else those of
/// its backend from `external`; each declared kernel's; and each other kernel call's its
/// library needs, for instruction set `isa` (`None`: the target's `cpu`'s). Every declaration
/// is checked; all problems are returned.
pub fn bind_scratch(
    program: &Program,
    target: &Target,
    external: &[BackendScratch],
    kernels: &[KernelScratch],
    isa: Option<Isa>,
) -> Result<Bound, Vec<ScratchError>> {
    let mut bound = Bound::default();
    let mut errors = Vec::new();
    for kernel in kernels {
        let site = ScratchSite::Kernel {
            op: kernel.op.clone(),
        };
        let buffers = bind_plain(&site, &kernel.scratch, target, &mut errors);
        bound.kernels.insert(kernel.op.clone(), buffers);
    }
    bind_library_scratch(program, target, isa, &mut bound, &mut errors);
    for delegate in &program.delegates {
        let site = ScratchSite::Delegate {
            name: delegate.name.clone(),
            backend: delegate.backend.clone(),
        };
        let mut specs = delegate.scratch.clone();
        let mut blob_pools: &[PoolChoice] = &[];
        match external
            .iter()
            .find(|b| b.backend == delegate.backend)
            .map(|b| &b.scratch)
        {
            None => {}
            // Declared sizes replace the blob's, not what the call's tensors need (Neutron's
            // transposition buffer, added by the build).
            Some(DeclaredScratch::Sizes(declared)) => {
                specs.retain(|s| s.role.is_some_and(ScratchRole::is_argument_need));
                specs.splice(0..0, declared.iter().cloned());
            }
            Some(DeclaredScratch::Blob { pools, origin }) => {
                blob_pools = pools;
                if specs.is_empty() && crate::backends::plugin_for(&delegate.backend).is_none() {
                    errors.push(ScratchError {
                        site: site.clone(),
                        index: 0,
                        label: None,
                        origin: origin.clone(),
                        problem: ScratchProblem::NoBlobSizes,
                    });
                }
            }
        }
        positional_roles(&delegate.backend, &mut specs);
        // What the blob leaves out and the target supplies (Ethos-U's Dedicated_Sram fast
        // scratch): the backend's plugin knows.
        if let Some(extra) = crate::backends::plugin_for(&delegate.backend)
            .and_then(|plugin| plugin.scratch_from_target(delegate, &specs, target))
        {
            specs.push(extra);
        }
        // Roles in slot order, so that a `scratch = blob` declaration's pools apply slot by
        // slot (the Dedicated_Sram fast scratch included).
        specs.sort_by_key(|s| s.role.map_or(usize::MAX, ScratchRole::slot));
        for (spec, pool) in specs.iter_mut().zip(blob_pools) {
            spec.pool = pool.clone();
        }
        let args = arrange(&delegate.backend, specs);
        let mut buffers = Vec::with_capacity(args.len());
        for (index, arg) in args.into_iter().enumerate() {
            let (spec, problem) = match arg {
                Arg::Empty(role, origin) => {
                    buffers.push(BoundScratch::empty(role, origin));
                    continue;
                }
                Arg::Buffer(spec) => match bind_one(&spec, target) {
                    Ok(b) => {
                        buffers.push(b);
                        continue;
                    }
                    Err(problem) => (spec, problem),
                },
                Arg::Refused(spec, problem) => (spec, problem),
            };
            errors.push(ScratchError {
                site: site.clone(),
                index,
                label: spec.label,
                origin: spec.origin,
                problem,
            });
        }
        check_labels(&site, &buffers, &mut errors);
        bound.delegates.push(buffers);
    }
    if errors.is_empty() {
        Ok(bound)
    } else {
        Err(errors)
    }
}

/// Each kernel call whose library needs scratch and whose operator no `#[kernel]` declares:
/// one buffer of the size for `isa` (none where that is 0), in the target's `cpu_scratch`
/// pool, or its default pool where it names none.
fn bind_library_scratch(
    program: &Program,
    target: &Target,
    isa: Option<Isa>,
    bound: &mut Bound,
    errors: &mut Vec<ScratchError>,
) {
    let isa = isa.or_else(|| Isa::of_cpu(&target.cpu));
    let pool = if target.specs.contains_key(CPU_SCRATCH) {
        PoolChoice::Spec(CPU_SCRATCH.into())
    } else {
        PoolChoice::MemId(i64::from(target.default_mem_id))
    };
    for (at, instruction) in program.flat_instructions() {
        let Instruction::Kernel(call) = instruction else {
            continue;
        };
        let Some(need) = &call.scratch_need else {
            continue;
        };
        if bound.kernels.contains_key(&call.op) {
            continue;
        }
        let site = ScratchSite::Kernel {
            op: call.op.clone(),
        };
        // A need the same on every instruction set needs no core to size it.
        let same = (need.plain == need.dsp && need.dsp == need.mve).then_some(Isa::Plain);
        let Some(isa) = isa.or(same) else {
            errors.push(ScratchError {
                site,
                index: 0,
                label: None,
                origin: Origin::Target {
                    target: target.name.clone(),
                    setting: "cpu".into(),
                },
                problem: ScratchProblem::UnknownCpu(target.cpu.clone()),
            });
            continue;
        };
        let bytes = need.bytes(isa);
        if bytes == 0 {
            continue;
        }
        let spec = ScratchSpec {
            size: i64::try_from(bytes).unwrap_or(i64::MAX),
            pool: pool.clone(),
            label: Some("kernel".into()),
            // The variant's function where the figures differ by variant (CMSIS-NN's), else
            // the one rule (TFLM's buffers of an SVDF or LSTM).
            origin: Origin::KernelLibrary {
                function: if need.plain == need.dsp && need.dsp == need.mve {
                    need.function.to_owned()
                } else {
                    format!("{}{}", need.function, isa.suffix())
                },
            },
            role: None,
        };
        let buffers = bind_plain(&site, std::slice::from_ref(&spec), target, errors);
        bound.kernel_calls.insert(at, buffers);
    }
}

/// The compile spec naming the pool of CPU kernels' scratch.
const CPU_SCRATCH: &str = "cpu_scratch";

/// Buffers declared by size, in declaration order (a kernel's; no roles).
fn bind_plain(
    site: &ScratchSite,
    specs: &[ScratchSpec],
    target: &Target,
    errors: &mut Vec<ScratchError>,
) -> Vec<BoundScratch> {
    let mut buffers = Vec::with_capacity(specs.len());
    for (index, spec) in specs.iter().enumerate() {
        match bind_one(spec, target) {
            Ok(b) => buffers.push(b),
            Err(problem) => errors.push(ScratchError {
                site: site.clone(),
                index,
                label: spec.label.clone(),
                origin: spec.origin.clone(),
                problem,
            }),
        }
    }
    check_labels(site, &buffers, errors);
    buffers
}

/// Labels name generated constants (`CALL<n>_<LABEL>`): distinct labels must stay distinct
/// there.
fn check_labels(site: &ScratchSite, buffers: &[BoundScratch], errors: &mut Vec<ScratchError>) {
    let labels: Vec<String> = buffers
        .iter()
        .enumerate()
        .map(|(slot, b)| b.label.clone().unwrap_or_else(|| format!("scratch{slot}")))
        .collect();
    if let Err((other, label, ident)) =
        crate::names::distinct(labels.iter().map(String::as_str), crate::names::upper_ident)
    {
        let index = labels.iter().rposition(|l| *l == label).unwrap_or(0);
        errors.push(ScratchError {
            site: site.clone(),
            index,
            label: Some(label),
            origin: buffers[index].origin.clone(),
            problem: ScratchProblem::LabelClash { other, ident },
        });
    }
}

fn bind_one(spec: &ScratchSpec, target: &Target) -> Result<BoundScratch, ScratchProblem> {
    if spec.size <= 0 {
        return Err(ScratchProblem::NonPositiveSize(spec.size));
    }
    let pool = match &spec.pool {
        PoolChoice::Spec(name) => target.resolve_spec(name)?,
        PoolChoice::MemId(id) => target.enabled_pool(*id)?,
    };
    Ok(BoundScratch {
        size: spec.size as u64,
        mem_id: pool.mem_id,
        pool: pool.name.clone(),
        label: spec.label.clone(),
        origin: spec.origin.clone(),
        role: spec.role,
    })
}
