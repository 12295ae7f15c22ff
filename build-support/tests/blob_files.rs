//! Delegate blobs linked as binaries (`Blobs::Incbin`) or as C arrays (`Blobs::CArray`), one
//! test per rule: both put the model's bytes, 16-byte aligned, behind the program table's blob
//! pointer; the C changes whenever a blob's bytes do (builds that track only C sources
//! recompile it); the target's `blob_section` is where both put them.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::emit::{emit, Input};
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::model::Program;
use arenaplan_build::targets::{Catalogue, BUILTIN_TARGETS};
use arenaplan_build::verify::verify;
use arenaplan_build::{Blobs, Emit, Symbols};

/// One call of a test backend whose blob is `blob`.
fn program(blob: &[u8]) -> Program {
    let text = common::one_call("TestNpu", "{ size = 64, pool = \"npu_scratch\" }");
    let mut p = parse_toml_model(&SourceText::new("m.toml", &text), None).unwrap();
    p.delegates[0].blob = Some(blob.to_vec());
    p
}

/// The C files (and blob files) for `program` on corstone-300 of `catalogue`.
fn files(catalogue: &Catalogue, program: Program, blobs: Blobs) -> Vec<(String, Vec<u8>)> {
    let target = catalogue.target("corstone-300").unwrap();
    let (program, plan) = common::planned(target, program).unwrap();
    let verified = verify(&program, &plan, target).unwrap();
    let mut c = Emit::NONE;
    c.c = true;
    emit(
        &Input::new(verified, "m", &Default::default(), Symbols::C).blobs(blobs),
        c,
    )
    .unwrap()
}

fn write(files: &[(String, Vec<u8>)], tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("blob-files-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    dir
}

/// Prints the blob's size, its alignment's remainder and its bytes' FNV-1a, as the runtime's
/// program table gives them.
const MAIN: &str = r#"#include <stdio.h>
#include "m_program.h"
/* The program names its backend; this test never runs it. */
const ap_backend_t ap_backend_TestNpu = {"TestNpu", NULL, NULL, NULL, 0, NULL, 0};
int main(void) {
    const ap_delegate_desc_t *d = &m_program.delegates[0];
    unsigned long long h = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < d->blob_size; i++) {
        h = (h ^ d->blob[i]) * 0x100000001b3ull;
    }
    printf("%u %u %016llx\n", (unsigned)d->blob_size, (unsigned)((uintptr_t)d->blob % 16), h);
    return 0;
}
"#;

/// FNV-1a, 64 bits, as `MAIN` computes it.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

fn blob(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i * 7 + 3) as u8).collect()
}

#[test]
fn both_forms_link_the_models_bytes_aligned() {
    let catalogue = Catalogue::builtin();
    let bytes = blob(1000);
    let expected = format!("1000 0 {:016x}", fnv1a(&bytes));
    for (form, tag) in [(Blobs::Incbin, "incbin"), (Blobs::CArray, "array")] {
        let files = files(&catalogue, program(&bytes), form);
        let has_bin = files.iter().any(|(n, _)| n == "m_blob0.bin");
        assert_eq!(has_bin, form == Blobs::Incbin, "{tag}");
        if form == Blobs::Incbin {
            // The C names the file; the bytes are only in it.
            assert!(
                common::text(&files, "m_program.c").contains("AP_INCBIN(m_blob0, \"m_blob0.bin\"")
            );
            assert!(!common::text(&files, "m_program.c").contains("0x03, 0x0a"));
        }
        let dir = write(&files, tag);
        let out = common::run_generated_c(&dir, &["m.c", "m_program.c"], MAIN);
        assert_eq!(out.trim(), expected, "{tag}");
    }
}

#[test]
fn a_changed_blob_changes_the_c_that_links_it() {
    let catalogue = Catalogue::builtin();
    let mut other = blob(1000);
    other[500] ^= 1;
    let one = files(&catalogue, program(&blob(1000)), Blobs::Incbin);
    let two = files(&catalogue, program(&other), Blobs::Incbin);
    // Same size, one byte apart: make and CMake see only the C file change.
    assert_ne!(
        common::text(&one, "m_program.c"),
        common::text(&two, "m_program.c")
    );
}

#[test]
fn a_missing_blob_file_fails_the_compile_naming_it() {
    let catalogue = Catalogue::builtin();
    let files: Vec<_> = files(&catalogue, program(&blob(64)), Blobs::Incbin)
        .into_iter()
        .filter(|(n, _)| n != "m_blob0.bin")
        .collect();
    let dir = write(&files, "missing");
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c/include");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(cc)
        .args(["-c", "-o"])
        .arg(dir.join("p.o"))
        .arg("-I")
        .arg(&dir)
        .arg("-I")
        .arg(runtime)
        .arg(dir.join("m_program.c"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("m_blob0.bin"), "{stderr}");
}

#[test]
fn the_targets_blob_section_holds_the_blob_both_ways() {
    let catalogue = Catalogue::parse(&SourceText::new(
        "targets.toml",
        BUILTIN_TARGETS.replacen(
            "default_pool = \"sram\"",
            "default_pool = \"sram\"\nblob_section = \"network_model_sec\"",
            1,
        ),
    ))
    .unwrap();
    for (form, tag) in [
        (Blobs::Incbin, "section-incbin"),
        (Blobs::CArray, "section-array"),
    ] {
        let dir = write(&files(&catalogue, program(&blob(256)), form), tag);
        let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c/include");
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let object = dir.join("p.o");
        let built = Command::new(cc)
            .args(["-c", "-o"])
            .arg(&object)
            .arg("-I")
            .arg(&dir)
            .arg("-I")
            .arg(runtime)
            .arg(dir.join("m_program.c"))
            .status()
            .unwrap();
        assert!(built.success(), "{tag}");
        let headers = Command::new("objdump")
            .arg("-h")
            .arg(&object)
            .output()
            .unwrap();
        let headers = String::from_utf8_lossy(&headers.stdout);
        let line = headers
            .lines()
            .find(|l| l.contains("network_model_sec"))
            .unwrap_or_else(|| panic!("{tag}: no network_model_sec:\n{headers}"));
        // Size column: 256 bytes (0x100), 16-byte aligned (2**4).
        assert!(
            line.contains("00000100") && line.ends_with("2**4"),
            "{tag}: {line}"
        );
    }
}
