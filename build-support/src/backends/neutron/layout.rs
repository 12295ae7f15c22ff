//! Which of a Neutron call's tensors the runtime transposes, by the rules of NXP's ExecuTorch
//! backend, and the descriptor the generated program hands the C backend.
//!
//! A payload's format byte asks to see a Neutron input or output channels-last (NHWC) while
//! ExecuTorch's program holds the tensor in its own dim order. NXP's backend decides per
//! tensor, and so does this module, at build time:
//! - format byte 0, or a tensor of rank 3 or more with one channel (`C == 1`, the size three
//!   from the end): passed as it is; its dim order must be contiguous;
//! - format byte set, rank 1 or 2: refused (NXP cannot transpose them);
//! - format byte set, dim order already channels-last (rank 4 or 5): passed as it is;
//! - format byte set, contiguous: transposed, inputs NCHW → NHWC before the NPU runs and
//!   outputs NHWC → NCHW after, with `W`, `H`, `C` the last three sizes and `N` the product of
//!   the others; elements of 1, 2, 4 or 8 bytes;
//! - any other dim order: refused.
//!
//! Where NXP's backend takes a buffer from the temp allocator for each transposed tensor on
//! every call, the build plans one scratch buffer per call ([`ScratchRole::NeutronTranspose`])
//! holding them all, each at a 16-byte aligned offset, so their memory is known at build time.
//!
//! ```
//! use arenaplan_build::backends::neutron::layout::{descriptor, Transposition};
//! let t = Transposition { output: false, slot: 0, n: 1, c: 3, h: 4, w: 5, element: 1, offset: 0 };
//! assert_eq!(descriptor(&[t]), "i0:1,3,4,5,1@0");
//! ```

use crate::model::Value;

use super::NeutronHeader;
use crate::backends::BlobScratch;
use crate::backends::ScratchRole;

/// The compile spec the generated program passes the C backend its call's transpositions in
/// ([`descriptor`]); a model may not set it itself.
pub const TRANSPOSE_SPEC: &str = "arenaplan.neutron.transpose";

/// One tensor the runtime transposes around the NPU call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transposition {
    /// An output (else an input).
    pub output: bool,
    /// Its Neutron slot (the payload's input or output index, not the argument's).
    pub slot: usize,
    /// Batches: the product of the sizes before the last three.
    pub n: u64,
    /// Channels (the size three from the end).
    pub c: u64,
    /// Height.
    pub h: u64,
    /// Width (the last size).
    pub w: u64,
    /// Bytes per element (1, 2, 4 or 8).
    pub element: u64,
    /// Where it sits in the call's transposition buffer (a multiple of 16).
    pub offset: u64,
}

impl Transposition {
    /// Its bytes.
    pub fn bytes(&self) -> u64 {
        self.n * self.c * self.h * self.w * self.element
    }
}

/// The transpositions of one call, by NXP's rules, given the tensors its arguments hold
/// (`inputs`, `outputs`: the call's, in argument order; the payload's maps pick each slot's).
/// `Err` says which tensor cannot be handed to the NPU and why.
pub fn transpositions(
    h: &NeutronHeader,
    inputs: &[&Value],
    outputs: &[&Value],
) -> Result<Vec<Transposition>, String> {
    let mut list = Vec::new();
    let mut offset = 0u64;
    // Each Neutron slot, inputs then outputs, with its index among its side's.
    let side = |output: bool, formats: &[u8], map: &[u8]| {
        formats
            .iter()
            .zip(map)
            .enumerate()
            .map(move |(index, (&flag, &map))| (output, index, flag, map))
            .collect::<Vec<_>>()
    };
    let slots = side(false, &h.input_formats, &h.input_map)
        .into_iter()
        .chain(side(true, &h.output_formats, &h.output_map));
    for (output, index, flag, map) in slots {
        let what = if output { "output" } else { "input" };
        let args = if output { outputs } else { inputs };
        let Some(v) = args.get(usize::from(map)) else {
            return Err(format!(
                "Neutron {what} {index} maps to argument {map}, but the call has {}",
                args.len()
            ));
        };
        let name = crate::names::display(&v.name);
        let rank = v.shape.len();
        let contiguous = v.dim_order.is_empty();
        let channels_last = matches!(rank, 4 | 5)
            && v.dim_order.first() == Some(&0)
            && v.dim_order.last() == Some(&1)
            && v.dim_order[1..rank - 1]
                .iter()
                .zip(2u8..)
                .all(|(&d, want)| d == want);
        let several_channels = rank < 3 || v.shape[rank - 3] != 1;
        if flag == 0 || !several_channels {
            if !contiguous {
                return Err(format!(
                    "Neutron {what} {index} (`{name}`) has dim order {:?}; NXP's runtime passes it as it is, so it must be contiguous: export the tensor in the default dim order",
                    v.dim_order
                ));
            }
            continue;
        }
        if rank < 3 {
            return Err(format!(
                "Neutron {what} {index} (`{name}`) is {rank}-D and its format byte asks for a transposition between NCHW and NHWC, which NXP's runtime refuses for 1-D and 2-D tensors: convert the model without that flag"
            ));
        }
        if channels_last {
            continue;
        }
        if !contiguous {
            return Err(format!(
                "Neutron {what} {index} (`{name}`) has dim order {:?}, neither contiguous nor channels-last, which NXP's runtime refuses: export it in one of the two",
                v.dim_order
            ));
        }
        // Bytes per element from the tensor itself: a type the IR keeps as bytes (a complex or
        // quantized one) has elements wider than its dtype's one byte.
        let elements = v.shape.iter().product::<u64>();
        let element = v
            .bytes
            .checked_div(elements)
            .unwrap_or_else(|| v.dtype.size());
        if !matches!(element, 1 | 2 | 4 | 8) {
            return Err(format!(
                "Neutron {what} {index} (`{name}`) has elements of {element} bytes; NXP's runtime transposes elements of 1, 2, 4 or 8 bytes"
            ));
        }
        let n = v.shape[..rank - 3].iter().product::<u64>();
        let (c, hh, w) = (v.shape[rank - 3], v.shape[rank - 2], v.shape[rank - 1]);
        let t = Transposition {
            output,
            slot: index,
            n,
            c,
            h: hh,
            w,
            element,
            offset,
        };
        offset += t.bytes().div_ceil(16) * 16;
        list.push(t);
    }
    Ok(list)
}

/// The descriptor the C backend reads (`ap_neutron_transpositions`): one entry per transposed
/// tensor, `i<slot>` or `o<slot>`, then `:N,C,H,W,element@offset`, entries joined by `;`.
pub fn descriptor(list: &[Transposition]) -> String {
    list.iter()
        .map(|t| {
            format!(
                "{}{}:{},{},{},{},{}@{}",
                if t.output { 'o' } else { 'i' },
                t.slot,
                t.n,
                t.c,
                t.h,
                t.w,
                t.element,
                t.offset
            )
        })
        .collect::<Vec<_>>()
        .join(";")
}

/// The call's transposition buffer: every transposed tensor at its offset (none: no buffer).
pub fn buffer(list: &[Transposition]) -> Option<BlobScratch> {
    let end = list.iter().map(|t| t.offset + t.bytes()).max()?;
    Some(BlobScratch {
        role: ScratchRole::NeutronTranspose,
        size: end,
    })
}
