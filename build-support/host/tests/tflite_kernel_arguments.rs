//! The runtime's TFLite kernels treat their parameters and buffer sizes as untrusted, as the
//! runtime treats its tables: a call whose parameters would take a kernel outside its buffers,
//! or into arithmetic C leaves undefined, is refused with `AP_ERR_ARGUMENT_MISMATCH` before a byte
//! is read. One test per rule, each beside a call that passes (so the refusal is the rule's).

use arenaplan::sys::{self, ap_kernel, ap_status};

#[path = "support/kernel_call.rs"]
mod kernel_call;
use kernel_call::{call_kernel, call_kernel_counted, call_kernel_sized, words};

/// Runs `kernel` on `ninputs` inputs and the rest as outputs, each buffer as given.
fn call(kernel: ap_kernel, ninputs: u32, buffers: &mut [Vec<u8>]) -> ap_status {
    let mut boxed: Vec<Box<[u8]>> = buffers
        .iter()
        .map(|b| b.clone().into_boxed_slice())
        .collect();
    let status = call_kernel(kernel, ninputs, &mut boxed, false);
    for (b, out) in buffers.iter_mut().zip(boxed) {
        *b = out.into_vec();
    }
    status
}

fn kernels_built() -> bool {
    arenaplan::tflite_kernels().next().is_some()
}

#[test]
fn a_slice_step_of_zero_is_refused() {
    if !kernels_built() {
        return;
    }
    let run = |count: i32, step: i32, out: usize| slice(0, count, step, out);
    assert_eq!(run(2, 2, 2), (ap_status::AP_OK, vec![1, 3]));
    // Step 0 would read index 0 count times: any count, any output size.
    assert_eq!(run(3, 0, 3).0, ap_status::AP_ERR_ARGUMENT_MISMATCH);
}

#[test]
fn a_product_that_overflows_matches_no_buffer_not_an_empty_one() {
    if !kernels_built() {
        return;
    }
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aINT__BINARY };
    // ADD of int32, extents multiplying past any size_t: the empty output must not pass.
    let params = |extent: [i32; 5]| {
        let mut w = vec![0, 4, i32::MIN, i32::MAX];
        w.extend(extent);
        w.extend([0, 0, 0, 0, 1]); // a walks its elements
        w.extend([0; 5]); // b broadcasts
        words(&w)
    };
    let mut ok = vec![
        words(&[1, 2]),
        words(&[10]),
        params([1, 1, 1, 1, 2]),
        vec![0; 8],
    ];
    assert_eq!(call(kernel, 3, &mut ok), ap_status::AP_OK);
    assert_eq!(ok[3], words(&[11, 12]));
    let mut huge = vec![words(&[1]), words(&[1]), params([65535; 5]), Vec::new()];
    assert_eq!(
        call(kernel, 3, &mut huge),
        ap_status::AP_ERR_ARGUMENT_MISMATCH
    );
    // Elements that fit a size_t whose bytes do not (65535^4 int32), every operand broadcast:
    // an empty output would match a byte count that wrapped to 0, and take 2^64 writes.
    let mut w = vec![0, 4, i32::MIN, i32::MAX];
    w.extend([65535, 65535, 65535, 65535, 1]);
    w.extend([0; 10]);
    let mut wrapped = vec![words(&[1]), words(&[1]), words(&w), Vec::new()];
    assert_eq!(
        call(kernel, 3, &mut wrapped),
        ap_status::AP_ERR_ARGUMENT_MISMATCH
    );
}

#[test]
fn a_requantization_shift_out_of_range_is_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aRELU };
    // int8 RELU requantizing by 1/2 (multiplier 2^30, shift 0), then by a shift past 30.
    let params = |shift: i32| words(&[1, 1, 0, 0, 1 << 30, shift, -128, 127, 2]);
    let mut ok = vec![vec![8, 0xF8], params(0), vec![0; 2]];
    assert_eq!(call(kernel, 2, &mut ok), ap_status::AP_OK);
    assert_eq!(ok[2], vec![4, 0xFC]);
    let mut bad = vec![vec![8, 0xF8], params(31), vec![0; 2]];
    assert_eq!(
        call(kernel, 2, &mut bad),
        ap_status::AP_ERR_ARGUMENT_MISMATCH
    );
}

#[test]
fn a_convolution_dilation_of_zero_is_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aCONV__2D__S16 };
    // A 1x1 input and filter, one channel: the output is the input times the weight.
    let params = |dilation: i32| {
        let mut w = vec![0, 0, 1, 1, 1, 0, 0, dilation, dilation, -32768, 32767];
        w.extend([1, 1, 1, 1, 1, 1, 1, 1, 1]);
        w.extend([1 << 30, 1]); // x 1, then the shift
        words(&w)
    };
    let input = 100i16.to_le_bytes().to_vec();
    let mut ok = vec![input.clone(), vec![3], vec![0; 8], params(1), vec![0; 2]];
    assert_eq!(call(kernel, 4, &mut ok), ap_status::AP_OK);
    assert_eq!(i16::from_le_bytes([ok[4][0], ok[4][1]]), 300);
    let mut bad = vec![input, vec![3], vec![0; 8], params(0), vec![0; 2]];
    assert_eq!(
        call(kernel, 4, &mut bad),
        ap_status::AP_ERR_ARGUMENT_MISMATCH
    );
}

