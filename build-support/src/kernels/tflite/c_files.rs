//! The C the runtime's TFLite kernels share with the build, rendered from the build's one
//! definition of each: the parameter layouts (`layouts.rs`) into
//! `runtime-c/include/arenaplan/tflite_params.h`, the kernel list (`registry.rs`) into the
//! declarations of `runtime-c/include/arenaplan/tflite_kernels.h` and the registry
//! `runtime-c/kernels/tflite/registry.c`. The files are committed (the runtime builds without
//! this crate); tests compare them with these renderings byte for byte.
//!
//! ```
//! use arenaplan_build::kernels::tflite::c_files;
//! assert!(c_files::registry().contains("&ap_kernel_tflite_3aFULLY__CONNECTED,"));
//! assert!(c_files::params_header().contains("} ap_tflite_conv_params_t;"));
//! ```

use super::layout::Layout;
use super::layouts;
use super::registry::Kernel;
use crate::c_writer::CWriter;

/// A renderer: the text of one file.
pub type Render = fn() -> String;

/// Where each file sits, from the runtime's folder, and how to render it.
pub const FILES: [(&str, Render); 3] = [
    ("include/arenaplan/tflite_params.h", params_header),
    ("include/arenaplan/tflite_kernels.h", kernels_header),
    ("kernels/tflite/registry.c", registry),
];

/// The command that refreshes them, for the tests' messages.
pub const REFRESH: &str =
    "ARENAPLAN_WRITE_TFLITE_C=1 cargo test -p arenaplan-build --lib kernels::tflite::c_files";

/// A comment of our own lines: `/* a` ` * b */`, or `/* a */` for one line.
fn block_comment(w: &mut CWriter, lines: &[&str]) {
    let last = lines.len().saturating_sub(1);
    for (i, line) in lines.iter().enumerate() {
        let open = if i == 0 { "/*" } else { " *" };
        let close = if i == last { " */" } else { "" };
        w.line(format!("{open} {line}{close}"));
    }
}

/// The opening comment of a generated file: what it holds and where it comes from.
fn banner(w: &mut CWriter, what: &[&str], source: &str) {
    let mut lines = what.to_vec();
    let generated = format!("GENERATED from {source}; a test fails when the two");
    let refresh = format!("  {REFRESH}");
    lines.extend([
        generated.as_str(),
        "differ. Refresh them with",
        refresh.as_str(),
    ]);
    block_comment(w, &lines);
}

/// One layout as a typedef'd struct, its fields' comments aligned.
fn layout(w: &mut CWriter, layout: &Layout) {
    block_comment(w, &layout.about);
    let width = layout
        .fields
        .iter()
        .filter(|f| !f.comment.is_empty())
        .map(|f| f.declaration.len() + 1)
        .max()
        .unwrap_or(0);
    w.line(format!("typedef struct {} {{", layout.c_name));
    for field in &layout.fields {
        let decl = format!("{};", field.declaration);
        match field.comment {
            "" => w.line(format!("    {decl}")),
            c => w.line(format!("    {decl:width$} /* {c} */")),
        };
    }
    w.line(format!("}} {}_t;", layout.c_name));
}

/// The text of `include/arenaplan/tflite_params.h`.
pub fn params_header() -> String {
    let mut w = CWriter::without_banner();
    banner(
        &mut w,
        &[
            "The parameter layouts of the runtime's TFLite kernels: the constant each kernel reads",
            "last among its inputs, int32 little-endian, field by field, as the build computes it",
            "from the model (as TFLite Micro computes it when it prepares the operator).",
        ],
        "build-support/src/kernels/tflite/layouts.rs",
    );
    w.guarded("ARENAPLAN_TFLITE_PARAMS_H", |w| {
        w.blank().line("#include <stdint.h>");
        for l in layouts::all() {
            w.blank();
            layout(w, &l);
        }
        w.blank();
    });
    w.finish()
}

/// The registry's array.
const REGISTRY: &str = "ap_tflite_kernels";
/// The registry's length, a macro.
const COUNT: &str = "AP_TFLITE_KERNEL_COUNT";

/// The text of `include/arenaplan/tflite_kernels.h`.
pub fn kernels_header() -> String {
    let mut w = CWriter::without_banner();
    banner(
        &mut w,
        &[
            "The runtime's TFLite kernels, under the names programs use (`tflite:FULLY_CONNECTED`:",
            "the symbol rule makes `:` `_3a` and `_` `__`), and their registry.",
        ],
        "build-support/src/kernels/tflite/registry.rs",
    );
    w.guarded("ARENAPLAN_TFLITE_KERNELS_H", |w| {
        w.blank().include("arenaplan/runtime.h").blank();
        w.extern_c(|w| {
            for &k in Kernel::ALL {
                let about: Vec<&str> = k.about().iter().map(|l| l.trim_start()).collect();
                if !about.is_empty() {
                    block_comment(w, &about);
                }
                w.line(format!("extern const ap_kernel_t {};", k.c_symbol()));
            }
            w.blank();
            block_comment(
                w,
                &[
                    "Every kernel above, in this order: what a runner adds to its kernel list",
                    "(arenaplan::tflite_kernels() reads it). Defined only in builds with CMSIS-NN.",
                ],
            );
            w.define_unsigned(COUNT, Kernel::ALL.len());
            w.line(format!(
                "extern const ap_kernel_t *const {REGISTRY}[{COUNT}];"
            ));
        });
        w.blank();
    });
    w.finish()
}

/// The text of `kernels/tflite/registry.c`.
pub fn registry() -> String {
    let mut w = CWriter::without_banner();
    banner(
        &mut w,
        &["The registry of the runtime's TFLite kernels (declared in arenaplan/tflite_kernels.h)."],
        "build-support/src/kernels/tflite/registry.rs",
    );
    w.blank().include("arenaplan/tflite.h").blank();
    w.array(
        format!("const ap_kernel_t *const {REGISTRY}[{COUNT}]"),
        Kernel::ALL.iter().map(|k| format!("&{}", k.c_symbol())),
    );
    w.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The C kernels and the registry are compiled from the committed files: they must say
    /// what the layouts and the list say.
    #[test]
    fn the_c_files_are_rendered_from_the_layouts_and_the_list() {
        let runtime = concat!(env!("CARGO_MANIFEST_DIR"), "/../runtime-c/");
        let write = std::env::var_os("ARENAPLAN_WRITE_TFLITE_C").is_some();
        for (file, render) in FILES {
            let path = format!("{runtime}{file}");
            if write {
                std::fs::write(&path, render()).unwrap();
            }
            let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                on_disk == render(),
                "{path} differs from its definition in build-support/src/kernels/tflite/; \
                 regenerate it: {REFRESH}"
            );
        }
    }

    #[test]
    fn no_comment_of_the_definitions_ends_early() {
        for l in layouts::all() {
            let texts = l.about.iter().chain(l.fields.iter().map(|f| &f.comment));
            for text in texts {
                assert!(!text.contains("*/") && !text.contains("/*"), "{text}");
            }
        }
        for k in Kernel::ALL {
            for text in k.about() {
                assert!(!text.contains("*/") && !text.contains("/*"), "{text}");
            }
        }
    }
}
