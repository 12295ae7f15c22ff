//! One injective symbol rule: operators that differ only in punctuation bind to different
//! kernels (`my.relu` and `my_relu` once both became `ap_kernel_my_relu`, so one silently ran
//! the other's code).

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::emit::{Emit, Symbols};
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::targets::Catalogue;

mod common;

#[test]
fn my_dot_relu_and_my_underscore_relu_bind_to_two_kernels() {
    let text = r#"name = "clash"
inputs = ["x"]
outputs = ["y"]
[[tensor]]
name = "x"
dtype = "int8"
shape = [16]
[[tensor]]
name = "t"
dtype = "int8"
shape = [16]
[[tensor]]
name = "y"
dtype = "int8"
shape = [16]
[[instruction]]
kind = "kernel"
op = "my.relu"
inputs = ["x"]
outputs = ["t"]
[[instruction]]
kind = "kernel"
op = "my_relu"
inputs = ["t"]
outputs = ["y"]
"#;
    let program = parse_toml_model(&SourceText::new("clash.toml", text), None).unwrap();
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (program, plan) = common::planned(target, program).unwrap();
    let files = common::emit_files(&program, &plan, target, "clash", Symbols::C, Emit::ALL);
    let source = common::text(&files, "clash_program.c");
    assert!(
        source.contains("extern const ap_kernel_t ap_kernel_my_2erelu;"),
        "{source}"
    );
    assert!(
        source.contains("extern const ap_kernel_t ap_kernel_my__relu;"),
        "{source}"
    );
}
