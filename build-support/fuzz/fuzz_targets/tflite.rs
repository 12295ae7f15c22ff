//! `.tflite` reader, then the whole planning pipeline on whatever it accepts.
#![no_main]

use arenaplan_build::import::read_tflite;
use arenaplan_build::pipeline::Pipeline;
use arenaplan_build::Planner;
use arenaplan_build::targets::Catalogue;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(program) = read_tflite(data, "fuzz") {
        let catalogue = Catalogue::builtin();
        let mut planner = Planner::new();
        planner.step_budget(10_000);
        let _ = Pipeline::new(catalogue.target("corstone-320").unwrap())
            .planner(planner)
            .run(program);
    }
});
