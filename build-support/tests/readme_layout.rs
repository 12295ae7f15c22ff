//! The README's layout table matches the tree: every path it lists exists, and every folder of
//! the repository's rooms (the top level, the crates' folders, each backend and kernel runtime,
//! each example) is listed, so a new room cannot land without a line saying what it is for.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The layout table's rows as (paths of the first column, text of the second).
fn layout_rows() -> Vec<(Vec<String>, String)> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let section = readme
        .split("\n## Layout\n")
        .nth(1)
        .expect("README.md has a `## Layout` section");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split(" | ").collect();
            let paths = cells[0]
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_owned)
                .collect();
            (paths, cells[1..].join(" | "))
        })
        .collect()
}

/// The folders directly inside `dir` (relative to the repository), hidden ones and build
/// output left out.
fn folders(dir: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.') && name != "target")
        .map(|name| {
            if dir.is_empty() {
                format!("{name}/")
            } else {
                format!("{dir}/{name}/")
            }
        })
        .collect();
    out.sort();
    out
}

#[test]
fn every_path_the_layout_table_lists_exists() {
    let rows = layout_rows();
    assert!(rows.len() > 10, "the layout table was not found");
    for (paths, _) in &rows {
        for path in paths {
            assert!(
                root().join(path).exists(),
                "README.md's layout lists `{path}`, which is not in the tree: correct the row"
            );
        }
    }
}

#[test]
fn every_room_of_the_tree_has_a_row() {
    let rows = layout_rows();
    let listed: BTreeSet<&str> = rows
        .iter()
        .flat_map(|(p, _)| p.iter().map(String::as_str))
        .collect();
    let mut rooms = folders("");
    for crate_dir in ["build-support", "runtime-c", "macros"] {
        rooms.extend(folders(crate_dir));
    }
    rooms.retain(|room| {
        ![
            "build-support/src/",
            "build-support/tests/",
            "macros/src/",
            "macros/tests/",
        ]
        .contains(&room.as_str())
    });
    for room in &rooms {
        assert!(
            listed.contains(room.as_str()),
            "`{room}` has no row in README.md's layout table: add one that says what it holds"
        );
    }
    // Inside a room: each NPU, each kernel runtime and each example is named in its row.
    for parent in [
        "runtime-c/backends/",
        "runtime-c/kernels/",
        "build-support/src/backends/",
        "build-support/src/kernels/",
        "examples/",
    ] {
        let (_, what) = rows
            .iter()
            .find(|(p, _)| p.iter().any(|p| p == parent))
            .unwrap_or_else(|| panic!("README.md's layout table has no row for `{parent}`"));
        for child in folders(parent.trim_end_matches('/')) {
            let name = child.trim_end_matches('/').rsplit('/').next().unwrap();
            assert!(
                what.contains(&format!("`{name}/`")) || what.contains(&format!("`{name}`")),
                "`{child}` is not named in README.md's row for `{parent}`: add it there"
            );
        }
    }
}