#[test]
fn a_convolution_geometry_past_16_bits_is_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aCONV__2D };
    // A 1x1 input, filter and output: any stride fits the window rule, but CMSIS-NN's index
    // arithmetic holds strides, dilations and paddings in 16 bits.
    let one = |stride: i32| Axis { stride, ..ONE };
    for (stride, expected) in [
        (65535, ap_status::AP_OK),
        (65536, ap_status::AP_ERR_ARGUMENT_MISMATCH),
    ] {
        let mut b = vec![
            vec![1],
            vec![1],
            vec![0; 4],
            conv_params(one(stride), ONE),
            vec![0],
        ];
        assert_eq!(call(kernel, 4, &mut b), expected, "stride {stride}");
    }
}

/// One axis of a window: input, filter, stride, padding before the first element, output.
#[derive(Clone, Copy, Debug)]
struct Axis {
    input: i32,
    filter: i32,
    stride: i32,
    pad: i32,
    output: i32,
}

/// The axis that always follows: one element in, one out.
const ONE: Axis = Axis {
    input: 1,
    filter: 1,
    stride: 1,
    pad: 0,
    output: 1,
};

/// (input, filter, stride, pad, output) along one axis, and whether it follows from its input
/// as TFLite derives it (SAME or VALID).
const WINDOWS: [(Axis, bool); 8] = {
    const fn axis(input: i32, filter: i32, stride: i32, pad: i32, output: i32) -> Axis {
        Axis {
            input,
            filter,
            stride,
            pad,
            output,
        }
    }
    [
        (axis(64, 1, 1, 0, 64), true),
        // A 1-wide output of a 64-wide input: CMSIS-NN's 1x1 kernel writes 64 of them.
        (axis(64, 1, 1, 0, 1), false),
        (axis(64, 1, 2, 0, 32), true),
        // Stride 2 with the stride-1 output: the kernel reads past the input.
        (axis(64, 1, 2, 0, 64), false),
        (axis(8, 3, 1, 0, 6), true),
        (axis(8, 3, 1, 1, 8), true),
        // As wide as SAME's output without its padding, and SAME's output with too much.
        (axis(8, 3, 1, 0, 8), false),
        (axis(8, 3, 1, 2, 8), false),
    ]
};

/// Each window of [`WINDOWS`] along the height (the width [`ONE`]), then along the width: a
/// check of one axis is tested on its own.
fn windows_by_axis() -> impl Iterator<Item = (Axis, Axis, bool)> {
    let along_h = WINDOWS.iter().map(|&(a, follows)| (a, ONE, follows));
    let along_w = WINDOWS.iter().map(|&(a, follows)| (ONE, a, follows));
    along_h.chain(along_w)
}

/// CONV_2D or DEPTHWISE_CONV_2D (int8) parameters: one input channel, the window `h` and `w`
/// along each axis, every output channel x 1.
fn conv_params(h: Axis, w: Axis) -> Vec<u8> {
    let mut p = vec![0, 0, 1, w.stride, h.stride, w.pad, h.pad, 1, 1, -128, 127];
    p.extend([
        1, h.input, w.input, 1, h.filter, w.filter, h.output, w.output, 1,
    ]);
    p.extend([1 << 30, 1]);
    words(&p)
}

#[test]
fn a_convolution_output_that_does_not_follow_from_its_input_is_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: const C statics.
    let (conv, depthwise) = unsafe {
        (
            sys::ap_kernel_tflite_3aCONV__2D,
            sys::ap_kernel_tflite_3aDEPTHWISE__CONV__2D,
        )
    };
    for (kernel, name) in [(conv, "CONV_2D"), (depthwise, "DEPTHWISE_CONV_2D")] {
        for (h, w, follows) in windows_by_axis() {
            let bytes = |a: i32, b: i32| vec![1u8; (a * b) as usize];
            let mut b = vec![
                bytes(h.input, w.input),
                bytes(h.filter, w.filter),
                vec![0; 4],
                conv_params(h, w),
                bytes(h.output, w.output),
            ];
            let expected = if follows {
                ap_status::AP_OK
            } else {
                ap_status::AP_ERR_ARGUMENT_MISMATCH
            };
            assert_eq!(
                call(kernel, 4, &mut b),
                expected,
                "{name}: height {h:?}, width {w:?}"
            );
        }
    }
}

#[test]
fn a_pooling_output_that_does_not_follow_from_its_input_is_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aMAX__POOL__2D };
    let params = |out: i32| words(&[2, 2, 0, 0, -128, 127, 1, 4, 4, 1, 2, 2, out, out]);
    let mut ok = vec![(1..=16).collect::<Vec<u8>>(), params(2), vec![0; 4]];
    assert_eq!(call(kernel, 2, &mut ok), ap_status::AP_OK);
    assert_eq!(ok[2], vec![6, 8, 14, 16]);
    // Each axis on its own, average pooling too.
    // SAFETY: a const C static.
    let average = unsafe { sys::ap_kernel_tflite_3aAVERAGE__POOL__2D };
    for (kernel, name) in [(kernel, "MAX_POOL_2D"), (average, "AVERAGE_POOL_2D")] {
        for (h, w, follows) in windows_by_axis() {
            let p = [
                w.stride, h.stride, w.pad, h.pad, -128, 127, 1, h.input, w.input, 1, h.filter,
                w.filter, h.output, w.output,
            ];
            let bytes = |a: i32, b: i32| vec![1u8; (a * b) as usize];
            let mut b = vec![
                bytes(h.input, w.input),
                words(&p),
                bytes(h.output, w.output),
            ];
            let expected = if follows {
                ap_status::AP_OK
            } else {
                ap_status::AP_ERR_ARGUMENT_MISMATCH
            };
            assert_eq!(
                call(kernel, 2, &mut b),
                expected,
                "{name}: height {h:?}, width {w:?}"
            );
        }
    }
}

