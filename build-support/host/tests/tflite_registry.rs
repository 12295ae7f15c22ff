//! The runtime's registry of TFLite kernels (`runtime-c/kernels/tflite/registry.c`, rendered
//! from arenaplan-build's kernel list) against what each C kernel says it is: the name a
//! kernel carries is the one its symbol spells under the build's name rule, so a program that
//! names `tflite:FOO` links to and finds the kernel the list calls FOO.

#[path = "../../tests/common/skip.rs"]
mod skip;

use std::ffi::CStr;

use arenaplan_build::backends::kernel_symbol;
use arenaplan_build::kernels::tflite::c_files;

#[test]
fn each_registered_kernel_carries_the_name_its_symbol_spells() {
    let names: Vec<String> = arenaplan::tflite_kernels()
        .map(|k| {
            // SAFETY: the runtime's kernel names are static C strings.
            let name = unsafe { CStr::from_ptr(k.name) };
            name.to_str().expect("an ASCII name").to_owned()
        })
        .collect();
    if names.is_empty() {
        skip::skip("the runtime was built without its TFLite kernels (its feature `tflite-kernels`, sources at CMSIS_NN_PATH)");
        return;
    }
    let registry = c_files::registry();
    let listed: Vec<&str> = registry
        .lines()
        .filter_map(|l| l.trim().strip_prefix('&')?.strip_suffix(','))
        .collect();
    let spelt: Vec<String> = names.iter().map(|n| kernel_symbol(n)).collect();
    assert_eq!(spelt, listed);
    assert!(names.iter().all(|n| n.starts_with("tflite:")));
}
