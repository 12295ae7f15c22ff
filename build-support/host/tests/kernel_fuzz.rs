//! The TFLite kernels on arguments no planner would give them, generated: a kernel may refuse
//! a call (`AP_ERR_ARGUMENT_MISMATCH`, `AP_ERR_UNSUPPORTED`, …) but never touch a byte outside
//! its buffers. Each buffer is allocated at exactly its size, so CI's sanitizer step
//! (`ARENAPLAN_SANITIZE=address,undefined`, see `.ci/run`) turns any overrun, and any undefined
//! behaviour in arenaplan's C, into a failure; without the sanitizers the properties still hold
//! the kernels to their statuses and to the geometries TFLite accepts.
//!
//! - Every kernel of the registry, on any number of buffers of any size, holding parameter-like
//!   words (small counts, shifts, strides, the int8 range) or random bytes.
//! - The window kernels (CONV_2D, DEPTHWISE_CONV_2D, the poolings), with "schema-shaped"
//!   parameters: random geometries whose buffers match the dimensions the parameters claim,
//!   so only the geometric checks stand between the kernel and memory; the geometries TFLite
//!   derives itself (SAME, VALID) must run.
//! - STRIDED_SLICE with random first indices, counts, steps and extents.
//!
//! The case counts are proptest's (`PROPTEST_CASES`): the default in the README's tests, more
//! in CI's sanitizer step.

use arenaplan::sys::{self, ap_kernel, ap_status};
use proptest::prelude::*;

#[path = "support/kernel_call.rs"]
mod kernel_call;
use kernel_call::{call_kernel, words};

fn kernels() -> Vec<ap_kernel> {
    arenaplan::tflite_kernels().collect()
}

fn boxed(buffers: Vec<Vec<u8>>) -> Vec<Box<[u8]>> {
    buffers.into_iter().map(Vec::into_boxed_slice).collect()
}

/// A parameter-like word: what a kernel's parameter block holds, with the values its checks
/// turn on (0, 1, negatives, counts, shifts, the int8 range, a Q31 multiplier).
fn word() -> impl Strategy<Value = i32> {
    prop_oneof![
        -2i32..=8,
        Just(16),
        Just(31),
        Just(-31),
        Just(-128),
        Just(127),
        Just(1 << 30),
        Just(i32::MAX),
        Just(i32::MIN),
        any::<i32>(),
    ]
}

/// A buffer: parameter-like words, random bytes, or empty.
fn buffer() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(word(), 0..24).prop_map(|w| words(&w)),
        prop::collection::vec(any::<u8>(), 0..96),
        Just(Vec::new()),
    ]
}

proptest! {
    #[test]
    fn every_kernel_stays_inside_any_buffers(
        buffers in prop::collection::vec(buffer(), 1..8),
        split in 0usize..8,
        null_empties in any::<bool>(),
    ) {
        let ninputs = split.min(buffers.len()) as u32;
        // Any status is an answer; what fails is a kernel that crashes, or (under the
        // sanitizers) reads or writes outside the buffers.
        for kernel in kernels() {
            let mut b = boxed(buffers.clone());
            let _ = call_kernel(kernel, ninputs, &mut b, null_empties);
        }
    }
}

/// One axis of a window: input, filter, stride, dilation, padding before the first element,
/// output.
#[derive(Clone, Copy, Debug)]
struct Axis {
    input: i32,
    filter: i32,
    stride: i32,
    dilation: i32,
    pad: i32,
    output: i32,
}

impl Axis {
    /// Whether TFLite derives this output and padding from the rest (SAME or VALID): stated
    /// here from TFLite's formulas, independently of the kernels' rule.
    fn follows(&self) -> bool {
        let effective = (self.filter - 1) * self.dilation + 1;
        let valid = (self.input - effective + self.stride) / self.stride;
        let same = (self.input + self.stride - 1) / self.stride;
        let same_pad = ((same - 1) * self.stride + effective - self.input).max(0) / 2;
        (valid > 0 && self.output == valid && self.pad == 0)
            || (self.output == same && self.pad == same_pad)
    }
}

/// A window axis: half the time as TFLite derives it (SAME or VALID), else any output and
/// padding.
fn axis(max_dilation: i32) -> impl Strategy<Value = Axis> {
    (
        1i32..=12,
        1i32..=4,
        1i32..=3,
        1i32..=max_dilation,
        any::<bool>(),
        0i32..=3,
        1i32..=14,
        any::<bool>(),
    )
        .prop_map(
            |(input, filter, stride, dilation, derived, pad, output, same)| {
                let mut a = Axis {
                    input,
                    filter,
                    stride,
                    dilation,
                    pad,
                    output,
                };
                if derived {
                    let effective = (filter - 1) * dilation + 1;
                    let valid = (input - effective + stride) / stride;
                    if same || valid <= 0 {
                        a.output = (input + stride - 1) / stride;
                        a.pad = ((a.output - 1) * stride + effective - input).max(0) / 2;
                    } else {
                        a.output = valid;
                        a.pad = 0;
                    }
                }
                a
            },
        )
}

