//! One 64-bit digest (FNV-1a) for the places that need a stable fingerprint of bytes, not
//! security: the macro's tag of a backend id, and the generated C's record of each blob file it
//! links, so that a build tracking only sources recompiles the C when a blob changes.
//!
//! ```
//! use arenaplan_syntax::digest::fnv1a;
//! assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
//! assert_ne!(fnv1a(b"EthosUBackend"), fnv1a(b"NeutronBackend"));
//! ```

/// FNV-1a, 64 bits, of `bytes`: the same on every machine and every run.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}