/// STRIDED_SLICE's parameters over one dimension of 4 (the other four of 1): width 1, then
/// first, count, step and extent.
fn slice_at(first: i32, count: i32, step: i32) -> Vec<u8> {
    let mut w = vec![1];
    w.extend([0, 0, 0, 0, first]);
    w.extend([1, 1, 1, 1, count]);
    w.extend([1, 1, 1, 1, step]);
    w.extend([1, 1, 1, 1, 4]);
    words(&w)
}

/// STRIDED_SLICE of [1 2 3 4] (`slice_at`'s parameters) into an output of `out` bytes: its
/// status and the output.
fn slice(first: i32, count: i32, step: i32, out: usize) -> (ap_status, Vec<u8>) {
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aSTRIDED__SLICE };
    let mut b = vec![
        vec![1, 2, 3, 4],
        vec![0; 4],
        vec![0; 4],
        vec![0; 4],
        slice_at(first, count, step),
        vec![0; out],
    ];
    (call(kernel, 5, &mut b), b.pop().unwrap())
}

#[test]
fn a_slice_whose_last_index_leaves_its_dimension_is_refused() {
    if !kernels_built() {
        return;
    }
    let run = |first: i32, count: i32, step: i32| {
        slice(first, count, step, usize::try_from(count).unwrap())
    };
    assert_eq!(run(0, 4, 1), (ap_status::AP_OK, vec![1, 2, 3, 4]));
    assert_eq!(run(3, 4, -1), (ap_status::AP_OK, vec![4, 3, 2, 1]));
    // The first index is inside, the last one is not: one past the end, or before the start.
    for (first, count, step) in [(0, 5, 1), (0, 3, 2), (1, 4, 1), (2, 4, -1)] {
        assert_eq!(
            run(first, count, step).0,
            ap_status::AP_ERR_ARGUMENT_MISMATCH,
            "first {first}, count {count}, step {step}"
        );
    }
    // The first index outside, the last one too or inside.
    for (first, count, step) in [(4, 1, 1), (-1, 1, 1), (-1, 2, 1), (4, 2, -1)] {
        assert_eq!(
            run(first, count, step).0,
            ap_status::AP_ERR_ARGUMENT_MISMATCH,
            "first {first}, count {count}, step {step}"
        );
    }
}

#[test]
fn fully_connected_row_sums_of_another_size_are_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aFULLY__CONNECTED };
    // int8, one batch of 2 into 1 output: 1*3 + 2*4 = 11, rescaled by 1 (2^30 x 2^1 / 2^31).
    let params = words(&[0, 0, 0, 1 << 30, 1, -128, 127, 1]);
    let run = |sums: Vec<u8>| {
        let mut b = vec![vec![1, 2], vec![3, 4], sums, params.clone(), vec![0]];
        (call(kernel, 4, &mut b), b.pop().unwrap())
    };
    assert_eq!(run(words(&[7])), (ap_status::AP_OK, vec![11]));
    // The Helium kernel reads output_depth int32 sums: fewer, more, or none are refused.
    for sums in [vec![], vec![0; 3], words(&[7, 7])] {
        assert_eq!(
            run(sums.clone()).0,
            ap_status::AP_ERR_ARGUMENT_MISMATCH,
            "{} bytes of sums",
            sums.len()
        );
    }
}

#[test]
fn an_empty_input_of_a_concatenation_is_skipped() {
    if !kernels_built() {
        return;
    }
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aCONCATENATION };
    // Two rows: [1 2] ++ [] ++ [3] = [1 2 3], then [4 5] ++ [] ++ [6].
    let mut b: Vec<Box<[u8]>> = [
        vec![1, 2, 4, 5],
        vec![],
        vec![3, 6],
        words(&[3, 2, 2, 0, 1]),
        vec![0; 6],
    ]
    .map(Vec::into_boxed_slice)
    .into();
    assert_eq!(call_kernel(kernel, 4, &mut b, true), ap_status::AP_OK);
    assert_eq!(&*b[4], [1, 2, 3, 4, 5, 6]);
}

/// A call its kernel runs: (name, kernel, inputs, buffers, whether a scratch may follow).
type GoodCall = (&'static str, ap_kernel, u32, Vec<Vec<u8>>, bool);

/// One call of each kind of argument list (fixed, optional scratch, a variable number of
/// inputs) that its kernel runs.
fn good_calls() -> Vec<GoodCall> {
    // SAFETY: const C statics.
    let k = |name: &'static str| unsafe {
        match name {
            "RELU" => sys::ap_kernel_tflite_3aRELU,
            "STRIDED_SLICE" => sys::ap_kernel_tflite_3aSTRIDED__SLICE,
            "FULLY_CONNECTED" => sys::ap_kernel_tflite_3aFULLY__CONNECTED,
            "CONCATENATION" => sys::ap_kernel_tflite_3aCONCATENATION,
            "CONV_2D" => sys::ap_kernel_tflite_3aCONV__2D,
            _ => sys::ap_kernel_tflite_3aMAX__POOL__2D,
        }
    };
    let relu = words(&[1, 1, 0, 0, 1 << 30, 0, -128, 127, 2]);
    let fc = words(&[0, 0, 0, 1 << 30, 1, -128, 127, 1]);
    let pool = words(&[2, 2, 0, 0, -128, 127, 1, 4, 4, 1, 2, 2, 2, 2]);
    vec![
        (
            "RELU",
            k("RELU"),
            2,
            vec![vec![8, 0xF8], relu, vec![0; 2]],
            false,
        ),
        (
            "STRIDED_SLICE",
            k("STRIDED_SLICE"),
            5,
            vec![
                vec![1, 2, 3, 4],
                vec![0; 4],
                vec![0; 4],
                vec![0; 4],
                slice_at(0, 4, 1),
                vec![0; 4],
            ],
            false,
        ),
        (
            "FULLY_CONNECTED",
            k("FULLY_CONNECTED"),
            4,
            vec![vec![1, 2], vec![3, 4], words(&[7]), fc, vec![0]],
            false,
        ),
        (
            "CONCATENATION",
            k("CONCATENATION"),
            3,
            vec![
                vec![1, 2, 4, 5],
                vec![3, 6],
                words(&[2, 2, 2, 1]),
                vec![0; 6],
            ],
            false,
        ),
        (
            "CONV_2D",
            k("CONV_2D"),
            4,
            vec![vec![1], vec![1], vec![0; 4], conv_params(ONE, ONE), vec![0]],
            true,
        ),
        (
            "MAX_POOL_2D",
            k("MAX_POOL_2D"),
            2,
            vec![(1..=16).collect(), pool, vec![0; 4]],
            true,
        ),
    ]
}

