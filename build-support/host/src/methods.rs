//! Each method's tables, for a runner that runs every method of a program over one set of
//! arenas.

use std::string::String;
use std::vec::Vec;

use arenaplan_build::model::Program;
use arenaplan_build::tables::ProgramTables;
use arenaplan_build::ModelPlan;

use crate::Tables;

/// One table per method of `program` as `plan` placed it (one for a program with a single
/// method), each with the method's name (empty for a single method): what a host runner runs,
/// every method over the same arenas. `None` as for [`Tables::new`].
pub fn method_tables(program: &Program, plan: &ModelPlan) -> Option<Vec<(String, Tables)>> {
    let tables = ProgramTables::new(program, plan).ok()?;
    tables
        .methods
        .iter()
        .enumerate()
        .map(|(k, m)| {
            Some((
                m.name.unwrap_or_default().to_owned(),
                Tables::of_method(&tables, k)?,
            ))
        })
        .collect()
}
