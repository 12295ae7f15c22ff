//! Where each scratch role sits in a delegate call's trailing arguments: the one definition,
//! shared with the C backends through `runtime-c/include/arenaplan/scratch_slots.h`, which
//! [`c_header`] renders (a test compares the two byte for byte).
//!
//! The runtime hands a backend `[inputs…, outputs…, scratch…]` and attaches no roles, so a
//! backend can only find its fast scratch or its profile buffer by position. Every role of a
//! backend therefore has a fixed slot, and a call's scratch list runs from slot 0 to the last
//! role the blob needs: a role of size zero before that is an *empty* argument (not planned;
//! the backend sees data `NULL`, size 0) rather than a gap that would shift the later roles.
//!
//! ```
//! use arenaplan_build::backends::ScratchRole;
//! assert_eq!(ScratchRole::NeutronSramScratch.slot(), 1);
//! assert_eq!(ScratchRole::EthosUFastScratch.spec(), "fast_scratch");
//! ```

use std::fmt;

use crate::c_writer::CWriter;

pub use crate::model::ScratchRole;

/// One backend's scratch slots: slot `k` holds `roles[k]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BackendSlots {
    /// The backend id.
    pub backend: &'static str,
    /// What the C macros of its slots start with, e.g. `AP_ETHOSU`.
    pub c_prefix: &'static str,
    /// One line for the generated header.
    pub about: &'static str,
    /// Its roles, by slot.
    pub roles: &'static [ScratchRole],
}

/// Every backend with scratch roles. The order of `roles` is the ABI: append, never reorder.
pub const BACKEND_SLOTS: [BackendSlots; 2] = [
    BackendSlots {
        backend: "EthosUBackend",
        c_prefix: "AP_ETHOSU",
        about: "Vela's scratch (region 1), fast scratch (region 2, Dedicated_Sram).",
        roles: &[ScratchRole::EthosUScratch, ScratchRole::EthosUFastScratch],
    },
    BackendSlots {
        backend: "NeutronBackend",
        c_prefix: "AP_NEUTRON",
        about:
            "scratch, SRAM scratch (weights prefetch), profile and debug buffers, transpositions.",
        roles: &[
            ScratchRole::NeutronScratch,
            ScratchRole::NeutronSramScratch,
            ScratchRole::NeutronProfile,
            ScratchRole::NeutronDebug,
            ScratchRole::NeutronTranspose,
        ],
    },
];

/// The slots of `backend`, if it has scratch roles.
pub fn slots_of(backend: &str) -> Option<&'static BackendSlots> {
    BACKEND_SLOTS.iter().find(|s| s.backend == backend)
}

impl ScratchRole {
    /// Every role.
    pub const ALL: [ScratchRole; 7] = [
        ScratchRole::EthosUScratch,
        ScratchRole::EthosUFastScratch,
        ScratchRole::NeutronScratch,
        ScratchRole::NeutronSramScratch,
        ScratchRole::NeutronProfile,
        ScratchRole::NeutronDebug,
        ScratchRole::NeutronTranspose,
    ];