/// A table that states other counts than the list its call holds (one argument fewer, an
/// input counted as an output, arguments past the outputs and the scratch) is refused before
/// the kernel reads an argument by position.
#[test]
fn an_argument_list_other_than_the_kernel_reads_is_refused() {
    if !kernels_built() {
        return;
    }
    for (name, kernel, ins, buffers, scratch) in good_calls() {
        let outs = buffers.len() as u32 - ins;
        let n = buffers.len();
        // Two spare buffers after the call's own, so no count below reads past the list.
        let mut b: Vec<Box<[u8]>> = buffers
            .into_iter()
            .chain([vec![0u8; 64], vec![0u8; 64]])
            .map(Vec::into_boxed_slice)
            .collect();
        let mut status = |counts| call_kernel_counted(kernel, counts, &mut b, false);
        assert_eq!(status((ins, outs, n)), ap_status::AP_OK, "{name}");
        let mismatch = ap_status::AP_ERR_ARGUMENT_MISMATCH;
        assert_eq!(
            status((ins, outs, n - 1)),
            mismatch,
            "{name}: one argument fewer"
        );
        assert_eq!(
            status((ins - 1, outs + 1, n)),
            mismatch,
            "{name}: an input as an output"
        );
        assert_eq!(
            status((ins + 1, outs, n)),
            mismatch,
            "{name}: one input past the list"
        );
        assert_eq!(
            status((ins, outs + 1, n + 1)),
            mismatch,
            "{name}: a second output"
        );
        let past = if scratch { n + 2 } else { n + 1 };
        assert_eq!(
            status((ins, outs, past)),
            mismatch,
            "{name}: {} after the outputs",
            past - n
        );
    }
}

/// A call its kernel runs: (name, kernel, inputs, buffers, the operands whose size the
/// parameters give, the output it computes where the test states it).
type SizedCall = (
    &'static str,
    ap_kernel,
    u32,
    Vec<Vec<u8>>,
    &'static [usize],
    Option<Vec<u8>>,
);

