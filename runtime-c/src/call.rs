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

/// One delegate call's arguments: `[inputs…, outputs…, scratch…]`.
///
/// ```
/// let (mut a, mut b, mut s) = ([1u8; 4], [0u8; 4], [0u8; 16]);
/// let mut args: [&mut [u8]; 3] = [&mut a, &mut b, &mut s];
/// let mut call = arenaplan::Call::new(&mut args, 1, 1).unwrap();
/// assert_eq!(call.scratch_count(), 1);
/// let (inputs, outputs, scratch) = call.split();
/// outputs[0].copy_from_slice(inputs[0]);
/// assert_eq!(scratch[0].len(), 16);
/// ```
pub struct Call<'a> {
    args: &'a mut [&'a mut [u8]],
    inputs: usize,
    outputs: usize,
}

impl<'a> Call<'a> {
    /// A call over `args`, the first `inputs` of which are inputs and the next `outputs`
    /// outputs; the rest is scratch. `None` when the counts exceed the list.
    pub fn new(args: &'a mut [&'a mut [u8]], inputs: usize, outputs: usize) -> Option<Self> {
        if inputs.checked_add(outputs)? > args.len() {
            return None;
        }
        Some(Call {
            args,
            inputs,
            outputs,
        })
    }

    /// Number of inputs.
    pub fn input_count(&self) -> usize {
        self.inputs
    }

    /// Number of outputs.
    pub fn output_count(&self) -> usize {
        self.outputs
    }

    /// Number of scratch buffers (0 under a plan made before scratch was planned).
    pub fn scratch_count(&self) -> usize {
        self.args.len() - self.inputs - self.outputs
    }

    /// Inputs (read-only), outputs and scratch, borrowed at once.
    #[allow(clippy::type_complexity)]
    pub fn split(&mut self) -> (&[&'a mut [u8]], &mut [&'a mut [u8]], &mut [&'a mut [u8]]) {
        let (inputs, rest) = self.args.split_at_mut(self.inputs);
        let (outputs, scratch) = rest.split_at_mut(self.outputs);
        (inputs, outputs, scratch)
    }

    /// Scratch buffer `i`, if the plan provided it and it holds at least `min_len` bytes.
    pub fn scratch(&mut self, i: usize, min_len: usize) -> core::result::Result<&mut [u8], Error> {
        let at = self.inputs + self.outputs + i;
        match self.args.get_mut(at) {
            Some(buffer) if buffer.len() >= min_len => Ok(buffer),
            _ => Err(Error::ScratchTooSmall),
        }
    }
}
