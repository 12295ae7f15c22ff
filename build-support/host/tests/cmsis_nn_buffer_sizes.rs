//! The scratch the planner gives CMSIS-NN's kernels (`arenaplan_build::cmsis_nn`) against what
//! CMSIS-NN's own `*_get_buffer_size` functions say, for every instruction set: the host's
//! build of CMSIS-NN is plain C, so its un-suffixed functions are the plain-C figures, and the
//! `_dsp` and `_mve` variants are plain C too, callable here. Every shape of a grid (channels
//! around Helium's block of 124, kernels 1×1, 1×N, 3×3 and others, strides, padding, dilation)
//! must give the same bytes.

#[path = "../../tests/common/skip.rs"]
mod skip;

use arenaplan_build::cmsis_nn::{self, Conv, Dims};
use arenaplan_build::model::Isa;

#[repr(C)]
#[derive(Clone, Copy)]
struct NnDims {
    n: i32,
    h: i32,
    w: i32,
    c: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Tile {
    w: i32,
    h: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct Activation {
    min: i32,
    max: i32,
}

#[repr(C)]
struct ConvParams {
    input_offset: i32,
    output_offset: i32,
    stride: Tile,
    padding: Tile,
    dilation: Tile,
    activation: Activation,
}

#[repr(C)]
struct DwConvParams {
    input_offset: i32,
    output_offset: i32,
    ch_mult: i32,
    stride: Tile,
    padding: Tile,
    dilation: Tile,
    activation: Activation,
}

type ConvSize =
    unsafe extern "C" fn(*const ConvParams, *const NnDims, *const NnDims, *const NnDims) -> i32;
type DwSize =
    unsafe extern "C" fn(*const DwConvParams, *const NnDims, *const NnDims, *const NnDims) -> i32;

extern "C" {
    fn arm_convolve_wrapper_s8_get_buffer_size(
        p: *const ConvParams,
        i: *const NnDims,
        f: *const NnDims,
        o: *const NnDims,
    ) -> i32;
    fn arm_convolve_wrapper_s8_get_buffer_size_dsp(
        p: *const ConvParams,
        i: *const NnDims,
        f: *const NnDims,
        o: *const NnDims,
    ) -> i32;
    fn arm_convolve_wrapper_s8_get_buffer_size_mve(
        p: *const ConvParams,
        i: *const NnDims,
        f: *const NnDims,
        o: *const NnDims,
    ) -> i32;
    fn arm_depthwise_conv_wrapper_s8_get_buffer_size(
        p: *const DwConvParams,
        i: *const NnDims,
        f: *const NnDims,
        o: *const NnDims,
    ) -> i32;
    fn arm_depthwise_conv_wrapper_s8_get_buffer_size_dsp(
        p: *const DwConvParams,
        i: *const NnDims,
        f: *const NnDims,
        o: *const NnDims,
    ) -> i32;
    fn arm_depthwise_conv_wrapper_s8_get_buffer_size_mve(
        p: *const DwConvParams,
        i: *const NnDims,
        f: *const NnDims,
        o: *const NnDims,
    ) -> i32;
    fn arm_fully_connected_s8_get_buffer_size(f: *const NnDims) -> i32;
    fn arm_fully_connected_s8_get_buffer_size_dsp(f: *const NnDims) -> i32;
    fn arm_fully_connected_s8_get_buffer_size_mve(f: *const NnDims) -> i32;
    fn arm_avgpool_s8_get_buffer_size(output_x: i32, ch: i32) -> i32;
    fn arm_avgpool_s8_get_buffer_size_dsp(output_x: i32, ch: i32) -> i32;
    fn arm_avgpool_s8_get_buffer_size_mve(output_x: i32, ch: i32) -> i32;
    fn arm_avgpool_s16_get_buffer_size(output_x: i32, ch: i32) -> i32;
    fn arm_avgpool_s16_get_buffer_size_dsp(output_x: i32, ch: i32) -> i32;
    fn arm_avgpool_s16_get_buffer_size_mve(output_x: i32, ch: i32) -> i32;
}

const ISAS: [Isa; 3] = [Isa::Plain, Isa::Dsp, Isa::Mve];

fn nn(d: Dims) -> NnDims {
    NnDims {
        n: d.n as i32,
        h: d.h as i32,
        w: d.w as i32,
        c: d.c as i32,
    }
}

fn tile((w, h): (i64, i64)) -> Tile {
    Tile {
        w: w as i32,
        h: h as i32,
    }
}

/// Every geometry of the grid: input, kernel, stride, padding, dilation, with the output
/// extent the padding gives (at least 1).
fn grid(mut each: impl FnMut(Dims, (i64, i64), Conv, (i64, i64))) {
    for &c in &[1i64, 2, 3, 4, 8, 16, 123, 124, 125, 130] {
        for &(h, w) in &[(1i64, 1i64), (1, 9), (5, 5), (8, 16)] {
            for &(kh, kw) in &[(1i64, 1i64), (1, 3), (1, 8), (3, 3), (5, 1), (3, 5)] {
                for &stride in &[(1i64, 1i64), (2, 2), (2, 1), (3, 1)] {
                    for &padding in &[(0i64, 0i64), (1, 1), (2, 0), (0, 2)] {
                        for &dilation in &[(1i64, 1i64), (2, 2), (1, 2)] {
                            let extent = |size: i64, k: i64, s: i64, p: i64, d: i64| {
                                ((size + 2 * p - (k - 1) * d - 1) / s + 1).max(1)
                            };
                            let out = (
                                extent(w, kw, stride.0, padding.0, dilation.0),
                                extent(h, kh, stride.1, padding.1, dilation.1),
                            );
                            let conv = Conv {
                                stride,
                                padding,
                                dilation,
                            };
                            each(Dims { n: 1, h, w, c }, (kh, kw), conv, out);
                        }
                    }
                }
            }
        }
    }
}

fn skip_without_cmsis_nn() -> bool {
    if arenaplan::tflite_kernels().next().is_some() {
        return false;
    }
    skip::skip("the runtime was built without CMSIS-NN (its feature `tflite-kernels`, sources at CMSIS_NN_PATH)");
    true
}

#[test]
fn convolution_scratch_is_cmsis_nns_on_every_instruction_set() {
    if skip_without_cmsis_nn() {
        return;
    }
    let vendor: [ConvSize; 3] = [
        arm_convolve_wrapper_s8_get_buffer_size,
        arm_convolve_wrapper_s8_get_buffer_size_dsp,
        arm_convolve_wrapper_s8_get_buffer_size_mve,
    ];
    let mut checked = 0;
    grid(|input, (kh, kw), conv, (ow, oh)| {
        for &out_c in &[1i64, 8, 32] {
            let filter = Dims {
                n: out_c,
                h: kh,
                w: kw,
                c: input.c,
            };
            let output = Dims {
                n: 1,
                h: oh,
                w: ow,
                c: out_c,
            };
            let ours = cmsis_nn::convolve_wrapper_s8(&conv, input, filter, output);
            let params = ConvParams {
                input_offset: 0,
                output_offset: 0,
                stride: tile(conv.stride),
                padding: tile(conv.padding),
                dilation: tile(conv.dilation),
                activation: Activation {
                    min: -128,
                    max: 127,
                },
            };
            for (isa, f) in ISAS.iter().zip(vendor) {
                // SAFETY: pointers to live, properly laid out structs.
                let theirs = unsafe { f(&params, &nn(input), &nn(filter), &nn(output)) };
                assert_eq!(
                    ours.bytes(*isa),
                    theirs as u64,
                    "{isa:?}: input {input:?} filter {filter:?} output {output:?} {conv:?}"
                );
                checked += 1;
            }
        }
    });
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn depthwise_scratch_is_cmsis_nns_on_every_instruction_set() {
    if skip_without_cmsis_nn() {
        return;
    }
    let vendor: [DwSize; 3] = [
        arm_depthwise_conv_wrapper_s8_get_buffer_size,
        arm_depthwise_conv_wrapper_s8_get_buffer_size_dsp,
        arm_depthwise_conv_wrapper_s8_get_buffer_size_mve,
    ];
    grid(|input, (kh, kw), conv, (ow, oh)| {
        for &ch_mult in &[1i64, 2, 8] {
            for batches in [1i64, 2] {
                let input = Dims {
                    n: batches,
                    ..input
                };
                let out_c = input.c * ch_mult;
                let filter = Dims {
                    n: 1,
                    h: kh,
                    w: kw,
                    c: out_c,
                };
                let output = Dims {
                    n: batches,
                    h: oh,
                    w: ow,
                    c: out_c,
                };
                let ours = cmsis_nn::depthwise_conv_wrapper_s8(&conv, input, filter, output);
                let params = DwConvParams {
                    input_offset: 0,
                    output_offset: 0,
                    ch_mult: ch_mult as i32,
                    stride: tile(conv.stride),
                    padding: tile(conv.padding),
                    dilation: tile(conv.dilation),
                    activation: Activation {
                        min: -128,
                        max: 127,
                    },
                };
                for (isa, f) in ISAS.iter().zip(vendor) {
                    // SAFETY: pointers to live, properly laid out structs.
                    let theirs = unsafe { f(&params, &nn(input), &nn(filter), &nn(output)) };
                    assert_eq!(
                        ours.bytes(*isa),
                        theirs as u64,
                        "{isa:?}: input {input:?} filter {filter:?} output {output:?} {conv:?}"
                    );
                }
            }
        }
    });
}

#[test]
fn fully_connected_and_pooling_scratch_is_cmsis_nns_on_every_instruction_set() {
    if skip_without_cmsis_nn() {
        return;
    }
    for depth in [1i64, 3, 10, 128, 640, 1000] {
        let ours = cmsis_nn::fully_connected_s8(depth);
        let filter = NnDims {
            n: 250,
            h: 1,
            w: 1,
            c: depth as i32,
        };
        // SAFETY: a pointer to a live struct.
        let theirs = unsafe {
            [
                arm_fully_connected_s8_get_buffer_size(&filter),
                arm_fully_connected_s8_get_buffer_size_dsp(&filter),
                arm_fully_connected_s8_get_buffer_size_mve(&filter),
            ]
        };
        for (isa, theirs) in ISAS.iter().zip(theirs) {
            assert_eq!(ours.bytes(*isa), theirs as u64, "{isa:?}: depth {depth}");
        }
        /// CMSIS-NN's three variants of an average pooling's figure.
        type Variants = [unsafe extern "C" fn(i32, i32) -> i32; 3];
        let int8: Variants = [
            arm_avgpool_s8_get_buffer_size,
            arm_avgpool_s8_get_buffer_size_dsp,
            arm_avgpool_s8_get_buffer_size_mve,
        ];
        let int16: Variants = [
            arm_avgpool_s16_get_buffer_size,
            arm_avgpool_s16_get_buffer_size_dsp,
            arm_avgpool_s16_get_buffer_size_mve,
        ];
        for (ours, theirs, what) in [
            (cmsis_nn::avgpool_s8(depth), int8, "int8"),
            (cmsis_nn::avgpool_s16(depth), int16, "int16"),
        ] {
            for output_x in [1, 7, 48] {
                for (isa, f) in ISAS.iter().zip(theirs) {
                    // SAFETY: plain integer arguments.
                    let theirs = unsafe { f(output_x, depth as i32) };
                    assert_eq!(
                        ours.bytes(*isa),
                        theirs as u64,
                        "{isa:?}: {what}, channels {depth}"
                    );
                }
            }
        }
    }
}
