//! What each planned buffer is to the program, as the report and the memory map say it: one
//! rule for both, and the per-pool totals by role that Vela's summary and TFLM's recording
//! allocator give (inputs and outputs, state, other tensors, scratch).

use crate::model::Program;
use crate::pipeline::{BufferKind, BufferPlan};

/// A buffer's role, in the order the totals list them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Role {
    /// A program input.
    Input,
    /// A program output.
    Output,
    /// Kept between runs (and shared between methods).
    State,
    /// Any other tensor.
    Tensor,
    /// A delegate call's or kernel's scratch.
    Scratch,
}

impl Role {
    pub(crate) const ALL: [Role; 5] = [
        Role::Input,
        Role::Output,
        Role::State,
        Role::Tensor,
        Role::Scratch,
    ];

    pub(crate) fn of(program: &Program, b: &BufferPlan) -> Role {
        match b.kind {
            BufferKind::Scratch => Role::Scratch,
            BufferKind::Tensor if program.state.contains(&b.id) => Role::State,
            BufferKind::Tensor if program.inputs.contains(&b.id) => Role::Input,
            BufferKind::Tensor if program.outputs.contains(&b.id) => Role::Output,
            BufferKind::Tensor => Role::Tensor,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Role::Input => "input",
            Role::Output => "output",
            Role::State => "state",
            Role::Tensor => "tensor",
            Role::Scratch => "scratch",
        }
    }
}

/// The bytes of a pool's buffers by role, for those it has (a buffer at its slot inside a
/// scratch counts with the scratch only: it takes no memory of its own), e.g.
/// `input 490 B, output 12 B, scratch 21.7 KiB (input and output inside it)`.
pub(crate) fn totals(program: &Program, buffers: &[&BufferPlan]) -> String {
    let mut parts = Vec::new();
    for role in Role::ALL {
        let own: u64 = buffers
            .iter()
            .filter(|b| b.within.is_none() && Role::of(program, b) == role)
            .map(|b| b.size)
            .sum();
        if own == 0 {
            continue;
        }
        let mut part = format!("{} {}", role.name(), super::human_bytes(own));
        if role == Role::Scratch {
            let mut held: Vec<&str> = buffers
                .iter()
                .filter(|b| b.within.is_some())
                .map(|b| Role::of(program, b).name())
                .collect();
            held.sort_unstable();
            held.dedup();
            if !held.is_empty() {
                part.push_str(&format!(" ({} inside it)", held.join(" and ")));
            }
        }
        parts.push(part);
    }
    parts.join(", ")
}
