//! TFLite kernel calls whose parameter constants a model wrote itself are checked at plan
//! time against their tensors, as the C kernels check them at each call: one test per rule,
//! each beside a call that passes (so the refusal is the rule's). The message names the
//! instruction, the operator and the dimension or operand.

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::pipeline::Pipeline;
use arenaplan_build::targets::Catalogue;

/// A tensor of the model: name, dtype, shape, and its data for a constant.
struct Tensor<'a> {
    name: &'a str,
    dtype: &'a str,
    shape: Vec<i64>,
    data: Option<Vec<u8>>,
}

fn tensor<'a>(name: &'a str, dtype: &'a str, shape: &[i64]) -> Tensor<'a> {
    Tensor {
        name,
        dtype,
        shape: shape.to_vec(),
        data: None,
    }
}

fn constant<'a>(name: &'a str, dtype: &'a str, shape: &[i64], data: Vec<u8>) -> Tensor<'a> {
    Tensor {
        data: Some(data),
        ..tensor(name, dtype, shape)
    }
}

/// An int32 constant of these words, the parameters of a call.
fn params(words: &[i32]) -> Tensor<'static> {
    let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    constant("p", "int32", &[words.len() as i64], bytes)
}

/// Plans a model of one `op` call on `inputs` (the first the model's input) to `y`, the
/// last tensor: the build's refusal, if any.
fn plan(op: &str, tensors: &[Tensor], inputs: &[&str]) -> Result<(), String> {
    let mut text = String::from("name = \"m\"\ninputs = [\"x\"]\noutputs = [\"y\"]\n");
    for t in tensors {
        text += &format!(
            "[[tensor]]\nname = \"{}\"\ndtype = \"{}\"\nshape = {:?}\n",
            t.name, t.dtype, t.shape
        );
        if let Some(data) = &t.data {
            text += &format!("constant = true\ndata = {data:?}\n");
        }
    }
    text += &format!(
        "[[instruction]]\nkind = \"kernel\"\nop = \"{op}\"\ninputs = {inputs:?}\noutputs = [\"y\"]\n"
    );
    let program =
        parse_toml_model(&SourceText::new("m.toml", &text), None).unwrap_or_else(|d| panic!("{d}"));
    let catalogue = Catalogue::builtin();
    Pipeline::new(catalogue.target("corstone-300").unwrap())
        .run(program)
        .map(drop)
        .map_err(|e| e.to_string())
}

/// ap_tflite_pool_params_t over one channel: stride and window `k` along both axes, the
/// input `input` and output `out` wide and high.
fn pool_words(k: i32, input: i32, out: i32, pad: i32) -> Vec<i32> {
    vec![
        k, k, pad, pad, -128, 127, 1, input, input, 1, k, k, out, out,
    ]
}

#[test]
fn a_pooling_output_that_does_not_follow_is_refused_naming_the_axis() {
    let call = |out: i32, pad: i32| {
        plan(
            "tflite:MAX_POOL_2D",
            &[
                tensor("x", "int8", &[1, 4, 4, 1]),
                params(&pool_words(2, 4, out, pad)),
                tensor("y", "int8", &[1, out.into(), out.into(), 1]),
            ],
            &["x", "p"],
        )
    };
    call(2, 0).unwrap();
    assert_eq!(
        call(4, 0).unwrap_err(),
        "instruction 0: `tflite:MAX_POOL_2D`: height: an output of 4 with padding 0 does not follow from an input of 4, a filter of 2, stride 2 and dilation 1: TFLite derives 2 with padding 0 (SAME) or 2 with padding 0 (VALID); correct the call's parameter constant or its tensors' shapes"
    );
    // SAME's output with padding it does not have.
    assert!(call(2, 1)
        .unwrap_err()
        .contains("height: an output of 2 with padding 1"));
}

#[test]
fn a_tensor_of_other_bytes_than_the_parameters_give_is_refused() {
    let err = plan(
        "tflite:MAX_POOL_2D",
        &[
            tensor("x", "int8", &[1, 4, 4, 2]),
            params(&pool_words(2, 4, 2, 0)),
            tensor("y", "int8", &[1, 2, 2, 1]),
        ],
        &["x", "p"],
    )
    .unwrap_err();
    assert!(
        err.contains("the input is 32 bytes, but the parameters give it 16 (1 x 4 x 4 x 1)"),
        "{err}"
    );
}

#[test]
fn a_slice_leaving_its_dimension_is_refused_naming_it() {
    let call = |first: i32, count: i32, step: i32| {
        let mut w = vec![1, 0, 0, 0, 0, first, 1, 1, 1, 1, count, 1, 1, 1, 1, step];
        w.extend([1, 1, 1, 1, 4]);
        plan(
            "tflite:STRIDED_SLICE",
            &[
                tensor("x", "int8", &[4]),
                constant("b", "int32", &[1], vec![0; 4]),
                params(&w),
                tensor("y", "int8", &[i64::from(count)]),
            ],
            &["x", "b", "b", "b", "p"],
        )
    };
    call(0, 2, 2).unwrap();
    let err = call(1, 4, 1).unwrap_err();
    assert!(
        err.contains("`tflite:STRIDED_SLICE`: dimension 4: 4 indices from 1 in steps of 1 leave its extent of 4 (the last is 4)"),
        "{err}"
    );
    assert!(call(0, 2, 0).unwrap_err().contains("dimension 4"));
}

#[test]
fn fully_connected_row_sums_of_another_size_are_refused() {
    let call = |sums: i64| {
        plan(
            "tflite:FULLY_CONNECTED",
            &[
                tensor("x", "int8", &[1, 2]),
                constant("w", "int8", &[2, 2], vec![1, 2, 3, 4]),
                constant("s", "int32", &[sums], vec![0; 4 * sums as usize]),
                params(&[0, 0, 0, 1 << 30, 1, -128, 127, 2]),
                tensor("y", "int8", &[1, 2]),
            ],
            &["x", "w", "s", "p"],
        )
    };
    call(2).unwrap();
    assert!(call(1).unwrap_err().contains(
        "`tflite:FULLY_CONNECTED`: the row sums is 4 bytes, but the parameters give it 8"
    ));
}

#[test]
fn concatenation_parts_of_other_sizes_are_refused() {
    let call = |second: i64| {
        plan(
            "tflite:CONCATENATION",
            &[
                tensor("x", "int8", &[2, 2]),
                constant("z", "int8", &[2, second], vec![0; 2 * second as usize]),
                params(&[2, 2, 2, 1]),
                tensor("y", "int8", &[2, 3]),
            ],
            &["x", "z", "p"],
        )
    };
    call(1).unwrap();
    assert!(call(2)
        .unwrap_err()
        .contains("`tflite:CONCATENATION`: the input 1 is 4 bytes, but the parameters give it 2"));
}

#[test]
fn a_pad_whose_tensors_are_not_its_extents_is_refused() {
    let call = |output: i64| {
        let mut w = vec![1, 0];
        w.extend([1, 0, 0].repeat(4));
        w.extend([2, 1, 1]);
        plan(
            "tflite:PAD",
            &[
                tensor("x", "int8", &[2]),
                constant("q", "int32", &[2], vec![0; 8]),
                params(&w),
                tensor("y", "int8", &[output]),
            ],
            &["x", "q", "p"],
        )
    };
    call(4).unwrap();
    assert!(call(3).unwrap_err().contains(
        "`tflite:PAD`: the output is 3 bytes, but the parameters give it 4 (1 x 1 x 1 x 1 x 4)"
    ));
}
