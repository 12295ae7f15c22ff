//! The functional Ethos-U model on command streams and weight streams no compiler wrote: every
//! word of a real Vela stream (TensorFlow's operator fixture for the U55-128 and for the
//! U85-256: convolutions, depthwise, transposed convolution, pooling, elementwise, chaining)
//! replaced in turn, and weight bytes flipped, run to the end each time. The emulation must end every job, computed or refused,
//! inside the regions the driver gave it: a fault, never a crash or a hang (CI's sanitizer
//! runs would name an access outside). What a refused job means is said in the failure's text.

use std::path::{Path, PathBuf};

use std::sync::{Mutex, OnceLock};

use arenaplan_build::{Build, Rendered};

/// A Vela stream and the target whose NPU it was compiled for.
struct Case {
    file: &'static str,
    target: &'static str,
    rendered: OnceLock<Rendered>,
}

static CASES: [Case; 2] = [
    Case {
        file: "tf_int8_ops2__ethos-u55-128__Shared_Sram.tflite",
        target: "corstone-300",
        rendered: OnceLock::new(),
    },
    Case {
        file: "tf_int8_ops2__ethos-u85-256__Dedicated_Sram.tflite",
        target: "corstone-320",
        rendered: OnceLock::new(),
    },
];

/// The emulated NPU is the process's: one job at a time, whichever test runs it.
static EMULATED_NPU: Mutex<()> = Mutex::new(());

impl Case {
    /// The fixture, planned.
    fn rendered(&self) -> &Rendered {
        self.rendered.get_or_init(|| {
            Build::new()
                .model(
                    Path::new(env!("CARGO_MANIFEST_DIR"))
                        .join("../../build-support/testdata/vela-ops")
                        .join(self.file),
                )
                .target(self.target)
                .sources(Vec::<PathBuf>::new())
                .try_render()
                .unwrap()
        })
    }

    /// The fixture's blob.
    fn blob(&self) -> &[u8] {
        self.rendered().program.delegates[0].blob.as_ref().unwrap()
    }

    /// Runs the fixture once with `mutate` applied to its blob: Ok, or the failure's text.
    fn run_mutated(&self, mutate: &dyn Fn(&mut Vec<u8>)) -> Result<(), String> {
        let _npu = EMULATED_NPU.lock().unwrap_or_else(|p| p.into_inner());
        let mut program = self.rendered().program.clone();
        mutate(program.delegates[0].blob.as_mut().unwrap());
        let (program, plan) = (&program, &self.rendered().plan);
        let tables = arenaplan_host::Tables::new(program, plan).unwrap();
        let arenas = arenaplan_host::Arenas::new(program, plan);
        let backends = arenaplan_host::emulated_backends(self.target).unwrap();
        let kernels = arenaplan_host::kernels();
        // SAFETY: the tables, arenas, backends and kernels outlive the runner, the arenas' only
        // user.
        let mut runner = unsafe {
            arenaplan_host::Runner::with_kernels(&tables, arenas.pools(), &backends, &kernels)
        }
        .map_err(|e| e.to_string())?;
        runner
            .execute()
            .map_err(|(e, at)| arenaplan_host::failure_text(&e, at))
    }
}

/// The byte range of block `name` of a Vela bin stream.
fn block(blob: &[u8], name: &str) -> std::ops::Range<usize> {
    let mut at = 0;
    while at + 32 <= blob.len() {
        let size = u32::from_le_bytes(blob[at + 16..at + 20].try_into().unwrap()) as usize;
        let label = &blob[at..at + 16];
        if label.starts_with(name.as_bytes()) && label[name.len()] == 0 {
            return at + 32..at + 32 + size;
        }
        at += 32 + size.next_multiple_of(16);
    }
    panic!("no block {name}")
}

#[test]
fn replaced_command_words_are_computed_or_refused_never_a_crash() {
    if arenaplan::tflite_kernels().next().is_none() {
        return; // the fixture's QUANTIZE/DEQUANTIZE run on CMSIS-NN
    }
    for case in &CASES {
        case.run_mutated(&|_| {}).unwrap();
        let cmd = block(case.blob(), "cmd_data");
        // After COP1, the optimizer config (3 words), NOPs and the COMMAND_STREAM action: the
        // stream's own words.
        let words = (cmd.end - cmd.start) / 4;
        let (mut refused, mut ran) = (0, 0);
        for w in 8..words {
            for replace in [0xFFFF_0000u32, 0x0123_0106] {
                let at = cmd.start + 4 * w;
                let outcome = case.run_mutated(&|blob| {
                    let old = u32::from_le_bytes(blob[at..at + 4].try_into().unwrap());
                    // Keep the opcode and kind for a parameter change, or replace the whole
                    // word.
                    let new = if replace & 0xFFFF == 0 {
                        (old & 0xFFFF) | replace
                    } else {
                        replace
                    };
                    blob[at..at + 4].copy_from_slice(&new.to_le_bytes());
                });
                match outcome {
                    Ok(()) => ran += 1,
                    Err(_) => refused += 1,
                }
            }
        }
        eprintln!(
            "{}: {ran} mutated streams ran, {refused} refused",
            case.file
        );
        assert!(refused > 0 && ran > 0, "{}", case.file);
    }
}

#[test]
fn flipped_weight_bytes_are_computed_or_refused_never_a_crash() {
    if arenaplan::tflite_kernels().next().is_none() {
        return;
    }
    for case in &CASES {
        let weights = block(case.blob(), "weight_data");
        // A fixed sequence (xorshift), the same on every run.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut refused = 0;
        for _ in 0..150 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = weights.start + (state % (weights.end - weights.start) as u64) as usize;
            let bits = (state >> 32) as u8 | 1;
            if case.run_mutated(&|blob| blob[at] ^= bits).is_err() {
                refused += 1;
            }
        }
        eprintln!("{}: {refused} of 150 weight flips refused", case.file);
    }
}
