//! One verdict on a blob, at build time and on the board: the build's Rust reader of Vela bin
//! streams and Neutron payloads, and the C backends' readers the firmware runs, are fed the
//! same bytes — valid blobs and thousands of mutations of them — and must accept and refuse
//! the same ones. (A blob the build accepted once failed only on the board.)

use arenaplan::sys;
use std::collections::BTreeMap;

use arenaplan_build::backends::{plugin_for, write_bin_stream, BinStreamParts, IoRecord};

/// The build's verdict: the backend's blob reader, as the build runs it on every delegate.
fn rust_accepts(backend: &str, blob: &[u8]) -> bool {
    plugin_for(backend)
        .expect("arenaplan reads this backend's blobs")
        .inspect(blob, &BTreeMap::new())
        .is_ok()
}

/// A small deterministic generator (no wall clock, no crate): the same cases on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// `seed` changed in one of the ways a corrupt or hostile file is: a byte, a 32-bit field
/// set to an edge value, or a truncation.
fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut b = seed.to_vec();
    match rng.below(4) {
        0 => {
            let at = rng.below(b.len());
            b[at] = rng.next() as u8;
        }
        1 | 2 => {
            let at = rng.below(b.len().saturating_sub(4)) & !3;
            let values = [0u32, 1, 2, 15, 16, 17, 255, 4096, 0x7FFF_FFFF, u32::MAX];
            let v = values[rng.below(values.len())];
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        _ => b.truncate(rng.below(b.len())),
    }
    b
}

/// The C Ethos-U backend's verdict: its `init` on a 16-byte aligned copy.
fn c_accepts_vela(blob: &[u8]) -> bool {
    #[repr(align(16))]
    struct Aligned([u8; 4096]);
    let mut copy = Box::new(Aligned([0; 4096]));
    copy.0[..blob.len()].copy_from_slice(blob);
    // SAFETY: zeroed is a valid (empty) handle.
    let mut handle: sys::ap_handle_t = unsafe { std::mem::zeroed() };
    // SAFETY: the backend is the runtime's own, initialised statically.
    let init = unsafe { sys::ap_ethosu_backend.init }.expect("the Ethos-U backend has an init");
    // SAFETY: a valid pointer to `blob.len()` readable bytes, no specs, a handle to fill.
    let status = unsafe {
        init(
            copy.0.as_ptr(),
            blob.len(),
            std::ptr::null(),
            0,
            &mut handle,
        )
    };
    status == sys::ap_status::AP_OK
}

fn c_accepts_neutron(blob: &[u8]) -> bool {
    // SAFETY: zeroed is a valid output to fill.
    let mut parsed: sys::ap_neutron_blob_t = unsafe { std::mem::zeroed() };
    // SAFETY: a valid pointer to `blob.len()` readable bytes.
    unsafe {
        sys::ap_neutron_parse(blob.as_ptr(), blob.len(), &mut parsed) == sys::ap_status::AP_OK
    }
}

fn vela_seed() -> Vec<u8> {
    let io = |offset| IoRecord {
        shape: [1, 1, 1, 2, 2, 8],
        elem_size: 1,
        offset,
        region: 1,
    };
    write_bin_stream(&BinStreamParts {
        cmd: b"COP1\0\0\0\0\x01\x02\x03\x04",
        weights: &[7; 40],
        scratch_size: 256,
        inputs: &[io(0), io(64)],
        outputs: &[io(128)],
    })
}

fn neutron_seed(version: u8) -> Vec<u8> {
    let mut v = vec![1u8, 1, 1, 0, 0, 0, 0, version];
    v.resize(16, 0);
    let mut words = [0u32; 16];
    words[0] = 0x6443_4D6E;
    words[6] = 64; // microcode bytes
    words[7] = 32; // weight bytes
    words[9] = 4096; // scratch
    let io = if version == 0 { 11 } else { 13 };
    words[io] = 1;
    words[io + 1] = 1;
    for w in words {
        v.extend_from_slice(&w.to_le_bytes());
    }
    v.extend([0xA5; 32 + 16]);
    v
}

#[test]
fn rust_and_c_give_every_vela_blob_the_same_verdict() {
    let seed = vela_seed();
    assert!(rust_accepts("EthosUBackend", &seed) && c_accepts_vela(&seed));
    let mut rng = Rng(1);
    let mut refused = 0;
    for case in 0..20_000 {
        let blob = mutate(&seed, &mut rng);
        let (rust, c) = (rust_accepts("EthosUBackend", &blob), c_accepts_vela(&blob));
        assert_eq!(rust, c, "case {case}: Rust {rust}, C {c}: {blob:?}");
        refused += usize::from(!rust);
    }
    // Both verdicts occur: the mutations reach the checks.
    assert!(refused > 1_000 && refused < 19_000, "{refused} refused");
}

#[test]
fn rust_and_c_give_every_neutron_payload_the_same_verdict() {
    for version in [0, 1] {
        let seed = neutron_seed(version);
        assert!(rust_accepts("NeutronBackend", &seed) && c_accepts_neutron(&seed));
        let mut rng = Rng(2 + u64::from(version));
        let mut refused = 0;
        for case in 0..20_000 {
            let blob = mutate(&seed, &mut rng);
            let (rust, c) = (
                rust_accepts("NeutronBackend", &blob),
                c_accepts_neutron(&blob),
            );
            assert_eq!(
                rust, c,
                "v{version} case {case}: Rust {rust}, C {c}: {blob:?}"
            );
            refused += usize::from(!rust);
        }
        assert!(
            refused > 1_000 && refused < 19_000,
            "v{version}: {refused} refused"
        );
    }
}
