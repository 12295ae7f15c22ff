//! Forgetting the NPU's set-up is an error, not a crash: a program with an Ethos-U call run
//! without `ethosu_init` (here: without `arenaplan::sim::ethos_u`) fails its call with
//! `AP_ERR_DRIVER_SETUP`, whose text names the set-up calls, through Arm's driver (whose
//! semaphore does not exist before `ethosu_init`) as through the driver simulator. Its own
//! test binary: no other test of this process may have set the emulated NPU up.

use std::path::{Path, PathBuf};

use arenaplan::sys;
use arenaplan_build::Build;

#[test]
fn an_ethos_u_call_without_the_npu_set_up_fails_naming_the_set_up() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../build-support/testdata/fixtures/fixture_conv_vela_u55.tflite");
    let rendered = Build::new()
        .model(&fixture)
        .target("corstone-300")
        .sources(Vec::<PathBuf>::new())
        .try_render()
        .unwrap();
    let (program, plan) = (rendered.program, rendered.plan);
    let tables = arenaplan_host::Tables::new(&program, &plan).unwrap();
    let arenas = arenaplan_host::Arenas::new(&program, &plan);
    let backends = [&raw const sys::ap_ethosu_backend];
    // SAFETY: the tables, arenas and backend outlive the runner, which alone uses the arenas.
    let mut runner =
        unsafe { arenaplan_host::Runner::new(&tables, arenas.pools(), &backends) }.unwrap();
    let (e, at) = runner.execute().unwrap_err();
    assert_eq!((e.0, at), (sys::ap_status::AP_ERR_DRIVER_SETUP, 0));
    let text = arenaplan_host::failure_text(&e, at);
    assert!(
        text.contains("arenaplan::sim::ethos_u") && text.contains("ethosu_init"),
        "{text}"
    );
    // Set up, the same runner runs.
    arenaplan::sim::ethos_u(arenaplan::sim::EthosU::U55_128).unwrap();
    runner.execute().unwrap();
}
