//! The operator list of `runtime-c/kernels/executorch/README.md` is the signature table's: one
//! line per kernel library, every operator it binds. Rewrite it with
//! `ARENAPLAN_WRITE_README=1 cargo test -p arenaplan-build --test executorch_readme`.

use std::path::Path;

const BEGIN: &str = "<!-- end operators -->";

fn rendered() -> String {
    let libraries = [
        ("kernels/portable/", "portable (`kernels/portable/cpu`)"),
        ("kernels/quantized/", "quantized (`kernels/quantized/cpu`)"),
        (
            "backends/cortex_m/",
            "Cortex-M (`backends/cortex_m/ops`, on CMSIS-NN)",
        ),
    ];
    let all = arenaplan_build::executorch::signatures::all();
    let mut out = format!(
        "{} operators run on ExecuTorch's own kernels; {} on this crate's Rust.\n\n\
         | library | operators |\n|---|---|\n",
        all.len(),
        arenaplan_syntax::kernels::RUST_KERNELS.len()
    );
    for (folder, name) in libraries {
        let ops: Vec<String> = all
            .iter()
            .filter(|s| s.file.starts_with(folder))
            .map(|s| format!("`{}`", s.op))
            .collect();
        out.push_str(&format!("| {name}, {} | {} |\n", ops.len(), ops.join(", ")));
    }
    let rust: Vec<String> = arenaplan_syntax::kernels::RUST_KERNELS
        .iter()
        .map(|op| format!("`{op}`"))
        .collect();
    out.push_str(&format!(
        "| arenaplan-kernels (Rust), {} | {} |\n",
        rust.len(),
        rust.join(", ")
    ));
    out
}

#[test]
fn the_readme_lists_every_bound_operator() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime-c/kernels/executorch/README.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let start = text.find("-->\n").map(|i| i + 4).unwrap();
    let start = text[..]
        .match_indices("rewrites it -->\n")
        .next()
        .map_or(start, |(i, m)| i + m.len());
    let end = text.find(BEGIN).unwrap();
    let want = rendered();
    if text[start..end] != want {
        if std::env::var_os("ARENAPLAN_WRITE_README").is_some() {
            std::fs::write(&path, format!("{}{}{}", &text[..start], want, &text[end..])).unwrap();
            return;
        }
        panic!(
            "runtime-c/kernels/executorch/README.md's operator list is not the signature table's: \
             rerun with ARENAPLAN_WRITE_README=1"
        );
    }
}
