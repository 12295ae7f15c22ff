//! The C header names what a C programmer needs per input and output: an index constant named
//! after the tensor (the name rule's escape where the name is no identifier), its bytes, its
//! element type and, where the model quantizes it, its scale and zero point. Checked by a C
//! compiler on a quantized corpus model and on names that are no identifiers.

mod common;

use std::path::Path;

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::emit::{Emit, Symbols};
use arenaplan_build::import::{load_tflite, parse_toml_model};
use arenaplan_build::targets::Catalogue;

/// Writes `files` into a fresh folder, compiles `main_c` against `NAME.h` as a C integrator
/// does, runs it and returns what it printed.
fn compile_header(files: &[(String, Vec<u8>)], tag: &str, main_c: &str) -> String {
    compile_with(files, tag, &[], main_c)
}

/// [`compile_header`] with generated `sources` compiled in too (`NAME.c`, `NAME_program.c`).
fn compile_with(files: &[(String, Vec<u8>)], tag: &str, sources: &[&str], main_c: &str) -> String {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("header-names-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    common::run_generated_c(&dir, sources, main_c)
}

#[test]
fn a_quantized_models_header_gives_each_input_and_output_its_numbers() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let model = corpus.join("vela/u55-128-shared-sram/tflm__person_detect_vela.tflite");
    let program = load_tflite(&model).unwrap();
    let input = program.values[program.inputs[0]].clone();
    let output = program.values[program.outputs[0]].clone();
    let (in_scale, in_zero) = input.quant.as_ref().unwrap().per_tensor().unwrap();
    let (out_scale, out_zero) = output.quant.as_ref().unwrap().per_tensor().unwrap();
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (program, plan) = common::planned(target, program).unwrap();
    let files = common::emit_files(&program, &plan, target, "pd", Symbols::C, Emit::ALL);
    let header = common::text(&files, "pd.h");
    assert!(header.contains("#define PD_INPUT0_TYPE int8_t"), "{header}");
    let main_c = format!(
        r#"#include <stdio.h>
#include "pd.h"
ARENAPLAN_CHECK(input_bytes, PD_INPUT0_SIZE == {in_bytes}u);
ARENAPLAN_CHECK(output_bytes, PD_OUTPUT0_SIZE == {out_bytes}u);
ARENAPLAN_CHECK(zero_points, PD_INPUT0_ZERO_POINT == {in_zero} && PD_OUTPUT0_ZERO_POINT == {out_zero});
int main(void) {{
    PD_INPUT0_TYPE q = (PD_INPUT0_TYPE)PD_INPUT0_ZERO_POINT;
    float in = PD_INPUT0_SCALE, out = PD_OUTPUT0_SCALE;
    printf("%s %a %a %d\n", PD_INPUT0_DTYPE, (double)in, (double)out, (int)q);
    return 0;
}}
"#,
        in_bytes = input.bytes,
        out_bytes = output.bytes,
    );
    let printed = compile_header(&files, "person-detect", &main_c);
    // The C compiler reads back exactly the f32 the model holds.
    assert_eq!(
        printed.trim(),
        format!("int8 {} {} {in_zero}", hex(in_scale), hex(out_scale))
    );
}

/// `printf("%a")` of `(double)x`, as glibc prints a normal number: `0x1.8p-1`.
fn hex(x: f32) -> String {
    let bits = f64::from(x).to_bits();
    let exponent = ((bits >> 52) & 0x7FF) as i64 - 1023;
    let mut mantissa = format!("{:013x}", bits & ((1 << 52) - 1));
    while mantissa.ends_with('0') {
        mantissa.pop();
    }
    let dot = if mantissa.is_empty() { "" } else { "." };
    format!("0x1{dot}{mantissa}p{exponent:+}")
}

#[test]
fn names_that_are_no_identifiers_are_escaped_by_the_name_rule() {
    // `in.put` is no identifier: escaped (`in_2eput`); `in_put` is one: upper-cased, name by
    // name, as the README states the rule.
    let text = r#"
name = "m"
inputs = ["in.put", "in_put"]
outputs = ["y"]
[[tensor]]
name = "in.put"
dtype = "int16"
shape = [4]
[[tensor]]
name = "in_put"
dtype = "int16"
shape = [4]
[[tensor]]
name = "y"
dtype = "float32"
shape = [2]
[[instruction]]
kind = "kernel"
op = "aten::add.out"
inputs = ["in.put", "in_put"]
outputs = ["y"]
"#;
    let program = parse_toml_model(&SourceText::new("m.toml", text), None).unwrap();
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (program, plan) = common::planned(target, program).unwrap();
    let files = common::emit_files(&program, &plan, target, "m", Symbols::C, Emit::ALL);
    let main_c = r#"#include <stdio.h>
#include "m.h"
ARENAPLAN_CHECK(first, M_INPUT_in_2eput_INDEX == 0u);
ARENAPLAN_CHECK(second, M_INPUT_IN_PUT_INDEX == 1u);
ARENAPLAN_CHECK(output, M_OUTPUT_Y_INDEX == 0u && M_OUTPUT0_SIZE == 8u);
int main(void) {
    M_OUTPUT0_TYPE y = 0.5f;
    printf("%s %s %u\n", M_INPUT1_DTYPE, M_OUTPUT0_DTYPE, (unsigned)(sizeof y));
    return 0;
}
"#;
    assert_eq!(
        compile_header(&files, "escaped", main_c).trim(),
        "int16 float32 4"
    );
}

