//! Generated code always builds: see `tests/support/codegen.rs`, which this target shares with
//! the regression test over the inputs it once failed on. A panic is a bug.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/codegen.rs"]
mod codegen;

fuzz_target!(|data: &[u8]| {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    let dir = DIR.get_or_init(|| codegen::work_dir("fuzz-codegen"));
    let runtime = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../runtime-c/include");
    let _ = codegen::check(data, dir, &runtime);
});