/// One dimension of a slice: first index, count, step, extent. Most are the trivial one, so
/// that a case's outcome turns on one or two dimensions.
fn slice_dim() -> impl Strategy<Value = (i32, i32, i32, i32)> {
    prop_oneof![
        3 => Just((0, 1, 1, 1)),
        4 => (-1i32..=5, 0i32..=5, -3i32..=3, 1i32..=5),
    ]
}

proptest! {
    #[test]
    fn convolutions_run_the_geometries_tflite_derives_and_no_other_leaves_its_buffers(
        h in axis(3),
        w in axis(3),
        channels in 1i32..=3,
        mult in 1i32..=2,
        batches in 1i32..=2,
        depthwise in any::<bool>(),
    ) {
        if kernels().is_empty() {
            return Ok(());
        }
        // SAFETY: const C statics.
        let kernel = unsafe {
            if depthwise { sys::ap_kernel_tflite_3aDEPTHWISE__CONV__2D } else { sys::ap_kernel_tflite_3aCONV__2D }
        };
        let (mult, out_c) = if depthwise { (mult, channels * mult) } else { (1, mult) };
        let filter_c = if depthwise { 1 } else { channels };
        let mut p = vec![0, 0, mult, w.stride, h.stride, w.pad, h.pad, w.dilation, h.dilation, -128, 127];
        p.extend([batches, h.input, w.input, channels, h.filter, w.filter, h.output, w.output, out_c]);
        // Every output channel x 1: multipliers, then shifts.
        p.extend(std::iter::repeat_n(1 << 30, out_c as usize));
        p.extend(std::iter::repeat_n(1, out_c as usize));
        let n = |dims: &[i32]| vec![1u8; dims.iter().product::<i32>() as usize];
        let mut b = boxed(vec![
            n(&[batches, h.input, w.input, channels]),
            n(&[out_c, h.filter, w.filter, filter_c]),
            words(&vec![0; out_c as usize]),
            words(&p),
            n(&[batches, h.output, w.output, out_c]),
        ]);
        let status = call_kernel(kernel, 4, &mut b, false);
        if h.follows() && w.follows() {
            prop_assert_eq!(status, ap_status::AP_OK);
        } else {
            prop_assert_eq!(status, ap_status::AP_ERR_ARGUMENT_MISMATCH);
        }
    }

    #[test]
    fn poolings_run_the_geometries_tflite_derives_and_no_other_leaves_its_buffers(
        h in axis(1),
        w in axis(1),
        channels in 1i32..=3,
        batches in 1i32..=2,
        average in any::<bool>(),
    ) {
        if kernels().is_empty() {
            return Ok(());
        }
        // SAFETY: const C statics.
        let kernel = unsafe {
            if average { sys::ap_kernel_tflite_3aAVERAGE__POOL__2D } else { sys::ap_kernel_tflite_3aMAX__POOL__2D }
        };
        let p = [
            w.stride, h.stride, w.pad, h.pad, -128, 127, batches, h.input, w.input, channels,
            h.filter, w.filter, h.output, w.output,
        ];
        let n = |dims: &[i32]| vec![1u8; dims.iter().product::<i32>() as usize];
        let mut b = boxed(vec![
            n(&[batches, h.input, w.input, channels]),
            words(&p),
            n(&[batches, h.output, w.output, channels]),
        ]);
        let status = call_kernel(kernel, 2, &mut b, false);
        if h.follows() && w.follows() {
            prop_assert_eq!(status, ap_status::AP_OK);
        } else {
            prop_assert_eq!(status, ap_status::AP_ERR_ARGUMENT_MISMATCH);
        }
    }

    #[test]
    fn a_strided_slice_reads_only_inside_its_input(
        dims in prop::collection::vec(slice_dim(), 5),
        width in prop::sample::select(vec![1i32, 2, 4]),
    ) {
        if kernels().is_empty() {
            return Ok(());
        }
        // SAFETY: a const C static.
        let kernel = unsafe { sys::ap_kernel_tflite_3aSTRIDED__SLICE };
        let mut p = vec![width];
        p.extend(dims.iter().map(|d| d.0));
        p.extend(dims.iter().map(|d| d.1));
        p.extend(dims.iter().map(|d| d.2));
        p.extend(dims.iter().map(|d| d.3));
        // A step of 0 is never one (it would read one element count times); an empty
        // dimension reads nothing; any other reads from its first to its last index.
        let inside = dims.iter().all(|&(first, count, step, extent)| {
            step != 0 && (count == 0 || {
                let last = first + (count - 1) * step;
                (0..extent).contains(&first) && (0..extent).contains(&last)
            })
        });
        let elements = |f: fn(&(i32, i32, i32, i32)) -> i32| {
            dims.iter().map(f).product::<i32>() as usize * width as usize
        };
        let mut b = boxed(vec![
            vec![7; elements(|d| d.3)],
            vec![0; 4],
            vec![0; 4],
            vec![0; 4],
            words(&p),
            vec![0; elements(|d| d.1)],
        ]);
        let status = call_kernel(kernel, 5, &mut b, false);
        if inside {
            prop_assert_eq!(status, ap_status::AP_OK);
            prop_assert!(b[5].iter().all(|&x| x == 7));
        } else {
            prop_assert_eq!(status, ap_status::AP_ERR_ARGUMENT_MISMATCH);
        }
    }
}
