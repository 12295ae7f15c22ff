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

/// A backend's scratch declaration from outside the model (`#[delegate]` in firmware).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BackendScratch {
    /// The backend id, e.g. `EthosUBackend`.
    pub backend: String,
    /// What it declares.
    pub scratch: DeclaredScratch,
}

/// What a backend declaration says about its calls' scratch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeclaredScratch {
    /// Fixed buffers, in argument order; they replace whatever the model or the blob says.
    Sizes(Vec<ScratchSpec>),
    /// `scratch = blob`: each call's sizes come from its blob (the backend's plugin); the
    /// pools given here replace the plugin's choice, buffer by buffer in order.
    Blob {
        /// Pools for the blob's buffers, in order (fewer is fine).
        pools: Vec<PoolChoice>,
        /// Where the declaration is.
        origin: Origin,
    },
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
    /// `scratch = blob` for a backend arenaplan has no blob plugin for.
    #[error("declared `scratch = blob`, but arenaplan cannot read this backend's blobs; declare the sizes instead")]
    NoBlobSizes,
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
        let mut specs = delegate.scratch.clone();
        match external
            .iter()
            .find(|b| b.backend == delegate.backend)
            .map(|b| &b.scratch)
        {
            None => {}
            Some(DeclaredScratch::Sizes(declared)) => specs = declared.clone(),
            Some(DeclaredScratch::Blob { pools, origin }) => {
                if specs.is_empty() && crate::backends::plugin_for(&delegate.backend).is_none() {
                    errors.push(ScratchError {
                        delegate: delegate.name.clone(),
                        backend: delegate.backend.clone(),
                        index: 0,
                        label: None,
                        origin: origin.clone(),
                        problem: ScratchProblem::NoBlobSizes,
                    });
                }
                for (spec, pool) in specs.iter_mut().zip(pools) {
                    spec.pool = pool.clone();
                }
            }
        }
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