/// Every tensor whose bytes a kernel's parameters determine, one byte short or one byte
/// long, is refused: the kernel would read past an input or write past an output. (The
/// window and slice tests hold the geometry; this, each operand's size.)
#[test]
fn a_tensor_of_other_bytes_than_the_parameters_give_is_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: const C statics.
    let (pad, concatenation, transpose_conv, fully_connected) = unsafe {
        (
            sys::ap_kernel_tflite_3aPAD,
            sys::ap_kernel_tflite_3aCONCATENATION,
            sys::ap_kernel_tflite_3aTRANSPOSE__CONV,
            sys::ap_kernel_tflite_3aFULLY__CONNECTED,
        )
    };
    // PAD of width 1: [a b] padded by one on each side of its last dimension.
    let mut pad_params = vec![1, 0];
    pad_params.extend([1, 0, 0].repeat(4));
    pad_params.extend([2, 1, 1]);
    // TRANSPOSE_CONV of 1x1 everything: the ap_tflite_conv_params_t, a multiplier, a shift.
    let mut tc_params = vec![
        0, 0, 1, 1, 1, 0, 0, 1, 1, -128, 127, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    ];
    tc_params.extend([1 << 30, 1]);
    // SAFETY: const C statics.
    let k = |op: &str| unsafe {
        match op {
            "QUANTIZE" => sys::ap_kernel_tflite_3aQUANTIZE,
            "DEQUANTIZE" => sys::ap_kernel_tflite_3aDEQUANTIZE,
            "CAST" => sys::ap_kernel_tflite_3aCAST,
            "RELU" => sys::ap_kernel_tflite_3aRELU,
            "MEAN" => sys::ap_kernel_tflite_3aMEAN,
            "SOFTMAX" => sys::ap_kernel_tflite_3aSOFTMAX,
            "ADD" => sys::ap_kernel_tflite_3aADD,
            "SignalWindow" => sys::ap_kernel_tflite_3aSignalWindow,
            "SignalEnergy" => sys::ap_kernel_tflite_3aSignalEnergy,
            "INT_BINARY" => sys::ap_kernel_tflite_3aINT__BINARY,
            "SignalFilterBankSquareRoot" => sys::ap_kernel_tflite_3aSignalFilterBankSquareRoot,
            "SignalFftAutoScale" => sys::ap_kernel_tflite_3aSignalFftAutoScale,
            "SignalFilterBankLog" => sys::ap_kernel_tflite_3aSignalFilterBankLog,
            "SignalRfft" => sys::ap_kernel_tflite_3aSignalRfft,
            "CONV_2D" => sys::ap_kernel_tflite_3aCONV__2D,
            "DEPTHWISE_CONV_2D" => sys::ap_kernel_tflite_3aDEPTHWISE__CONV__2D,
            "MAX_POOL_2D" => sys::ap_kernel_tflite_3aMAX__POOL__2D,
            "STRIDED_SLICE" => sys::ap_kernel_tflite_3aSTRIDED__SLICE,
            "SignalFilterBank" => sys::ap_kernel_tflite_3aSignalFilterBank,
            "SignalPCAN" => sys::ap_kernel_tflite_3aSignalPCAN,
            "SignalFilterBankSpectralSubtraction" => {
                sys::ap_kernel_tflite_3aSignalFilterBankSpectralSubtraction
            }
            _ => sys::ap_kernel_tflite_3aMUL,
        }
    };
    let one = 1.0f32.to_bits() as i32;
    let calls: Vec<SizedCall> = vec![
        (
            "PAD",
            pad,
            3,
            vec![vec![5, 6], vec![0; 8], words(&pad_params), vec![9; 4]],
            &[0, 3],
            Some(vec![0, 5, 6, 0]),
        ),
        (
            "CONCATENATION",
            concatenation,
            3,
            vec![
                vec![1, 2, 4, 5],
                vec![3, 6],
                words(&[2, 2, 2, 1]),
                vec![0; 6],
            ],
            &[0, 1, 3],
            Some(vec![1, 2, 3, 4, 5, 6]),
        ),
        (
            "TRANSPOSE_CONV",
            transpose_conv,
            4,
            vec![
                words(&[1, 1, 1, 1]),
                vec![2],
                vec![3],
                words(&tc_params),
                vec![0],
            ],
            &[1, 2, 4],
            Some(vec![6]),
        ),
        (
            "FULLY_CONNECTED",
            fully_connected,
            4,
            vec![
                vec![1, 2],
                vec![3, 4],
                words(&[7]),
                words(&[0, 0, 0, 1 << 30, 1, -128, 127, 1]),
                vec![0],
            ],
            &[0, 1, 2],
            Some(vec![11]),
        ),
        // int8 to int8 at the same scale (x 2^30 x 2^1 / 2^31).
        (
            "QUANTIZE",
            k("QUANTIZE"),
            2,
            vec![
                vec![5, 250],
                words(&[0, 0, 1 << 30, 1, 1, 1, 0]),
                vec![0; 2],
            ],
            &[0, 2],
            Some(vec![5, 250]),
        ),
        (
            "DEQUANTIZE",
            k("DEQUANTIZE"),
            2,
            vec![vec![2], words(&[0, one, 1]), vec![0; 4]],
            &[0, 2],
            Some(2.0f32.to_le_bytes().to_vec()),
        ),
        // int8 to int32.
        (
            "CAST",
            k("CAST"),
            2,
            vec![vec![7], words(&[1, 3, 1]), vec![0; 4]],
            &[0, 2],
            Some(words(&[7])),
        ),
        (
            "RELU",
            k("RELU"),
            2,
            vec![
                vec![8, 0xF8],
                words(&[1, 1, 0, 0, 1 << 30, 0, -128, 127, 2]),
                vec![0; 2],
            ],
            &[0, 2],
            Some(vec![4, 0xFC]),
        ),
        (
            "MEAN",
            k("MEAN"),
            3,
            vec![
                vec![2, 4],
                vec![0; 4],
                words(&[1, 0, 0, 1 << 30, 0, 1, 1, 1, 1, 2, 0, 0, 0, 0, 1]),
                vec![0],
            ],
            &[0, 3],
            None,
        ),
        (
            "SOFTMAX",
            k("SOFTMAX"),
            2,
            vec![vec![0, 0], words(&[1 << 30, 0, -128, 2]), vec![0; 2]],
            &[0, 2],
            None,
        ),
        (
            "ADD",
            k("ADD"),
            3,
            vec![
                vec![1, 2],
                vec![3, 4],
                words(&[0, 1 << 30, 0, 0, 1 << 30, 0, 20, 0, 1 << 30, 0, -128, 127]),
                vec![0; 2],
            ],
            &[0, 1, 3],
            None,
        ),
        // Two int16 samples times a frame of one weight, shifted by 0.
        (
            "SignalWindow",
            k("SignalWindow"),
            3,
            vec![vec![2, 0, 3, 0], vec![1, 0], words(&[0, 1, 2]), vec![0; 4]],
            &[0, 1, 3],
            Some(vec![2, 0, 3, 0]),
        ),
        // The energy of bins 0..1 of two (re, im) int16 pairs: 3^2 + 4^2, then 0.
        (
            "SignalEnergy",
            k("SignalEnergy"),
            2,
            vec![vec![3, 0, 4, 0, 0, 0, 0, 0], words(&[0, 1, 2]), vec![9; 8]],
            &[2],
            Some(words(&[25, 0])),
        ),
        // int32 ADD of two elements, b broadcast.
        (
            "INT_BINARY",
            k("INT_BINARY"),
            3,
            vec![
                words(&[1, 2]),
                words(&[10]),
                int_binary_params(),
                vec![0; 8],
            ],
            &[3],
            Some(words(&[11, 12])),
        ),
        // One uint64 channel and the shift (int32 bits) into one uint32.
        (
            "SignalFilterBankSquareRoot",
            k("SignalFilterBankSquareRoot"),
            3,
            vec![
                vec![16, 0, 0, 0, 0, 0, 0, 0],
                words(&[0]),
                words(&[1]),
                vec![0; 4],
            ],
            &[0, 1, 3],
            None,
        ),
        // One int16 sample into one int16 and the scale (int32 bits).
        (
            "SignalFftAutoScale",
            k("SignalFftAutoScale"),
            2,
            vec![vec![3, 0], words(&[1]), vec![0; 2], vec![0; 4]],
            &[0, 2, 3],
            None,
        ),
        // One uint32 channel into one int16 logarithm.
        (
            "SignalFilterBankLog",
            k("SignalFilterBankLog"),
            2,
            vec![vec![0, 1, 0, 0], words(&[1, 0, 1]), vec![0; 2]],
            &[0, 2],
            None,
        ),
        // One channel, its noise estimate and TFLM's smallest gain table (125 int16).
        (
            "SignalPCAN",
            k("SignalPCAN"),
            4,
            vec![
                words(&[9]),
                words(&[1]),
                vec![0; 250],
                words(&[1, 0, 125]),
                vec![0; 4],
            ],
            &[0, 1, 2, 4],
            None,
        ),
        // One channel and its state into the output and the new noise estimate.
        (
            "SignalFilterBankSpectralSubtraction",
            k("SignalFilterBankSpectralSubtraction"),
            3,
            vec![
                words(&[9]),
                words(&[0]),
                words(&[1, 0, 0, 0, 0, 0, 0, 0, 0]),
                vec![0; 4],
                vec![0; 4],
            ],
            &[0, 1, 3, 4],
            None,
        ),
        // A real FFT of length 4 (half 2: one radix-2 stage) of one frame of two samples.
        (
            "SignalRfft",
            k("SignalRfft"),
            4,
            vec![
                vec![1, 0, 2, 0],
                vec![0; 8],
                vec![0; 4],
                words(&[2, 2, 1, 1, 2, 1]),
                vec![0; 12],
            ],
            &[0, 1, 2, 4],
            None,
        ),
        // One channel over a spectrum of two, weights of two, empty bands.
        (
            "SignalFilterBank",
            k("SignalFilterBank"),
            7,
            vec![
                vec![0; 8],
                vec![0; 4],
                vec![0; 4],
                vec![0; 4],
                vec![0; 4],
                vec![0; 4],
                words(&[1, 2, 2]),
                vec![0; 8],
            ],
            &[0, 1, 2, 7],
            None,
        ),
        // 1x1 everything: input, filter, bias, output.
        (
            "CONV_2D",
            k("CONV_2D"),
            4,
            vec![vec![1], vec![1], vec![0; 4], conv_params(ONE, ONE), vec![0]],
            &[0, 1, 2, 4],
            None,
        ),
        (
            "DEPTHWISE_CONV_2D",
            k("DEPTHWISE_CONV_2D"),
            4,
            vec![vec![1], vec![1], vec![0; 4], conv_params(ONE, ONE), vec![0]],
            &[0, 1, 2, 4],
            None,
        ),
        (
            "MAX_POOL_2D",
            k("MAX_POOL_2D"),
            2,
            vec![
                (1..=16).collect(),
                words(&[2, 2, 0, 0, -128, 127, 1, 4, 4, 1, 2, 2, 2, 2]),
                vec![0; 4],
            ],
            &[0, 2],
            Some(vec![6, 8, 14, 16]),
        ),
        (
            "STRIDED_SLICE",
            k("STRIDED_SLICE"),
            5,
            vec![
                vec![1, 2, 3, 4],
                vec![0; 4],
                vec![0; 4],
                vec![0; 4],
                slice_at(0, 4, 1),
                vec![0; 4],
            ],
            &[0, 5],
            Some(vec![1, 2, 3, 4]),
        ),
        (
            "MUL",
            k("MUL"),
            3,
            vec![
                vec![1, 2],
                vec![3, 4],
                words(&[0, 0, 0, 1 << 30, 1, -128, 127]),
                vec![0; 2],
            ],
            &[0, 1, 3],
            None,
        ),
    ];
    for (name, kernel, ins, buffers, sized, expected) in calls {
        let op = format!("tflite:{name}");
        assert_eq!(plan_time(&op, ins, &buffers), Ok(()), "{name}");
        let mut ok = buffers.clone();
        assert_eq!(call(kernel, ins, &mut ok), ap_status::AP_OK, "{name}");
        if let Some(expected) = expected {
            assert_eq!(ok.last(), Some(&expected), "{name}");
        }
        for &k in sized {
            for delta in [-1i32, 1] {
                let mut b = buffers.clone();
                if delta < 0 {
                    b[k].pop();
                } else {
                    b[k].push(0);
                }
                let how = if delta < 0 { "short of" } else { "over by" };
                // The build refuses at plan time what the kernel refuses at the call.
                assert!(
                    plan_time(&op, ins, &b).is_err(),
                    "{name}: operand {k} {how} a byte passes the build's check"
                );
                assert_eq!(
                    call(kernel, ins, &mut b),
                    ap_status::AP_ERR_ARGUMENT_MISMATCH,
                    "{name}: operand {k} {how} a byte"
                );
            }
        }
    }
}

