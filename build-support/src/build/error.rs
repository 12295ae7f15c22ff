//! Why a build stops, and the exit status each reason maps to (one policy for the CLI and for
//! tools that run a build and branch on the outcome).

use std::path::PathBuf;

use thiserror::Error;

use super::{ExitStatus, MissingKernel};

use crate::diagnostic::Diagnostic;
use crate::emit::EmitError;
use crate::output::WriteError;
use crate::pipeline::PipelineError;
use crate::verify::PlanCheckError;

/// Why the build could not plan.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A setting is missing (the message says which and how to give it).
    #[error("{0}")]
    Missing(String),
    /// A problem in an input file (targets, model, a scanned source), located.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Input(Vec<Diagnostic>),
    /// The target is not in the catalogue.
    #[error(transparent)]
    Target(#[from] crate::targets::UnknownTarget),
    /// Planning failed (a scratch declaration, a pool rule, a pool overflow).
    #[error(transparent)]
    Plan(#[from] PipelineError),
    /// The plan does not hold for its program and target (a bug in arenaplan): nothing was
    /// emitted.
    #[error(transparent)]
    Verify(#[from] PlanCheckError),
    /// The plan cannot be written as the requested artifacts.
    #[error(transparent)]
    Emit(#[from] EmitError),
    /// Operators of the model that no kernel implements (TFLite operators arenaplan has no
    /// kernel for, which no `#[kernel]` or [`Build::external_kernel`](crate::Build::external_kernel) provides): the tables
    /// would not link.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    NoKernel(Vec<MissingKernel>),
    /// The model needs a part of the runtime the firmware's `arenaplan` was built without (its
    /// TFLite kernels: the feature `tflite-kernels`); the message says how to turn it on.
    #[error("{0}")]
    RuntimeLacks(String),
    /// An output's file name is not one plain, unique file name (from `.name(...)`), or the
    /// output folder is not one arenaplan may replace (a symbolic link, a device, someone
    /// else's folder: from `.out_dir(...)`), which was left untouched.
    #[error(transparent)]
    OutputName(WriteError),
    /// An output could not be written (then none was: the previous outputs are as they were).
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl BuildError {
    /// The exit status every arenaplan program gives for this failure (the CLI and the demo
    /// alike; [`ExitStatus`] says what each means): the model's buffers do not fit, something
    /// wrong with what the user gave, an output that could not be written, an operator no
    /// kernel implements (cannot be built here), or a bug in arenaplan.
    ///
    /// ```
    /// let e = arenaplan_build::BuildError::Missing("no model: call .model(path)".into());
    /// assert_eq!(e.exit_status(), 2);
    /// ```
    pub fn exit_status(&self) -> u8 {
        self.status() as u8
    }

    /// What [`BuildError::exit_status`] says, as the shared [`ExitStatus`].
    ///
    /// ```
    /// use arenaplan_build::{BuildError, ExitStatus};
    /// let e = BuildError::RuntimeLacks("no TFLite kernels".into());
    /// assert_eq!(e.status(), ExitStatus::CannotRunHere);
    /// ```
    pub fn status(&self) -> ExitStatus {
        use arenaplan_planner::PlanError;
        match self {
            BuildError::Plan(
                PipelineError::Overflow(_)
                | PipelineError::Plan {
                    source: PlanError::DoesNotFit { .. } | PlanError::Stopped { .. },
                    ..
                },
            ) => ExitStatus::DoesNotFit,
            BuildError::NoKernel(_) | BuildError::RuntimeLacks(_) => ExitStatus::CannotRunHere,
            BuildError::Plan(PipelineError::Plan {
                source: PlanError::Unverified(_),
                ..
            })
            | BuildError::Verify(_) => ExitStatus::Internal,
            BuildError::Write { .. } => ExitStatus::Io,
            _ => ExitStatus::BadInput,
        }
    }
}