    /// The slots of the backend the role belongs to.
    pub(crate) fn backend_slots(self) -> &'static BackendSlots {
        match self {
            ScratchRole::EthosUScratch | ScratchRole::EthosUFastScratch => &BACKEND_SLOTS[0],
            _ => &BACKEND_SLOTS[1],
        }
    }

    /// The backend id the role belongs to.
    pub fn backend(self) -> &'static str {
        self.backend_slots().backend
    }

    /// Its position among the call's scratch arguments (0: the first after the outputs).
    pub fn slot(self) -> usize {
        // Every role is in its backend's table (a test checks it).
        let roles = self.backend_slots().roles;
        roles.iter().position(|&r| r == self).unwrap_or(roles.len())
    }

    /// Whether the build adds it from what a call's tensors need (Neutron's transposition
    /// buffer), rather than a blob or a declaration giving it.
    pub fn is_argument_need(self) -> bool {
        self == ScratchRole::NeutronTranspose
    }

    /// The compile spec naming its pool unless a declaration says otherwise.
    pub fn spec(self) -> &'static str {
        match self {
            ScratchRole::EthosUFastScratch | ScratchRole::NeutronSramScratch => "fast_scratch",
            _ => "npu_scratch",
        }
    }

    /// Its name in reports, value names and generated `#define`s.
    pub fn label(self) -> &'static str {
        match self {
            ScratchRole::EthosUScratch | ScratchRole::NeutronScratch => "scratch",
            ScratchRole::EthosUFastScratch => "fast_scratch",
            ScratchRole::NeutronSramScratch => "sram_scratch",
            ScratchRole::NeutronProfile => "profile",
            ScratchRole::NeutronDebug => "debug",
            ScratchRole::NeutronTranspose => "transpose",
        }
    }

    /// Its C macro, e.g. `AP_NEUTRON_SLOT_PROFILE`.
    pub fn c_macro(self) -> String {
        format!(
            "{}_SLOT_{}",
            self.backend_slots().c_prefix,
            self.label().to_ascii_uppercase()
        )
    }
}

impl fmt::Display for ScratchRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} `{}` (slot {})",
            self.backend(),
            self.label(),
            self.slot()
        )
    }
}

/// The comment that opens `scratch_slots.h`.
const HEADER_COMMENT: &str = "\
/* Where each scratch role sits in a delegate call's trailing arguments (after the inputs and
 * outputs). GENERATED from arenaplan-build's scratch-slot definition
 * (build-support/src/backends/slots.rs); a test fails when the two differ.
 *
 * A call's scratch list holds the roles from slot 0 up to the last role its blob needs; a role
 * of size zero before that is an empty argument (data NULL, size 0), so every role keeps its
 * slot. A list shorter than a role's slot means the plan did not plan that role. */";

/// The text of `runtime-c/include/arenaplan/scratch_slots.h`.
pub fn c_header() -> String {
    let mut w = CWriter::without_banner();
    for line in HEADER_COMMENT.lines() {
        w.line(line);
    }
    w.guarded("ARENAPLAN_SCRATCH_SLOTS_H", |w| {
        for slots in &BACKEND_SLOTS {
            w.blank()
                .comment(&format!("{}: {}", slots.backend, slots.about));
            for (slot, role) in slots.roles.iter().enumerate() {
                w.define_unsigned(&role.c_macro(), slot);
            }
            w.define_unsigned(&format!("{}_SLOTS", slots.c_prefix), slots.roles.len());
        }
        w.blank();
    });
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_role_has_one_slot_in_its_backend() {
        for role in ScratchRole::ALL {
            let slots = role.backend_slots();
            assert_eq!(
                slots.roles.iter().filter(|&&r| r == role).count(),
                1,
                "{role:?}"
            );
            assert_eq!(slots.roles[role.slot()], role);
            assert_eq!(slots_of(role.backend()), Some(slots));
        }
        let listed: usize = BACKEND_SLOTS.iter().map(|s| s.roles.len()).sum();
        assert_eq!(listed, ScratchRole::ALL.len());
        assert_eq!(
            ScratchRole::NeutronProfile.to_string(),
            "NeutronBackend `profile` (slot 2)"
        );
        assert_eq!(slots_of("MyRustBackend"), None);
    }

    /// The C backends read their slots from the header; it must say what this module says.
    #[test]
    fn the_c_header_is_rendered_from_this_table() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../runtime-c/include/arenaplan/scratch_slots.h"
        );
        if std::env::var_os("ARENAPLAN_WRITE_SLOTS_H").is_some() {
            std::fs::write(path, c_header()).unwrap();
        }
        let on_disk = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            on_disk == c_header(),
            "{path} differs from the slot table in build-support/src/backends/slots.rs; \
             regenerate it: write arenaplan_build::backends::slots::c_header() to that file \
             (e.g. `ARENAPLAN_WRITE_SLOTS_H=1 cargo test -p arenaplan-build --lib slots`)"
        );
    }
}