/// INT_BINARY's parameters: an int32 ADD over two elements, a walking them, b broadcast.
fn int_binary_params() -> Vec<u8> {
    let mut w = vec![0, 4, i32::MIN, i32::MAX];
    w.extend([1, 1, 1, 1, 2]);
    w.extend([0, 0, 0, 0, 1]);
    w.extend([0; 5]);
    words(&w)
}

/// An input a kernel walks to a reach its parameters give (INT_BINARY's strides, SignalEnergy's
/// last bin) may be longer than the walk, never shorter: one element short is refused.
#[test]
fn an_input_shorter_than_its_walk_is_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: const C statics.
    let (int_binary, energy) = unsafe {
        (
            sys::ap_kernel_tflite_3aINT__BINARY,
            sys::ap_kernel_tflite_3aSignalEnergy,
        )
    };
    let binary =
        |a: Vec<u8>, b: Vec<u8>| call(int_binary, 3, &mut [a, b, int_binary_params(), vec![0; 8]]);
    assert_eq!(
        binary(words(&[1, 2, 3]), words(&[10, 20])),
        ap_status::AP_OK
    );
    assert_eq!(
        binary(words(&[1]), words(&[10])),
        ap_status::AP_ERR_ARGUMENT_MISMATCH
    );
    assert_eq!(
        binary(words(&[1, 2]), vec![]),
        ap_status::AP_ERR_ARGUMENT_MISMATCH
    );
    let bins = |input: Vec<u8>| call(energy, 2, &mut [input, words(&[0, 2, 2]), vec![0; 8]]);
    assert_eq!(bins(vec![1; 8]), ap_status::AP_OK);
    assert_eq!(bins(vec![1; 7]), ap_status::AP_ERR_ARGUMENT_MISMATCH);
    // SignalFilterBank reads an int16 of each band table for each of channels + 1 bands.
    // SAFETY: a const C static.
    let filter_bank = unsafe { sys::ap_kernel_tflite_3aSignalFilterBank };
    // Each table holds two int16 of 0 (empty bands) and states `bytes` of them: a kernel
    // reading past the stated size reads those zeros and runs.
    let bank = |table: usize, bytes: usize| {
        let mut b: Vec<Box<[u8]>> = [
            vec![0; 8],
            vec![0; 4],
            vec![0; 4],
            vec![0; 6],
            vec![0; 6],
            vec![0; 6],
            words(&[1, 2, 2]),
            vec![0; 8],
        ]
        .map(Vec::into_boxed_slice)
        .into();
        let mut sizes = [8, 4, 4, 4, 4, 4, 12, 8];
        sizes[table] = bytes;
        call_kernel_sized(filter_bank, (7, 1, 8), &mut b, &sizes, false)
    };
    // The weights and unweights walked together (the second band takes both weights): both
    // one weight short.
    let with_weights = |bytes: usize| {
        let mut b = vec![vec![0; 8], vec![0; bytes], vec![0; bytes]];
        b.extend([
            vec![0; 4],
            vec![0; 4],
            vec![0, 0, 2, 0],
            words(&[1, 2, 2]),
            vec![0; 8],
        ]);
        call(filter_bank, 7, &mut b)
    };
    assert_eq!(with_weights(4), ap_status::AP_OK);
    assert_eq!(with_weights(2), ap_status::AP_ERR_ARGUMENT_MISMATCH);
    for table in 3..6 {
        assert_eq!(
            bank(table, 6),
            ap_status::AP_OK,
            "band table {table} longer"
        );
        assert_eq!(
            bank(table, 3),
            ap_status::AP_ERR_ARGUMENT_MISMATCH,
            "band table {table} short"
        );
    }
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM of everything 1: each operand whose bytes the parameters give,
/// one byte short or long, is refused by the kernel and by the build's check alike; the
/// scratch may be larger, never smaller.
#[test]
fn lstm_operands_of_other_bytes_than_the_parameters_give_are_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aUNIDIRECTIONAL__SEQUENCE__LSTM };
    // Batch-major, one batch, step, input and hidden unit; every rescaling x 1; the cell in
    // Q3.12; the gates sigmoid but the cell gate's tanh.
    let mut p = vec![
        0,
        1,
        1,
        1,
        1,
        0,
        1 << 30,
        1,
        1 << 30,
        1,
        0,
        -12,
        1 << 30,
        1,
        0,
    ];
    for activation in [0, 0, 1, 0] {
        p.extend([1 << 30, 1, 1 << 30, 1, activation]);
    }
    let mut good = vec![vec![1]]; // input
    good.extend(std::iter::repeat_n(vec![1], 8)); // 4 input, 4 recurrent weights
    good.extend(std::iter::repeat_n(words(&[0]), 4)); // 4 biases
    good.extend([
        vec![0],
        vec![0; 2],
        words(&[0; 8]),
        words(&p),
        vec![0],
        vec![0; 4],
    ]);
    let run = |buffers: Vec<Vec<u8>>| {
        let n = buffers.len();
        let mut b: Vec<Box<[u8]>> = buffers.into_iter().map(Vec::into_boxed_slice).collect();
        call_kernel_counted(kernel, (17, 1, n), &mut b, false)
    };
    let op = "tflite:UNIDIRECTIONAL_SEQUENCE_LSTM";
    let plan = |b: &[Vec<u8>]| plan_time(op, 17, &b[..18]);
    assert_eq!(plan(&good), Ok(()));
    assert_eq!(run(good.clone()), ap_status::AP_OK);
    for k in (0..16).chain([17]) {
        for delta in [-1i32, 1] {
            let mut b = good.clone();
            if delta < 0 {
                b[k].pop();
            } else {
                b[k].push(0);
            }
            assert!(
                plan(&b).is_err(),
                "operand {k}: the build's check passes it"
            );
            assert_eq!(
                run(b),
                ap_status::AP_ERR_ARGUMENT_MISMATCH,
                "operand {k} {} a byte",
                if delta < 0 { "short of" } else { "over by" }
            );
        }
    }
    let mut roomy = good.clone();
    roomy[18].push(0);
    assert_eq!(run(roomy), ap_status::AP_OK);
    let mut short = good;
    short[18].pop();
    assert_eq!(run(short), ap_status::AP_ERR_ARGUMENT_MISMATCH);
}

