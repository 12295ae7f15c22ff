//! `.pte` reader, then the whole planning pipeline and the verify stage on whatever it accepts:
//! a plan that fails the verify stage is a bug, as a panic is.
#![no_main]

use arenaplan_build::import::read_pte;
use arenaplan_build::pipeline::Pipeline;
use arenaplan_build::targets::Catalogue;
use arenaplan_build::verify::verify;
use arenaplan_build::Planner;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(program) = read_pte(data, "fuzz") {
        let catalogue = Catalogue::builtin();
        let mut planner = Planner::new();
        planner.step_budget(10_000);
        let target = catalogue.target("corstone-300").unwrap();
        if let Ok((program, plan)) = Pipeline::new(target).planner(planner).run(program) {
            verify(&program, &plan, target).unwrap_or_else(|e| panic!("{e}"));
        }
    }
});
