//! The view a backend written in Rust gets of one delegate call: its flat argument list,
//! split into inputs, outputs and scratch by the counts the plan recorded.

use core::fmt;

/// What a backend returns.
pub type Result = core::result::Result<(), Error>;

/// Why a backend call failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The argument list does not have the shape the backend needs.
    BadArguments,
    /// A scratch buffer is missing or smaller than the backend needs.
    ScratchTooSmall,
    /// The backend's own failure, with its code.
    Backend(i32),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadArguments => f.write_str("the call's arguments do not match the backend"),
            Error::ScratchTooSmall => f.write_str("a scratch buffer is missing or too small"),
            Error::Backend(code) => write!(f, "backend error {code}"),
        }
    }
}

/// One delegate or kernel call's arguments: `[inputs…, outputs…, scratch…]`. Inputs are
/// read-only (they may be constants in flash, and one value may be passed twice); outputs and
/// scratch are the call's own memory.
///
/// ```
/// let (a, mut b, mut s) = ([1u8; 4], [0u8; 4], [0u8; 16]);
/// let inputs: [&[u8]; 1] = [&a];
/// let mut rest: [&mut [u8]; 2] = [&mut b, &mut s];
/// let mut call = arenaplan::Call::new(&inputs, &mut rest, 1).unwrap();
/// assert_eq!(call.scratch_count(), 1);
/// let (inputs, outputs, scratch) = call.split();
/// outputs[0].copy_from_slice(inputs[0]);
/// assert_eq!(scratch[0].len(), 16);
/// ```
pub struct Call<'a> {
    inputs: &'a [&'a [u8]],
    rest: &'a mut [&'a mut [u8]],
    outputs: usize,
}

impl<'a> Call<'a> {
    /// A call reading `inputs` and writing `rest`, the first `outputs` of which are outputs;
    /// the others are scratch. `None` when `outputs` exceeds `rest`.
    pub fn new(
        inputs: &'a [&'a [u8]],
        rest: &'a mut [&'a mut [u8]],
        outputs: usize,
    ) -> Option<Self> {
        if outputs > rest.len() {
            return None;
        }
        Some(Call {
            inputs,
            rest,
            outputs,
        })
    }

    /// Number of inputs.
    pub fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// Number of outputs.
    pub fn output_count(&self) -> usize {
        self.outputs
    }

    /// Number of scratch buffers (0 under a plan made before scratch was planned).
    pub fn scratch_count(&self) -> usize {
        self.rest.len() - self.outputs
    }

    /// Input `i`, if there is one.
    pub fn input(&self, i: usize) -> Option<&'a [u8]> {
        self.inputs.get(i).copied()
    }

    /// Inputs (read-only), outputs and scratch, borrowed at once.
    #[allow(clippy::type_complexity)]
    pub fn split(&mut self) -> (&'a [&'a [u8]], &mut [&'a mut [u8]], &mut [&'a mut [u8]]) {
        let (outputs, scratch) = self.rest.split_at_mut(self.outputs);
        (self.inputs, outputs, scratch)
    }

    /// Scratch buffer `i`, if the plan provided it and it holds at least `min_len` bytes.
    pub fn scratch(&mut self, i: usize, min_len: usize) -> core::result::Result<&mut [u8], Error> {
        match self.rest.get_mut(self.outputs + i) {
            Some(buffer) if buffer.len() >= min_len => Ok(buffer),
            _ => Err(Error::ScratchTooSmall),
        }
    }
}