/// SVDF (int8 state, with its feature sums) of everything 1: each operand whose bytes the
/// parameters give, one byte short or long, is refused; the scratch may be larger, never
/// smaller.
#[test]
fn svdf_operands_of_other_bytes_than_the_parameters_give_are_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aSVDF };
    // rank, zero points, two requantizations (x 1), batches, input size, filters, memory,
    // the state's range.
    let params = words(&[1, 0, 0, 1 << 30, 1, 1 << 30, 1, 1, 1, 1, 1, -128, 127]);
    let good = vec![
        vec![1],     // input
        vec![1],     // feature weights
        vec![1],     // time weights
        words(&[0]), // bias
        vec![0],     // state
        words(&[1]), // feature sums
        params,
        vec![0],    // output
        vec![0; 8], // scratch: batches x (filters + units) int32
    ];
    let run = |buffers: Vec<Vec<u8>>| {
        let n = buffers.len();
        let mut b: Vec<Box<[u8]>> = buffers.into_iter().map(Vec::into_boxed_slice).collect();
        call_kernel_counted(kernel, (7, 1, n), &mut b, false)
    };
    // The build's check sees the call without its scratch (planned apart).
    let plan = |b: &[Vec<u8>]| plan_time("tflite:SVDF", 7, &b[..8]);
    assert_eq!(plan(&good), Ok(()));
    assert_eq!(run(good.clone()), ap_status::AP_OK);
    for k in [0, 1, 2, 3, 4, 5, 7] {
        for delta in [-1i32, 1] {
            let mut b = good.clone();
            if delta < 0 {
                b[k].pop();
            } else {
                b[k].push(0);
            }
            assert!(
                plan(&b).is_err(),
                "operand {k}: the build's check passes it"
            );
            assert_eq!(
                run(b),
                ap_status::AP_ERR_ARGUMENT_MISMATCH,
                "operand {k} {} a byte",
                if delta < 0 { "short of" } else { "over by" }
            );
        }
    }
    let mut roomy = good.clone();
    roomy[8].push(0);
    assert_eq!(run(roomy), ap_status::AP_OK);
    let mut short = good;
    short[8].pop();
    assert_eq!(run(short), ap_status::AP_ERR_ARGUMENT_MISMATCH);
}

