//! An arena ends at the last byte a buffer uses: the planner rounds sizes to the pool's
//! alignment to place buffers, but the last one's rounding is no memory the program needs.

mod common;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::pipeline::{Pipeline, PipelineError};
use arenaplan_build::targets::Catalogue;

fn board(capacity: u64) -> Catalogue {
    let text = format!(
        r#"schema_version = 1
[[target]]
name = "board"
cpu = "cortex-m33"
rust_target = "thumbv8m.main-none-eabihf"
default_pool = "sram"
[[target.pool]]
mem_id = 1
name = "sram"
capacity = {capacity}
section = ".arenaplan.sram"
region = "SRAM"
[target.specs]
cpu_scratch = "sram"
"#
    );
    Catalogue::parse(&SourceText::new("board.toml", text)).unwrap()
}

const ONE_TENSOR: &str = r#"
name = "m"
inputs = ["x"]
outputs = ["x"]
[[tensor]]
name = "x"
dtype = "int8"
shape = [100]
"#;

#[test]
fn a_hundred_bytes_fit_a_hundred_byte_pool_at_alignment_16() {
    let program = parse_toml_model(&SourceText::new("m.toml", ONE_TENSOR), None).unwrap();
    let catalogue = board(100);
    let (_, plan) = common::planned(catalogue.target("board").unwrap(), program).unwrap();
    assert_eq!(plan.pools[0].size, 100);
    assert_eq!(
        plan.pools[0].lower_bound, 100,
        "the bound is one of the arena that ends at its last byte"
    );
}

#[test]
fn one_byte_less_does_not_fit() {
    let program = parse_toml_model(&SourceText::new("m.toml", ONE_TENSOR), None).unwrap();
    let catalogue = board(99);
    let e = Pipeline::new(catalogue.target("board").unwrap())
        .plan(program)
        .unwrap_err();
    assert!(matches!(e, PipelineError::Overflow(_)), "{e}");
    assert!(e.to_string().contains("100"), "{e}");
}
