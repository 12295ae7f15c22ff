//! A program compiled for one NPU is refused for a target with another, at build time, naming
//! both (Arm's driver would refuse its first job on the board).

mod common;

use std::path::Path;

use arenaplan_build::import::load_pte;
use arenaplan_build::pipeline::{Pipeline, PipelineError};
use arenaplan_build::targets::Catalogue;

fn plan(fixture: &str, target: &str) -> Result<(), PipelineError> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/fixtures")
        .join(fixture);
    let catalogue = Catalogue::builtin();
    Pipeline::new(catalogue.target(target).unwrap())
        .run(load_pte(&path).unwrap())
        .map(|_| ())
}

#[test]
fn an_ethos_u_blob_plans_only_for_the_npu_it_was_compiled_for() {
    assert!(plan("ethosu_u55_one_call.pte", "corstone-300").is_ok());
    assert!(plan("ethosu_u85_one_call.pte", "corstone-320").is_ok());
    let e = plan("ethosu_u85_one_call.pte", "corstone-300")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("compiled for Ethos-U85 with 256 MACs")
            && e.contains("`corstone-300` has Ethos-U55 (ethos-u55-128)")
            && e.contains("--accelerator-config ethos-u55-128"),
        "{e}"
    );
    let e = plan("ethosu_u55_one_call.pte", "corstone-320")
        .unwrap_err()
        .to_string();
    assert!(e.contains("compiled for Ethos-U55 with 128 MACs"), "{e}");
}

#[test]
fn an_ethos_u_blob_is_refused_for_a_target_whose_npu_is_another_backend() {
    let e = plan("ethosu_u55_one_call.pte", "mcxn947").unwrap_err();
    assert!(matches!(e, PipelineError::Npu(_)), "{e}");
    let e = e.to_string();
    assert!(
        e.contains("`mcxn947` has a NeutronBackend NPU (mcxn94x)"),
        "{e}"
    );
}

#[test]
fn a_neutron_blob_plans_only_for_the_chip_its_compile_specs_name() {
    assert!(plan("neutron_v0_one_call.pte", "imxrt700").is_ok());
    assert!(plan("neutron_v0_one_call_mcxn94x.pte", "mcxn947").is_ok());
    let e = plan("neutron_v0_one_call.pte", "mcxn947").unwrap_err();
    assert!(matches!(e, PipelineError::Npu(_)), "{e}");
    let e = e.to_string();
    assert!(
        e.contains("compiled for the Neutron of `imxrt700` (its compile spec `target`)")
            && e.contains("target `mcxn947` has the Neutron of `mcxn94x`")
            && e.contains("compile spec `target` = \"mcxn94x\""),
        "{e}"
    );
    let e = plan("neutron_v0_one_call_mcxn94x.pte", "imxrt700")
        .unwrap_err()
        .to_string();
    assert!(e.contains("compiled for the Neutron of `mcxn94x`"), "{e}");
}