/// The build's plan-time check of a call of `op` on these buffers (the last input the
/// parameter constant, the rest after `ninputs` the outputs), as a model naming the kernel
/// would give it.
fn plan_time(op: &str, ninputs: u32, buffers: &[Vec<u8>]) -> Result<(), String> {
    use arenaplan_build::model::{
        ConstantData, DType, Instruction, KernelCall, Program, Value, ValueKind,
    };
    let mut program = Program::new("call");
    let ids: Vec<usize> = buffers
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mut v = Value::planned(format!("v{i}"), DType::Int8, vec![b.len() as u64]);
            if i + 1 == ninputs as usize {
                v.kind = ValueKind::Constant;
                v.data = Some(ConstantData::new(b.clone()));
            }
            program.add_value(v)
        })
        .collect();
    let (inputs, outputs) = ids.split_at(ninputs as usize);
    program.body.push(Instruction::Kernel(KernelCall::new(
        op,
        inputs.to_vec(),
        outputs.to_vec(),
    )));
    arenaplan_build::kernels::tflite::check_kernel_params(&program).map_err(|e| e.to_string())
}

/// RESHAPE moves its input's bytes: an output of other bytes is refused by the kernel and by
/// the build alike.
#[test]
fn a_reshape_to_other_bytes_is_refused() {
    if !kernels_built() {
        return;
    }
    // SAFETY: a const C static.
    let kernel = unsafe { sys::ap_kernel_tflite_3aRESHAPE };
    let plan = |b: &[Vec<u8>]| {
        use arenaplan_build::model::{DType, Instruction, KernelCall, Program, Value};
        let mut program = Program::new("reshape");
        let ids: Vec<usize> = b
            .iter()
            .enumerate()
            .map(|(i, b)| {
                program.add_value(Value::planned(
                    format!("v{i}"),
                    DType::Int8,
                    vec![b.len() as u64],
                ))
            })
            .collect();
        program.body.push(Instruction::Kernel(KernelCall::new(
            "tflite:RESHAPE",
            vec![ids[0]],
            vec![ids[1]],
        )));
        arenaplan_build::kernels::tflite::check_kernel_params(&program).map_err(|e| e.to_string())
    };
    let mut ok = vec![vec![1, 2], vec![0; 2]];
    assert_eq!(plan(&ok), Ok(()));
    assert_eq!(call(kernel, 1, &mut ok), ap_status::AP_OK);
    assert_eq!(ok[1], [1, 2]);
    for out in [1, 3] {
        let mut b = vec![vec![1, 2], vec![0; out]];
        assert!(plan(&b).is_err(), "{out} bytes");
        assert_eq!(
            call(kernel, 1, &mut b),
            ap_status::AP_ERR_ARGUMENT_MISMATCH,
            "{out} bytes"
        );
    }
}
