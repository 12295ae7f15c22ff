//! `cargo bench -p arenaplan-build --bench blob_compile --features internals`: what compiling
//! `NAME_program.c` costs with the corpus's largest delegate blob linked as a binary
//! (`Blobs::Incbin`) and written as a C array (`Blobs::CArray`), with each C compiler found
//! (`cc`, and `arm-none-eabi-gcc -mcpu=cortex-m55`), at `-O2`. It prints the median wall time
//! and the compiler's peak resident memory of five runs each way, and the ratios. The machine
//! is shared: read the ratios, not the milliseconds.
//!
//! It also checks, on every run, that both forms put the same bytes in the object: the blob
//! symbol's contents are the model's blob either way.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use arenaplan_build::import::load_model;
use arenaplan_build::model::Program;
use arenaplan_build::{Blobs, Build, Emit, Symbols};

const RUNS: usize = 5;

/// The model with the largest blob among the corpus's NPU programs, the target its folder or
/// name says it was compiled for, the program, and that blob.
fn largest_blob() -> Option<(PathBuf, &'static str, Program, Vec<u8>)> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus");
    let mut best: Option<(PathBuf, &'static str, Program, Vec<u8>)> = None;
    for dir in [
        "pte-delegated",
        "vela/u55-128-shared-sram",
        "vela/u85-256-dedicated-sram",
    ] {
        let Ok(entries) = std::fs::read_dir(corpus.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for file in files {
            let name = file.to_string_lossy().into_owned();
            if !(name.ends_with(".pte") || name.ends_with(".tflite")) {
                continue;
            }
            let target = match () {
                _ if name.contains("neutron") => "imxrt700",
                _ if name.contains("u85") => "corstone-320",
                _ => "corstone-300",
            };
            let Ok(program) = load_model(&file) else {
                continue;
            };
            let Some(blob) = program
                .delegates
                .iter()
                .filter_map(|d| d.blob.clone())
                .max_by_key(Vec::len)
            else {
                continue;
            };
            if best.as_ref().is_none_or(|b| blob.len() > b.3.len()) {
                best = Some((file, target, program, blob));
            }
        }
    }
    best
}

/// Wall time and peak resident kilobytes of one run of `command` (the child's own rusage:
/// wait4 reaps it, which `Child::wait` cannot do while reporting its resources).
#[allow(clippy::zombie_processes)]
fn measure(command: &mut Command) -> (Duration, i64) {
    let start = Instant::now();
    let child = command.spawn().expect("the compiler starts");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct wait4 fills in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child's, not yet waited for; both pointers are valid.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed();
    assert!(
        pid > 0 && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the compiler failed: {command:?}"
    );
    (elapsed, usage.ru_maxrss)
}

fn median<T: Ord + Copy>(mut v: Vec<T>) -> T {
    v.sort();
    v[v.len() / 2]
}

fn main() -> ExitCode {
    let Some((model, target, program, blob)) = largest_blob() else {
        eprintln!("blob_compile: no corpus NPU program found under ../shared/corpus");
        return if std::env::var("CI").is_ok_and(|v| v == "true") {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        };
    };
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("blob-compile");
    let mut c_only = Emit::NONE;
    c_only.c = true;
    println!(
        "blob_compile: {} ({} bytes of blob), NAME_program.c at -O2, median of {RUNS}",
        model.file_name().unwrap().to_string_lossy(),
        blob.len()
    );
    println!(
        "{:<20} {:<8} {:>12} {:>10} {:>12} {:>12}",
        "compiler", "blobs", "C text", "wall ms", "peak MB", "object bytes"
    );
    let compilers: Vec<(&str, Vec<&str>)> = [
        ("cc", vec![]),
        (
            "arm-none-eabi-gcc",
            vec!["-mcpu=cortex-m55", "-mthumb", "-mfloat-abi=hard"],
        ),
    ]
    .into_iter()
    .filter(|(cc, _)| Command::new(cc).arg("--version").output().is_ok())
    .collect();
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c/include");
    for (cc, flags) in &compilers {
        let mut rows = Vec::new();
        for (form, label) in [(Blobs::Incbin, "incbin"), (Blobs::CArray, "c array")] {
            let dir = work.join(label.replace(' ', "-"));
            let _ = std::fs::remove_dir_all(&dir);
            Build::new()
                .program(program.clone())
                .target(target)
                .name("m")
                .sources(Vec::<PathBuf>::new())
                .symbols(Symbols::C)
                .emit(c_only)
                .blobs(form)
                .out_dir(&dir)
                .cargo_metadata(false)
                .try_compile()
                .unwrap_or_else(|e| panic!("{}: {e}", model.display()));
            let source = dir.join("m_program.c");
            let text = std::fs::metadata(&source).unwrap().len();
            let object = dir.join("m_program.o");
            let mut times = Vec::new();
            let mut peaks = Vec::new();
            for _ in 0..RUNS {
                let (t, kb) = measure(
                    Command::new(cc)
                        .args(flags)
                        .args(["-O2", "-c", "-I"])
                        .arg(&dir)
                        .arg("-I")
                        .arg(&runtime)
                        .arg(&source)
                        .arg("-o")
                        .arg(&object),
                );
                times.push(t);
                peaks.push(kb);
            }
            let object_bytes = std::fs::metadata(&object).unwrap().len();
            check_blob_in_object(cc, &object, &blob);
            let (t, kb) = (median(times), median(peaks));
            println!(
                "{:<20} {:<8} {:>12} {:>10.1} {:>12.1} {:>12}",
                cc,
                label,
                text,
                t.as_secs_f64() * 1e3,
                kb as f64 / 1024.0,
                object_bytes
            );
            rows.push((t, kb));
        }
        let (incbin, array) = (rows[0], rows[1]);
        println!(
            "{:<20} {:<8} {:>12} {:>9.0}x {:>11.1}x",
            cc,
            "ratio",
            "",
            array.0.as_secs_f64() / incbin.0.as_secs_f64(),
            array.1 as f64 / incbin.1 as f64
        );
    }
    ExitCode::SUCCESS
}

/// The object's `m_blob0` holds exactly `blob`, in `.rodata` both ways (read back with the
/// compiler's own `nm` and `objcopy`: a symbol's value in an object is its section offset).
fn check_blob_in_object(cc: &str, object: &Path, blob: &[u8]) {
    let prefix = cc.strip_suffix("gcc").unwrap_or("");
    let listing = Command::new(format!("{prefix}nm"))
        .args(["-S", "--defined-only"])
        .arg(object)
        .output()
        .expect("nm runs");
    let listing = String::from_utf8_lossy(&listing.stdout);
    let fields: Vec<&str> = listing
        .lines()
        .find(|l| l.ends_with(" m_blob0"))
        .unwrap_or_else(|| panic!("no m_blob0 in {}:\n{listing}", object.display()))
        .split_whitespace()
        .collect();
    let hex = |s: &str| usize::from_str_radix(s, 16).unwrap();
    let (offset, size) = (hex(fields[0]), hex(fields[1]));
    assert_eq!(size, blob.len().max(1), "m_blob0's size");
    let dump = object.with_extension("rodata.bin");
    let copied = Command::new(format!("{prefix}objcopy"))
        .args(["-O", "binary", "--only-section", ".rodata"])
        .arg(object)
        .arg(&dump)
        .status()
        .expect("objcopy runs");
    assert!(copied.success());
    let bytes = std::fs::read(&dump).unwrap();
    assert!(
        bytes.get(offset..offset + blob.len()) == Some(blob),
        "{}: m_blob0 is not the model's blob",
        object.display()
    );
    assert_eq!(offset % 16, 0, "m_blob0 is 16-byte aligned");
}
