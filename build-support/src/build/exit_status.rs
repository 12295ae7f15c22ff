//! The exit status every arenaplan program gives (the `arenaplan` command and the demo alike),
//! one meaning per number, so that a CI script can branch on it: an arena over budget (1) is
//! not a missing operator (5), and neither is a call that failed while running (6).
//!
//! [`EXIT_STATUS_TABLE`] is the text `arenaplan --help` prints; the CLI README repeats it.

/// Why an arenaplan program failed, as its process exit status.
///
/// ```
/// use arenaplan_build::{BuildError, ExitStatus};
/// let e = BuildError::Missing("no model: call .model(path)".into());
/// assert_eq!(e.exit_status(), ExitStatus::BadInput as u8);
/// assert_eq!(ExitStatus::CannotRunHere as u8, 5);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// The model's buffers do not fit: a pool over its capacity, or no plan found within a
    /// capacity or before the search was stopped.
    DoesNotFit = 1,
    /// Anything wrong with what the user gave: a flag, a model, a target, a declaration, a
    /// setting, an input file.
    BadInput = 2,
    /// A file that exists cannot be read, or an output cannot be written.
    Io = 3,
    /// A bug in arenaplan (a plan that fails its own check, a panic).
    Internal = 4,
    /// The model is fine and fits, but cannot be built or run with this build: an operator no
    /// kernel implements (or whose library this build left out), an NPU it does not emulate,
    /// a value with no memory, an output no `.npy` can hold.
    CannotRunHere = 5,
    /// It ran, and a call failed: the C runtime, a kernel or an NPU returned a status (named).
    CallFailed = 6,
}

/// The exit-status table, as `arenaplan --help` prints it.
pub const EXIT_STATUS_TABLE: &str = "\
Exit status (every subcommand):
  0  done
  1  does not fit: a pool's buffers exceed its capacity (plan, inspect --target, run), or no
     plan within plan-csv's --capacity
  2  bad input: a flag, a model, a targets file or target name, a scratch or #[delegate]
     declaration, a lifetime CSV, an input .npy; whichever file it is in and wherever it is
     found (a path that names nothing, or names a directory, FIFO or device, is bad input too)
  3  I/O failure: a file that exists cannot be read, or an output cannot be written
     (outputs are written all or none: on failure the previous ones are left as they were)
  4  internal error: a bug in arenaplan; please report it with the input
  5  cannot be built or run here: an operator no kernel implements, or one whose library
     this build of arenaplan left out (the message says which and how to rebuild); an NPU
     this build does not emulate; a value without memory; an output .npy cannot hold (plan,
     run)
  6  a call failed while running: the runtime, a kernel or the emulated NPU returned a
     status, named in the message (run)";