#[test]
fn plain_names_are_the_rust_constants_upper_cased() {
    let text = common::one_call("TestNpu", "{ size = 64, pool = \"npu_scratch\" }");
    let program = parse_toml_model(&SourceText::new("m.toml", &text), None).unwrap();
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (program, plan) = common::planned(target, program).unwrap();
    let files = common::emit_files(&program, &plan, target, "m", Symbols::C, Emit::ALL);
    let header = common::text(&files, "m.h");
    assert!(header.contains("#define M_INPUT_X_INDEX 0u"), "{header}");
    assert!(header.contains("#define M_OUTPUT_Y_INDEX 0u"), "{header}");
    // No quantization in the model: no scale or zero point.
    assert!(!header.contains("_SCALE"), "{header}");
}

/// The README's rule, applied here as a reader applies it: "the tensor's name upper-cased, or
/// escaped by the symbol rule where it is no identifier".
fn readme_rule(name: &str) -> String {
    let identifier = name.len() <= 40
        && name.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if identifier {
        name.to_ascii_uppercase()
    } else {
        arenaplan_syntax::names::symbol(name)
    }
}

#[test]
fn mixed_case_names_follow_the_readmes_rule_with_dims_and_typed_access() {
    // TensorFlow's names: an output `Identity`, an input that is no identifier.
    let (input, output) = ("serving_default_x:0", "Identity");
    let text = format!(
        r#"
name = "kws"
inputs = ["{input}"]
outputs = ["{output}"]
[[tensor]]
name = "{input}"
dtype = "int8"
shape = [1, 49, 10]
[[tensor]]
name = "{output}"
dtype = "int8"
shape = [1, 49, 10]
[[instruction]]
kind = "kernel"
op = "copy"
inputs = ["{input}"]
outputs = ["{output}"]
"#
    );
    let program = parse_toml_model(&SourceText::new("kws.toml", &text), None).unwrap();
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (program, plan) = common::planned(target, program).unwrap();
    let files = common::emit_files(&program, &plan, target, "kws", Symbols::C, Emit::ALL);
    let (i, o) = (readme_rule(input), readme_rule(output));
    assert_eq!(o, "IDENTITY");
    // Typed pointers: an `int8_t *` where the tensor is int8 (-Werror: a `uint8_t *` would
    // not convert without a warning), the dimensions as an initializer.
    let main_c = format!(
        r#"#include <stdio.h>
#include <string.h>
#include "kws.h"
static ap_status_t copy(ap_context_t *ctx, ap_buffer_t *args, size_t n, void *user) {{
    (void)ctx; (void)n; (void)user;
    memcpy(args[1].data, args[0].data, args[1].size);
    return AP_OK;
}}
const ap_kernel_t ap_kernel_copy = {{"copy", copy, NULL}};
ARENAPLAN_CHECK(by_name, KWS_INPUT_{i}_INDEX == 0u && KWS_OUTPUT_{o}_INDEX == 0u);
ARENAPLAN_CHECK(rank, KWS_INPUT_{i}_RANK == 3u && KWS_OUTPUT0_RANK == 3u);
ARENAPLAN_CHECK(size, KWS_OUTPUT_{o}_SIZE == 490u);
int main(void) {{
    static const uint32_t dims[] = KWS_OUTPUT_{o}_DIMS;
    int8_t *in = KWS_INPUT_{i}_DATA();
    const int8_t *out = KWS_OUTPUT_{o}_DATA();
    printf("%s %u %u %u %d\n", KWS_OUTPUT_{o}_DTYPE, (unsigned)dims[0], (unsigned)dims[1],
           (unsigned)dims[2], in != 0 && out != 0 && (const uint8_t *)in == kws_input(0u, 0));
    return 0;
}}
"#
    );
    let printed = compile_with(&files, "readme-rule", &["kws.c", "kws_program.c"], &main_c);
    assert_eq!(printed.trim(), "int8 1 49 10 1");
}

/// An ExecuTorch program that takes and returns int8 records its I/O quantization only as
/// constant methods (`input0_scale`, `input0_zp`, …): the header gives `forward`'s input and
/// output the numbers ExecuTorch's runtime returned for them.
#[test]
fn an_executorch_programs_int8_io_has_the_scale_and_zero_point_its_constant_methods_give() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/exported/ethosu_u55_conv_int8_io");
    let scalar = |file: &str| -> [u8; 8] {
        let (header, data) = common::npy::read(&fixture.join(file));
        assert!(header.contains("'shape': ()"), "{file}: {header}");
        data.try_into().unwrap()
    };
    let in_scale = f64::from_le_bytes(scalar("0-input0_scale-0.npy")) as f32;
    let in_zero = i64::from_le_bytes(scalar("1-input0_zp-0.npy"));
    let out_scale = f64::from_le_bytes(scalar("2-output0_scale-0.npy")) as f32;
    let out_zero = i64::from_le_bytes(scalar("3-output0_zp-0.npy"));

    let program = arenaplan_build::import::load_pte(&fixture.join("program.pte")).unwrap();
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let (program, plan) = common::planned(target, program).unwrap();
    let files = common::emit_files(&program, &plan, target, "io", Symbols::C, Emit::ALL);
    let header = common::text(&files, "io.h");
    assert!(header.contains("#define IO_INPUT0_TYPE int8_t"), "{header}");
    let main_c = r#"#include <stdio.h>
#include "io.h"
int main(void) {
    printf("%a %d %a %d\n", (double)IO_INPUT0_SCALE, (int)IO_INPUT0_ZERO_POINT,
           (double)IO_OUTPUT0_SCALE, (int)IO_OUTPUT0_ZERO_POINT);
    return 0;
}
"#;
    let printed = compile_header(&files, "int8-io", main_c);
    assert_eq!(
        printed.trim(),
        format!("{} {in_zero} {} {out_zero}", hex(in_scale), hex(out_scale))
    );
}
