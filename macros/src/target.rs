//! Which target the firmware is compiled for, from the environment the build script set.

use std::sync::OnceLock;

use arenaplan_syntax::diagnostic::SourceText;
use arenaplan_syntax::targets::{Catalogue, Target};

/// The selected target, or a message saying how to select one. Read once per compilation.
pub(crate) fn selected() -> Result<&'static Target, String> {
    static SELECTED: OnceLock<Result<Target, String>> = OnceLock::new();
    SELECTED
        .get_or_init(|| {
            let catalogue = match std::env::var_os("ARENAPLAN_TARGETS_FILE") {
                Some(path) => {
                    let path = std::path::PathBuf::from(path);
                    SourceText::read(&path, 4 << 20)
                        .and_then(|s| Catalogue::parse(&s))
                        .map_err(|d| format!("arenaplan: {d}"))?
                }
                None => Catalogue::builtin(),
            };
            let Ok(name) = std::env::var("ARENAPLAN_TARGET") else {
                let names: Vec<&str> = catalogue.targets.iter().map(|t| t.name.as_str()).collect();
                return Err(format!(
                    "arenaplan: no target selected. Add a build.rs that runs `arenaplan_build::Build` \
                     (it selects the target for the compiler), or set ARENAPLAN_TARGET to one of: {}",
                    names.join(", ")
                ));
            };
            catalogue
                .target(&name)
                .cloned()
                .map_err(|e| format!("arenaplan: ARENAPLAN_TARGET: {e}"))
        })
        .as_ref()
        .map_err(Clone::clone)
}
