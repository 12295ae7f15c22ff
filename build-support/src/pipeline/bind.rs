//! Binding delegates to their scratch declarations and checking each against the target.

use thiserror::Error;

use crate::model::{Delegate, Origin, PoolChoice, Program, ScratchSpec};
use crate::targets::{SpecError, Target};

/// A scratch declaration checked against the target: a positive size in an enabled pool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundScratch {
    /// Size in bytes.
    pub size: u64,
    /// The pool's id.
    pub mem_id: u32,
    /// The pool's name.
    pub pool: String,
    /// Label from the declaration, if any.
    pub label: Option<String>,
    /// Where the declaration came from.
    pub origin: Origin,
}

/// Scratch declarations of a backend from outside the model (`#[delegate]` in firmware):
/// used for every delegate of that backend that declares none itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendScratch {
    /// The backend id, e.g. `EthosUBackend`.
    pub backend: String,
    /// Its buffers, in argument order.
    pub scratch: Vec<ScratchSpec>,
}

/// A scratch declaration the target cannot satisfy.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("{origin}: delegate `{delegate}` ({backend}), scratch buffer {index}{}: {problem}",
    label.as_ref().map(|l| format!(" `{l}`")).unwrap_or_default())]
pub struct ScratchError {
    /// The delegate's name.
    pub delegate: String,
    /// Its backend.
    pub backend: String,
    /// Which buffer (declaration order, from 0).
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
}

/// Ethos-U in Dedicated_Sram mode also needs fast scratch (region 2), whose size Vela does not
/// write into the bin stream. When the blob's declarations lack it, the target's configured
/// size is used (`npu.fast_scratch` in targets.toml), and the plan says so through the origin.
fn dedicated_sram_fast_scratch(
    delegate: &Delegate,
    specs: &[ScratchSpec],
    target: &Target,
) -> Option<ScratchSpec> {
    let from_blob = specs
        .iter()
        .any(|s| matches!(s.origin, Origin::Blob { .. }));
    let has_fast = specs
        .iter()
        .any(|s| s.pool == PoolChoice::Spec("fast_scratch".into()));
    let flags = delegate
        .compile_specs
        .get("compile_flags")
        .map_or("", String::as_str);
    let dedicated = flags.contains("Dedicated_Sram")
        || (!flags.contains("--memory-mode")
            && target.npu.as_ref().and_then(|n| n.memory_mode.as_deref())
                == Some("Dedicated_Sram"));
    if delegate.backend != "EthosUBackend" || !from_blob || has_fast || !dedicated {
        return None;
    }
    // With no configured size the declaration is left without one: binding reports it.
    let size = target
        .npu
        .as_ref()
        .and_then(|n| n.fast_scratch_size)
        .map_or(0, |s| i64::try_from(s).unwrap_or(i64::MAX));
    Some(ScratchSpec {
        size,
        pool: PoolChoice::Spec("fast_scratch".into()),
        label: Some("fast_scratch".into()),
        origin: Origin::Target {
            target: target.name.clone(),
            setting: "npu.fast_scratch".into(),
        },
    })
}

/// The scratch each delegate's calls get: its own declarations if it has any, else those of
/// its backend from `external`. Every declaration is checked; all problems are returned.
pub fn bind_scratch(
    program: &Program,
    target: &Target,
    external: &[BackendScratch],
) -> Result<Vec<Vec<BoundScratch>>, Vec<ScratchError>> {
    let mut bound = Vec::with_capacity(program.delegates.len());
    let mut errors = Vec::new();
    for delegate in &program.delegates {
        let declared: &[ScratchSpec] = if delegate.scratch.is_empty() {
            external
                .iter()
                .find(|b| b.backend == delegate.backend)
                .map_or(&[], |b| b.scratch.as_slice())
        } else {
            &delegate.scratch
        };
        let mut specs = declared.to_vec();
        if let Some(fast) = dedicated_sram_fast_scratch(delegate, &specs, target) {
            specs.push(fast);
        }
        let mut buffers = Vec::with_capacity(specs.len());
        for (index, spec) in specs.iter().enumerate() {
            match bind_one(spec, target) {
                Ok(b) => buffers.push(b),
                Err(problem) => errors.push(ScratchError {
                    delegate: delegate.name.clone(),
                    backend: delegate.backend.clone(),
                    index,
                    label: spec.label.clone(),
                    origin: spec.origin.clone(),
                    problem,
                }),
            }
        }
        bound.push(buffers);
    }
    if errors.is_empty() {
        Ok(bound)
    } else {
        Err(errors)
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
    })
}
