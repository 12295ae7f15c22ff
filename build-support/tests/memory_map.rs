//! The memory map and the report say what each buffer is, readably without tooltips: names
//! listed under each pool, the program's inputs, outputs and state apart from other tensors,
//! an NPU's inputs and outputs drawn inside its scratch, and each pool's bytes by role.

use std::path::{Path, PathBuf};

use arenaplan_build::Build;

fn render(fixture: &str) -> (String, String) {
    let model = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/fixtures")
        .join(fixture);
    let rendered = Build::new()
        .model(&model)
        .target("corstone-300")
        .name("m")
        .sources(Vec::<PathBuf>::new())
        .try_render()
        .unwrap();
    let file = |name: &str| {
        let (_, bytes) = rendered.files.iter().find(|(f, _)| f == name).unwrap();
        String::from_utf8(bytes.clone()).unwrap()
    };
    (file("m.svg"), file("m.report.txt"))
}

#[test]
fn an_npus_inputs_and_outputs_are_drawn_inside_its_scratch_and_listed_by_name() {
    let (svg, report) = render("ethosu_u55_one_call.pte");
    // Every buffer listed under its pool with its name and role.
    assert!(svg.contains("(input, inside scratch #"), "{svg}");
    assert!(svg.contains("(output, inside scratch #"), "{svg}");
    assert!(svg.contains("(scratch, call 0)"), "{svg}");
    // Inside the scratch: an outline over it, not a box of its own.
    assert!(svg.contains(r##"fill="none" stroke="#2e8b57""##), "{svg}");
    // The pool's bytes by role, the inputs and outputs counted inside the scratch.
    assert!(svg.contains("(input and output inside it)"), "{svg}");
    assert!(
        report.contains("sram by role (bytes, before sharing): scratch "),
        "{report}"
    );
}

#[test]
fn state_is_drawn_and_reported_apart_from_other_tensors() {
    let (svg, report) = render("ethosu_u55_two_methods_shared_state.pte");
    assert!(svg.contains("(state)"), "{svg}");
    assert!(svg.contains(r##"fill="#7b3fa0""##), "{svg}");
    assert!(report.contains("state"), "{report}");
    // The report's buffers in memory order: offsets never go down within a pool.
    let offsets: Vec<(u32, u64)> = report
        .lines()
        .skip_while(|l| !l.starts_with("Buffers"))
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace();
            (
                f.next().unwrap().parse().unwrap(),
                f.next().unwrap().parse().unwrap(),
            )
        })
        .collect();
    assert!(offsets.len() >= 3, "{report}");
    assert!(offsets.windows(2).all(|w| w[0] <= w[1]), "{report}");
}
