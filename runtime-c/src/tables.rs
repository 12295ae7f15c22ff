//! The types of the tables a generated plan module holds: planned buffers, scratch regions, call
//! argument lists, and the arenas themselves. Defined once here, so generated code is data of
//! these types and nothing else.

use core::cell::UnsafeCell;
use core::mem::MaybeUninit;

/// A planned buffer: value id, pool, offset and size (the C header's `arenaplan_buffer_t`,
/// whose size the generated C checks at compile time).
///
/// ```
/// let b = arenaplan::Buffer { value: 3, mem_id: 1, offset: 64, size: 16 };
/// assert_eq!(core::mem::size_of_val(&b), 16);
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// The value's id in the program.
    pub value: u32,
    /// Its pool.
    pub mem_id: u32,
    /// Offset in the pool's arena.
    pub offset: u32,
    /// Bytes.
    pub size: u32,
}

/// A scratch region of one delegate or kernel call.
///
/// ```
/// let r = arenaplan::Region { call: 0, value: 7, mem_id: 1, offset: 0, size: 2048 };
/// assert_eq!(r.offset + r.size, 2048);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Flat index of the call.
    pub call: u32,
    /// The scratch value's id.
    pub value: u32,
    /// Its pool.
    pub mem_id: u32,
    /// Offset in the pool's arena.
    pub offset: u32,
    /// Bytes.
    pub size: u32,
}

/// One call's flat argument list: inputs, outputs, then scratch.
///
/// ```
/// let c = arenaplan::CallArgs {
///     index: 0, delegate: true, backend: "EthosUBackend",
///     args: &[0, 1, 2], inputs: 1, outputs: 1, scratch: 1,
/// };
/// assert_eq!(c.args.len() as u32, c.inputs + c.outputs + c.scratch);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallArgs {
    /// Flat instruction index.
    pub index: u32,
    /// A delegate call (else a kernel call).
    pub delegate: bool,
    /// The backend id (empty for kernels).
    pub backend: &'static str,
    /// Value ids: inputs, outputs, scratch.
    pub args: &'static [u32],
    /// How many inputs.
    pub inputs: u32,
    /// How many outputs.
    pub outputs: u32,
    /// How many scratch buffers.
    pub scratch: u32,
}

/// The storage of one pool's arena: `N` bytes aligned to `ALIGN`, uninitialised (it lives in a
/// `NOLOAD` section, so it costs nothing at start-up). Nothing hands out references into it: the
/// runtime passes each call the disjoint regions the plan proved.
///
/// ```
/// static ARENA: arenaplan::Arena<256, 64> = arenaplan::Arena::new();
/// assert_eq!(ARENA.as_ptr() as usize % 64, 0);
/// assert_eq!(ARENA.len(), 256);
/// ```
#[repr(C)]
pub struct Arena<const N: usize, const ALIGN: usize>
where
    AlignAs<ALIGN>: Alignment,
{
    _align: [<AlignAs<ALIGN> as Alignment>::Marker; 0],
    bytes: UnsafeCell<MaybeUninit<[u8; N]>>,
}

// SAFETY: the arena is never read or written as a whole through `&self`; its bytes are reached
// only by the C runtime and by `Model`, through raw pointers, in the disjoint regions of the
// plan, and `Model` is one at a time and not `Send`.
unsafe impl<const N: usize, const ALIGN: usize> Sync for Arena<N, ALIGN> where
    AlignAs<ALIGN>: Alignment
{
}

impl<const N: usize, const ALIGN: usize> Arena<N, ALIGN>
where
    AlignAs<ALIGN>: Alignment,
{
    /// Uninitialised storage.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Arena {
            _align: [],
            bytes: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// The arena's first byte.
    pub const fn as_ptr(&self) -> *mut u8 {
        self.bytes.get().cast()
    }

    /// Its size in bytes.
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(&self) -> usize {
        N
    }

    /// Where it lies, for [`crate::Program::arenas`].
    pub const fn span(&'static self) -> ArenaSpan {
        ArenaSpan {
            start: self.as_ptr(),
            len: N,
        }
    }
}

/// Where one arena lies: the only memory [`crate::Model`] ever writes itself.
#[derive(Clone, Copy, Debug)]
pub struct ArenaSpan {
    start: *mut u8,
    len: usize,
}

// SAFETY: an address and a length; the memory is reached only as `Arena` allows.
unsafe impl Sync for ArenaSpan {}

impl ArenaSpan {
    /// Whether `len` bytes at `at` lie inside the arena.
    pub(crate) fn holds(&self, at: *const u8, len: usize) -> bool {
        let (start, at) = (self.start.addr(), at.addr());
        at >= start && len <= self.len && at - start <= self.len - len
    }
}

/// An alignment as a type, for [`Arena`]'s `ALIGN`.
pub struct AlignAs<const A: usize>;

/// Implemented for the alignments a pool may have: the powers of two from 1 B to 1 MiB, as
/// `targets.toml` allows.
pub trait Alignment {
    /// A zero-sized type of that alignment.
    type Marker: Copy;
}

macro_rules! alignments {
    ($($marker:ident = $a:literal),* $(,)?) => {$(
        #[doc = concat!("Aligned to ", stringify!($a), " bytes.")]
        #[doc(hidden)]
        #[derive(Clone, Copy)]
        #[repr(align($a))]
        pub struct $marker;
        impl Alignment for AlignAs<$a> {
            type Marker = $marker;
        }
    )*};
}

alignments!(
    A1 = 1,
    A2 = 2,
    A4 = 4,
    A8 = 8,
    A16 = 16,
    A32 = 32,
    A64 = 64,
    A128 = 128,
    A256 = 256,
    A512 = 512,
    A1K = 1024,
    A2K = 2048,
    A4K = 4096,
    A8K = 8192,
    A16K = 16384,
    A32K = 32768,
    A64K = 65536,
    A128K = 131072,
    A256K = 262144,
    A512K = 524288,
    A1M = 1048576,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arena_has_its_alignment_and_size() {
        static SMALL: Arena<3, 4096> = Arena::new();
        assert_eq!(core::mem::align_of::<Arena<3, 4096>>(), 4096);
        assert_eq!(core::mem::size_of::<Arena<3, 4096>>(), 4096);
        assert_eq!(SMALL.as_ptr() as usize % 4096, 0);
        assert_eq!(core::mem::size_of::<Arena<100, 1>>(), 100);
    }

    #[test]
    fn a_span_holds_only_what_lies_inside_it() {
        static A: Arena<64, 16> = Arena::new();
        let span = A.span();
        let p = A.as_ptr();
        assert!(span.holds(p, 64));
        assert!(span.holds(p.wrapping_add(60), 4));
        assert!(span.holds(p.wrapping_add(64), 0));
        assert!(!span.holds(p.wrapping_add(61), 4));
        assert!(!span.holds(p.wrapping_sub(1), 1));
        assert!(!span.holds(p, 65));
        assert!(!span.holds(p.wrapping_add(65), 0));
    }
}
