#!/usr/bin/env python3
"""Makes build-support/testdata/tflite-kernels/: one folder per TFLite operator the runtime has
a kernel for, each holding a handful of single-operator models exported by TensorFlow's own
converter (dtype cases, broadcasting, padding, strides and dilation, fused activations,
extreme quantization, sizes of 1), and beside each model what the TFLite Micro interpreter makes
of it, in the layout scripts/make_tflm_reference.py writes for the corpus:

    <op>/<case>.tflite      the model
    <op>/<case>/io.json     its inputs and outputs as the interpreter reports them
    <op>/<case>/K-inI.npy   input I of invocation K
    <op>/<case>/K-outO.npy  output O of invocation K

The tests (build-support/host/tests/tflite_kernels/<op>.rs) run each case on the runtime's C
kernels and compare every output byte with the interpreter's.

A case's name starts with its activations' type: int8_ (int8 quantization), int16_ (TFLite's
16x8 quantization: int16 activations, int8 weights), or the unquantized type of its input. The
names are the tests' function names (build-support/host/tests/tflite_kernels/<op>.rs lists
them, and a test checks that every case here is listed there).

    python3 -m venv /tmp/tflm
    /tmp/tflm/bin/pip install -r scripts/requirements-tflm.txt -r scripts/requirements-tf.txt
    /tmp/tflm/bin/python scripts/make_tflite_kernel_tests.py           # rewrite the folder
    /tmp/tflm/bin/python scripts/make_tflite_kernel_tests.py --check   # regenerate elsewhere, compare

Inputs, seeded by the case's name (the same on every machine), four invocations: 0, the dtype's
whole range with its first element at the minimum and its last at the maximum; 1, every element
at the minimum; 2, every element at the maximum; 3, near the zero point (as
make_tflm_reference.py's later invocations). Float inputs (QUANTIZE's) reach a hundred times the
calibrated range, so that the quantization saturates, and stay finite. The weights and the
calibration data are pseudo-random with fixed seeds.

Not made here, because TensorFlow's converter does not produce them: SVDF (no TensorFlow op
converts to it; the corpus's keyword models cover it), UNIDIRECTIONAL_SEQUENCE_LSTM (Keras 3's
LSTM converts to a WHILE loop, and quantizing it to int8 crashes the converter; the corpus's
LSTM models cover it) and TFLM's signal library's custom operators (Signal*: their TensorFlow
ops are not in the pinned tflite-micro package; the corpus's audio preprocessor covers them).
TFLite Micro refuses the converter's int16 PADV2, so there is no such case.
"""

import argparse
import filecmp
import os
import shutil
import sys
import tempfile
import zlib

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from make_tflm_reference import INVOCATIONS, random_input, record, runtime  # noqa: E402

OUT = os.path.join(HERE, "..", "build-support", "testdata", "tflite-kernels")

F32, I8, I16, I32, U32, BOOL = tf.float32, tf.int8, tf.int16, tf.int32, tf.uint32, tf.bool
INT8 = tf.lite.OpsSet.TFLITE_BUILTINS_INT8
INT16 = tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8


class Case:
    """One model: `fn` (a function of TensorFlow ops) of inputs `specs` ((shape, dtype) each),
    quantized by the converter as `quant` says: "int8", "16x8"
    or None (unquantized: integer tensors as they are). `ranges` are the calibration ranges of
    the float inputs, one (low, high) each; `io` the model's input and output types when they
    are not the quantized ones (float at a QUANTIZE or DEQUANTIZE end). `nonzero`: the inputs
    after the first never hold 0 or -1 (divisors: TFLM's DIV would trap). `inputs`: a function
    of the invocation and the input's shape giving its values, in place of random ones; the
    calibration data then span `ranges` exactly (so the scale the converter derives is known)."""

    def __init__(self, fn, specs, quant="int8", ranges=None, io=None, nonzero=False, inputs=None):
        self.fn, self.specs, self.quant, self.nonzero = fn, specs, quant, nonzero
        self.ranges = ranges or [(-1.0, 1.0)] * len(specs)
        self.io = io
        self.inputs = inputs


def half_steps(k, shape):
    """Floats exactly halfway between two steps of 1/128 (the int8 scale of the range
    [-1, 127/128]): each rounds by the tie rule, TFLM's half away from zero. Invocation `k`
    takes the next dozen steps, from -30.5 to 17.5."""
    n = int(np.prod(shape))
    steps = np.arange(n) - n // 2 + n * (k - 2) + 0.5
    return (steps / 128.0).astype(np.float32).reshape(shape)


def weights(seed, shape, scale=1.0):
    """Seeded float weights in [-scale, scale]."""
    return tf.constant(np.random.default_rng(seed).uniform(-scale, scale, size=shape).astype(np.float32))


def binary(op, a_shape, b_shape, **kw):
    """`op` of two float inputs of these shapes (quantized as `kw` says)."""
    return Case(tf.function(op), [(a_shape, F32), (b_shape, F32)], **kw)


def unary(op, shape, **kw):
    """`op` of one float input of this shape."""
    return Case(tf.function(op), [(shape, F32)], **kw)


def conv(shape, filt, strides=1, padding="SAME", dilations=1, act=None, seed=1, w_scale=1.0, **kw):
    """A convolution with bias, filter `filt` (h, w, in, out), then `act` (which the converter
    fuses into CONV_2D)."""
    w, b = weights(seed, filt, w_scale), weights(seed + 1, filt[-1:], 0.5 * w_scale)
    apply = act or (lambda t: t)
    return unary(lambda x: apply(tf.nn.conv2d(x, w, strides, padding, dilations=dilations) + b), shape, **kw)


def depthwise(shape, k, mult, strides=1, padding="SAME", dilations=1, act=None, seed=3, **kw):
    """A k x k depthwise convolution with depth multiplier `mult` and bias, then `act`."""
    w, b = weights(seed, (k, k, shape[-1], mult)), weights(seed + 1, (shape[-1] * mult,), 0.5)
    apply = act or (lambda t: t)
    st = [1, strides, strides, 1]
    return unary(
        lambda x: apply(tf.nn.depthwise_conv2d(x, w, st, padding, dilations=[dilations] * 2) + b), shape, **kw
    )


def dense(shape, units, bias=True, act=None, seed=5, **kw):
    """A matrix product with `units` outputs, with or without bias, then `act`."""
    w, b = weights(seed, (shape[-1], units)), weights(seed + 1, (units,), 0.5)
    apply = act or (lambda t: t)
    return unary(lambda x: apply(tf.matmul(x, w) + b if bias else tf.matmul(x, w)), shape, **kw)


def transpose_conv(shape, k, out_c, strides, padding, seed=7, **kw):
    """A k x k transposed convolution to `out_c` channels, with bias."""
    w, b = weights(seed, (k, k, out_c, shape[-1])), weights(seed + 1, (out_c,), 0.5)
    size = [shape[1] * strides, shape[2] * strides] if padding == "SAME" else [
        (shape[1] - 1) * strides + k, (shape[2] - 1) * strides + k]
    out = [shape[0], *size, out_c]
    return unary(lambda x: tf.nn.conv2d_transpose(x, w, out, strides, padding) + b, shape, **kw)


def pool(kind, shape, k, strides, padding, act=None, **kw):
    """A k x k pooling ("max" or "avg"), then `act`."""
    f = tf.nn.max_pool2d if kind == "max" else tf.nn.avg_pool2d
    apply = act or (lambda t: t)
    return unary(lambda x: apply(f(x, k, strides, padding)), shape, **kw)


relu, relu6 = tf.nn.relu, tf.nn.relu6
S4 = (1, 4, 4, 3)
TINY, HUGE = (-1e-3, 1e-3), (-3000.0, 3000.0)
POSITIVE, NEGATIVE = (0.0, 2.0), (-2.0, 0.0)

# Per TFLite operator (its folder: the operator's name in lower case), its cases by name.
CASES = {
    "add": {
        "int8": binary(tf.add, S4, S4, ranges=[(-1, 1), (-2, 2)]),
        "int8_relu": binary(lambda a, b: relu(a + b), S4, S4, ranges=[(-1, 1), (-2, 2)]),
        "int8_relu6": binary(lambda a, b: relu6(a + b), S4, S4, ranges=[(-4, 4), (-5, 5)]),
        "int8_tiny_scale": binary(tf.add, S4, S4, ranges=[TINY, TINY]),
        "int8_huge_scale": binary(tf.add, S4, S4, ranges=[HUGE, (-1, 1)]),
        "int8_zero_point_min": binary(tf.add, S4, S4, ranges=[POSITIVE, POSITIVE]),
        "int8_scales_apart": binary(tf.add, S4, S4, ranges=[TINY, HUGE]),
        "int8_zero_point_max": binary(tf.add, S4, S4, ranges=[NEGATIVE, NEGATIVE]),
        "int8_size_1": binary(tf.add, (1, 1), (1, 1)),
        "int8_broadcast": binary(tf.add, S4, (1, 1, 1, 3)),
        "int16": binary(tf.add, S4, S4, quant="16x8", ranges=[(-1, 1), (-3, 3)]),
        "int16_relu": binary(lambda a, b: relu(a + b), S4, S4, quant="16x8"),
        "int16_huge_scale": binary(tf.add, S4, S4, quant="16x8", ranges=[HUGE, (-1, 1)]),
        "int16_broadcast": binary(tf.add, S4, (1, 1, 1, 3), quant="16x8"),
        "int32_broadcast": Case(tf.function(tf.add), [((2, 3, 4), I32), ((1, 3, 1), I32)], quant=None),
    },
    "mul": {
        "int8": binary(tf.multiply, S4, S4, ranges=[(-1, 1), (-2, 2)]),
        "int8_relu": binary(lambda a, b: relu(a * b), S4, S4),
        "int8_tiny_scale": binary(tf.multiply, S4, S4, ranges=[TINY, TINY]),
        "int8_huge_scale": binary(tf.multiply, S4, S4, ranges=[HUGE, HUGE]),
        "int8_zero_point_ends": binary(tf.multiply, S4, S4, ranges=[POSITIVE, NEGATIVE]),
        "int8_scales_apart": binary(tf.multiply, S4, S4, ranges=[TINY, HUGE]),
        "int8_size_1": binary(tf.multiply, (1, 1), (1, 1)),
        "int8_broadcast": binary(tf.multiply, S4, (1, 1, 1, 3)),
        "int16": binary(tf.multiply, S4, S4, quant="16x8", ranges=[(-1, 1), (-3, 3)]),
        "int16_relu_tiny_scale": binary(lambda a, b: relu(a * b), S4, S4, quant="16x8", ranges=[TINY, TINY]),
        "int16_broadcast": binary(tf.multiply, S4, (1, 1, 1, 3), quant="16x8"),
        "int32_broadcast": Case(tf.function(tf.multiply), [((2, 3, 4), I32), ((2, 1, 4), I32)], quant=None),
    },
    "div": {
        "int32": Case(tf.function(lambda a, b: tf.raw_ops.Div(x=a, y=b)), [((2, 5), I32), ((2, 5), I32)],
                      quant=None, nonzero=True),
        "int32_broadcast": Case(tf.function(lambda a, b: tf.raw_ops.Div(x=a, y=b)),
                                [((2, 3, 4), I32), ((1, 1, 4), I32)], quant=None, nonzero=True),
    },
    "maximum": {
        "int8": binary(tf.maximum, S4, S4),
        "int8_broadcast": binary(tf.maximum, S4, (1, 1, 1, 3)),
        "int8_scalar": binary(tf.maximum, S4, (), ranges=[(-1, 1), (-1, 1)]),
        "int8_size_1": binary(tf.maximum, (1,), (1,)),
        "int8_zero_point_max": binary(tf.maximum, S4, S4, ranges=[NEGATIVE, NEGATIVE]),
        "int16": binary(tf.maximum, S4, (1, 4, 1, 1), quant="16x8"),
        "int32_broadcast": Case(tf.function(tf.maximum), [((2, 3, 4), I32), ((3, 1), I32)], quant=None),
    },
    "minimum": {
        "int8": binary(tf.minimum, S4, S4),
        "int8_broadcast": binary(tf.minimum, S4, (1, 4, 1, 3)),
        "int8_size_1": binary(tf.minimum, (1,), (1,)),
        "int8_zero_point_min": binary(tf.minimum, S4, S4, ranges=[POSITIVE, POSITIVE]),
        "int16_same_shape": binary(tf.minimum, S4, S4, quant="16x8"),
        "int16": binary(tf.minimum, S4, (1, 1, 1, 3), quant="16x8"),
        "int32_broadcast": Case(tf.function(tf.minimum), [((2, 3, 4), I32), ((4,), I32)], quant=None),
    },
    "cast": {
        "int8_to_int32": Case(tf.function(lambda a: tf.cast(a, I32)), [((2, 6), I8)], quant=None),
        "int16_to_int8": Case(tf.function(lambda a: tf.cast(a, I8)), [((2, 6), I16)], quant=None),
        "int32_to_int16": Case(tf.function(lambda a: tf.cast(a, I16)), [((2, 6), I32)], quant=None),
        "uint32_to_int32": Case(tf.function(lambda a: tf.cast(a, I32)), [((2, 6), U32)], quant=None),
        "bool_to_int32": Case(tf.function(lambda a: tf.cast(a, I32)), [((2, 6), BOOL)], quant=None),
        "int32_to_float32": Case(tf.function(lambda a: tf.cast(a, F32)), [((2, 6), I32)], quant=None),
        "int8_to_float32": Case(tf.function(lambda a: tf.cast(a, F32)), [((1,), I8)], quant=None),
        "int32_to_int8": Case(tf.function(lambda a: tf.cast(a, I8)), [((2, 6), I32)], quant=None),
        "int8_to_int16": Case(tf.function(lambda a: tf.cast(a, I16)), [((2, 6), I8)], quant=None),
        "int32_to_uint32": Case(tf.function(lambda a: tf.cast(a, U32)), [((2, 6), I32)], quant=None),
        "bool_to_float32": Case(tf.function(lambda a: tf.cast(a, F32)), [((2, 6), BOOL)], quant=None),
    },
    "relu": {
        "int8": unary(relu, S4),
        "int8_zero_point_max": unary(relu, S4, ranges=[NEGATIVE]),
        "int8_tiny_scale": unary(relu, S4, ranges=[TINY]),
        "int8_size_1": unary(relu, (1,)),
        "int8_huge_scale": unary(relu, S4, ranges=[HUGE]),
        "int16_tiny_scale": unary(relu, S4, quant="16x8", ranges=[TINY]),
        "int16": unary(relu, S4, quant="16x8"),
    },
    "relu6": {
        "int8": unary(relu6, S4, ranges=[(-8, 8)]),
        "int8_huge_scale": unary(relu6, S4, ranges=[HUGE]),
        "int8_zero_point_min": unary(relu6, S4, ranges=[POSITIVE]),
        "int8_tiny_scale": unary(relu6, S4, ranges=[TINY]),
        "int16": unary(relu6, S4, quant="16x8", ranges=[(-8, 8)]),
    },
    "mean": {
        "int8_spatial": unary(lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True), S4),
        "int8_one_axis": unary(lambda x: tf.reduce_mean(x, axis=2), S4, ranges=[(-1, 3)]),
        "int8_all": unary(lambda x: tf.reduce_mean(x, axis=[0, 1, 2, 3]), S4),
        "int8_huge_scale": unary(lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True), S4, ranges=[HUGE]),
        "int8_tiny_scale_zero_point_min": unary(lambda x: tf.reduce_mean(x, axis=[1, 2]), S4, ranges=[(0, 1e-3)]),
        "int16_one_axis": unary(lambda x: tf.reduce_mean(x, axis=3), S4, quant="16x8"),
        # (A mean over axes of size 1 is the identity to the converter: an output of size 1.)
        "int8_to_size_1": unary(lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True), (1, 1, 3, 1)),
        "int16": unary(lambda x: tf.reduce_mean(x, axis=[1, 2], keepdims=True), S4, quant="16x8"),
    },
    "strided_slice": {
        "int8_steps": unary(lambda x: x[:, 1::2, ::3, 1:], (1, 5, 6, 3)),
        "int8_reverse": unary(lambda x: x[:, ::-1, 3:0:-2, :], (1, 4, 5, 2)),
        "int8_shrink": unary(lambda x: x[0, 2, :, 1:3], (1, 4, 5, 4)),
        "int8_masks": unary(lambda x: x[:, :2, 1:, :-1], (1, 4, 5, 4)),
        "int16": unary(lambda x: x[:, 1:3, ::2, :], (1, 4, 5, 2), quant="16x8"),
        "int32": Case(tf.function(lambda x: x[1:, ::2]), [((3, 7), I32)], quant=None),
    },
    "max_pool_2d": {
        "int8_valid_2x2": pool("max", (1, 6, 6, 3), 2, 2, "VALID"),
        "int8_same_3x3_stride_2": pool("max", (1, 5, 7, 2), 3, 2, "SAME"),
        "int8_relu6": pool("max", (1, 4, 4, 2), 2, 1, "VALID", act=relu6, ranges=[(-8, 8)]),
        "int8_size_1": pool("max", (1, 1, 1, 1), 1, 1, "VALID"),
        "int8_zero_point_min_channels_8": pool("max", (1, 4, 4, 8), 2, 2, "SAME", ranges=[POSITIVE]),
        "int16_valid_relu": pool("max", (1, 4, 4, 2), 2, 2, "VALID", act=relu, quant="16x8"),
        "int16_same": pool("max", (1, 5, 5, 3), 3, 2, "SAME", quant="16x8"),
    },
    "average_pool_2d": {
        "int8_valid_2x2": pool("avg", (1, 6, 6, 3), 2, 2, "VALID"),
        "int8_same_3x3_stride_2": pool("avg", (1, 5, 7, 2), 3, 2, "SAME"),
        "int8_relu": pool("avg", (1, 4, 4, 2), 2, 1, "VALID", act=relu),
        "int8_zero_point_max": pool("avg", (1, 4, 4, 2), 2, 2, "VALID", ranges=[NEGATIVE]),
        "int8_size_1": pool("avg", (1, 1, 1, 1), 1, 1, "VALID"),
        "int8_huge_scale_channels_8": pool("avg", (1, 4, 4, 8), 3, 1, "SAME", ranges=[HUGE]),
        "int16_valid_relu6": pool("avg", (1, 4, 4, 2), 2, 2, "VALID", act=relu6, quant="16x8", ranges=[(-8, 8)]),
        "int16_same": pool("avg", (1, 5, 5, 3), 3, 2, "SAME", quant="16x8"),
    },
    "pad": {
        "int8": unary(lambda x: tf.pad(x, [[0, 0], [1, 2], [0, 1], [0, 0]]), (1, 3, 3, 2)),
        "int8_zero_point_min": unary(lambda x: tf.pad(x, [[0, 0], [2, 0], [0, 0], [1, 1]]), (1, 2, 2, 2),
                                     ranges=[POSITIVE]),
        "int8_padv2": unary(lambda x: tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]], constant_values=0.5),
                            (1, 2, 3, 2)),
        "int32": Case(tf.function(lambda x: tf.pad(x, [[1, 0], [0, 2]])), [((2, 3), I32)], quant=None),
        "int16": unary(lambda x: tf.pad(x, [[0, 0], [1, 0], [0, 1], [0, 0]]), (1, 2, 2, 2), quant="16x8"),
        # (No int16 PADV2: TFLite Micro refuses the converter's.)
    },
    "concatenation": {
        "int8_channels": binary(lambda a, b: tf.concat([a, b], axis=3), (1, 2, 2, 3), (1, 2, 2, 2)),
        "int8_rows": binary(lambda a, b: tf.concat([a, b], axis=1), (1, 2, 3, 2), (1, 1, 3, 2)),
        "int8_three": Case(tf.function(lambda a, b, c: tf.concat([a, b, c], axis=-1)),
                           [((1, 2, 2), F32), ((1, 2, 1), F32), ((1, 2, 3), F32)]),
        "int8_batch": binary(lambda a, b: tf.concat([a, b], axis=0), (1, 3), (2, 3)),
        "int16": binary(lambda a, b: tf.concat([a, b], axis=3), (1, 2, 2, 3), (1, 2, 2, 2), quant="16x8"),
        "int32": Case(tf.function(lambda a, b: tf.concat([a, b], axis=0)), [((1, 3), I32), ((2, 3), I32)],
                      quant=None),
    },
    "reshape": {
        "int8": unary(lambda x: tf.reshape(x, (1, 12)), (1, 2, 2, 3)),
        "int16": unary(lambda x: tf.reshape(x, (2, 6)), (1, 2, 2, 3), quant="16x8"),
        "int32": Case(tf.function(lambda x: tf.reshape(x, (3, 2))), [((2, 3), I32)], quant=None),
    },
    # A single QUANTIZE or DEQUANTIZE is the identity to the converter: each is the float end of
    # a RESHAPE (whose kernel only copies bytes).
    "quantize": {
        "float_to_int8": unary(lambda x: tf.reshape(x, (2, 6)), (1, 12), io=(F32, I8)),
        "float_to_int8_tiny_scale": unary(lambda x: tf.reshape(x, (2, 6)), (1, 12), io=(F32, I8), ranges=[TINY]),
        "float_to_int8_zero_point_max": unary(lambda x: tf.reshape(x, (2, 6)), (1, 12), io=(F32, I8),
                                              ranges=[NEGATIVE]),
        "float_to_int16": unary(lambda x: tf.reshape(x, (2, 6)), (1, 12), quant="16x8", io=(F32, I16)),
        # The converter requantizes the 16-bit input whose scale differs from MAXIMUM's output's.
        "int16_requantize": binary(tf.maximum, (1, 6), (1, 6), quant="16x8", ranges=[(-1, 1), (-8, 8)]),
        "float_to_int8_huge_scale": unary(lambda x: tf.reshape(x, (2, 6)), (1, 12), io=(F32, I8), ranges=[HUGE]),
        # Every input a tie: a scale of exactly 1/128, inputs at odd multiples of 1/256.
        "float_to_int8_ties": unary(lambda x: tf.reshape(x, (2, 6)), (1, 12), io=(F32, I8),
                                    ranges=[(-1.0, 127.0 / 128.0)], inputs=half_steps),
    },
    "dequantize": {
        "int8_to_float": unary(lambda x: tf.reshape(x, (2, 6)), (1, 12), io=(I8, F32)),
        "int8_to_float_huge_scale": unary(lambda x: tf.reshape(x, (2, 6)), (1, 12), io=(I8, F32), ranges=[HUGE]),
        "int16_to_float": unary(lambda x: tf.reshape(x, (2, 6)), (1, 12), quant="16x8", io=(I16, F32)),
        "int8_to_float_zero_point_min": unary(lambda x: tf.reshape(x, (2, 6)), (1, 12), io=(I8, F32),
                                              ranges=[POSITIVE]),
    },
    "softmax": {
        "int8": unary(tf.nn.softmax, (1, 10), ranges=[(-4, 4)]),
        "int8_rank_4": unary(tf.nn.softmax, (1, 2, 2, 5)),
        "int8_rank_3": unary(tf.nn.softmax, (2, 3, 4), ranges=[(-10, 10)]),
        "int8_huge_scale": unary(tf.nn.softmax, (2, 6), ranges=[(-100, 100)]),
        "int8_tiny_scale": unary(tf.nn.softmax, (2, 6), ranges=[TINY]),
        "int8_size_1": unary(tf.nn.softmax, (1, 1)),
        "int16": unary(tf.nn.softmax, (1, 10), quant="16x8", ranges=[(-4, 4)]),
    },
    "conv_2d": {
        "int8_same": conv((1, 5, 5, 3), (3, 3, 3, 4)),
        "int8_valid_stride_2": conv((1, 7, 6, 2), (3, 2, 2, 3), strides=2, padding="VALID"),
        "int8_same_stride_2": conv((1, 6, 5, 2), (3, 3, 2, 2), strides=2),
        "int8_dilation_2": conv((1, 7, 7, 2), (3, 3, 2, 3), dilations=2, padding="VALID"),
        "int8_1x1_relu": conv((1, 4, 4, 5), (1, 1, 5, 3), act=relu),
        "int8_relu6": conv((1, 4, 4, 2), (2, 2, 2, 3), act=relu6, ranges=[(-4, 4)]),
        "int8_huge_scale": conv((1, 4, 4, 2), (3, 3, 2, 2), ranges=[HUGE]),
        "int8_zero_point_min": conv((1, 4, 4, 2), (3, 3, 2, 2), ranges=[POSITIVE]),
        "int8_size_1": conv((1, 1, 1, 1), (1, 1, 1, 1)),
        "int8_channels_8": conv((1, 4, 4, 8), (3, 3, 8, 8), ranges=[(-2, 2)]),
        "int8_1_x_n": conv((1, 1, 8, 4), (1, 3, 4, 2), padding="VALID"),
        "int8_1x1_stride_2": conv((1, 5, 5, 4), (1, 1, 4, 3), strides=2, padding="VALID"),
        "int8_tiny_weights": conv((1, 3, 3, 2), (3, 3, 2, 2), seed=11, w_scale=1e-4),
        "int16_huge_scale": conv((1, 4, 4, 2), (3, 3, 2, 2), quant="16x8", ranges=[HUGE]),
        "int16_same": conv((1, 5, 5, 3), (3, 3, 3, 4), quant="16x8"),
        "int16_valid_stride_2_relu": conv((1, 6, 6, 2), (2, 2, 2, 3), strides=2, padding="VALID", act=relu,
                                         quant="16x8"),
    },
    "depthwise_conv_2d": {
        "int8_same": depthwise((1, 5, 5, 3), 3, 1),
        "int8_multiplier_2": depthwise((1, 4, 4, 2), 3, 2),
        "int8_valid_stride_2": depthwise((1, 7, 7, 4), 3, 1, strides=2, padding="VALID"),
        "int8_dilation_2": depthwise((1, 7, 7, 2), 3, 1, dilations=2, padding="VALID"),
        "int8_relu6_multiplier_3": depthwise((1, 3, 3, 1), 2, 3, act=relu6, ranges=[(-4, 4)]),
        "int8_huge_scale": depthwise((1, 4, 4, 2), 3, 1, ranges=[HUGE]),
        "int8_size_1": depthwise((1, 1, 1, 1), 1, 1),
        "int8_3x3_channels_8": depthwise((1, 5, 5, 8), 3, 1),
        "int8_channels_4_zero_point_min": depthwise((1, 4, 4, 4), 3, 1, ranges=[POSITIVE]),
        "int8_dilation_2_multiplier_2": depthwise((1, 6, 6, 2), 2, 2, dilations=2),
        "int16_same": depthwise((1, 5, 5, 3), 3, 1, quant="16x8"),
        "int16_multiplier_2_relu": depthwise((1, 4, 4, 2), 3, 2, act=relu, quant="16x8"),
    },
    "fully_connected": {
        "int8": dense((1, 8), 4),
        "int8_no_bias": dense((1, 8), 4, bias=False),
        "int8_batch_3_relu": dense((3, 6), 5, act=relu),
        "int8_relu6": dense((1, 8), 3, act=relu6, ranges=[(-4, 4)]),
        "int8_huge_scale": dense((1, 8), 4, ranges=[HUGE]),
        "int8_zero_point_max": dense((1, 8), 4, ranges=[NEGATIVE]),
        "int8_size_1": dense((1, 1), 1),
        "int8_wide": dense((1, 40), 6, ranges=[(-3, 3)]),
        "int8_tiny_scale": dense((1, 8), 4, ranges=[TINY]),
        "int16_no_bias": dense((1, 8), 4, bias=False, quant="16x8"),
        "int16_huge_scale": dense((1, 8), 4, quant="16x8", ranges=[HUGE]),
        "int16": dense((1, 8), 4, quant="16x8"),
        "int16_batch_2_relu": dense((2, 6), 3, act=relu, quant="16x8"),
    },
    "transpose_conv": {
        "int8_same_stride_2": transpose_conv((1, 3, 3, 2), 3, 3, 2, "SAME"),
        "int8_valid_stride_1": transpose_conv((1, 3, 4, 3), 2, 2, 1, "VALID"),
        "int8_valid_stride_2": transpose_conv((1, 2, 2, 1), 3, 2, 2, "VALID"),
        "int8_huge_scale": transpose_conv((1, 3, 3, 2), 3, 2, 2, "SAME", ranges=[HUGE]),
        "int8_size_1": transpose_conv((1, 1, 1, 1), 1, 1, 1, "VALID"),
        "int8_zero_point_min_stride_3": transpose_conv((1, 2, 2, 2), 3, 2, 3, "SAME", ranges=[POSITIVE]),
        "int16_same_stride_2": transpose_conv((1, 2, 2, 2), 3, 2, 2, "SAME", quant="16x8"),
    },
}


def convert(case, seed):
    """The case's model, as TensorFlow's converter writes it."""
    signature = [tf.TensorSpec(shape, dtype) for shape, dtype in case.specs]
    concrete = case.fn.get_concrete_function(*signature)
    converter = tf.lite.TFLiteConverter.from_concrete_functions([concrete], case.fn)
    if case.quant:
        rng = np.random.default_rng(seed)

        def sample(shape, low, high):
            x = rng.uniform(low, high, size=shape).astype(np.float32)
            if case.inputs is not None:
                x.flat[0], x.flat[-1] = low, high
            return x

        def calibration():
            for _ in range(32):
                yield [sample(shape, low, high) for (shape, _), (low, high) in zip(case.specs, case.ranges)]

        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = calibration
        converter.target_spec.supported_ops = [INT16 if case.quant == "16x8" else INT8]
        activations = tf.int16 if case.quant == "16x8" else tf.int8
        converter.inference_input_type, converter.inference_output_type = case.io or (activations, activations)
    return converter.convert()


def case_input(rng, d, k, float_bound, divisor):
    """Invocation `k`'s value of the input `d` describes (see the module's comment)."""
    dtype = np.dtype(d["dtype"])
    shape = [int(x) for x in d["shape"]]
    if dtype.kind == "f":
        low, high = -100.0 * float_bound, 100.0 * float_bound
        x = {1: np.full(shape, low), 2: np.full(shape, high)}.get(k)
        if x is None:
            x = rng.uniform(low if k == 0 else -float_bound, high if k == 0 else float_bound, size=shape)
            if k == 0 and x.size:
                x.flat[0], x.flat[-1] = low, high
        return x.astype(dtype)
    if dtype.kind == "b":
        x = rng.integers(0, 1, size=shape, endpoint=True).astype(dtype)
        return {1: np.zeros(shape, dtype), 2: np.ones(shape, dtype)}.get(k, x)
    info = np.iinfo(dtype)
    if k == 1:
        x = np.full(shape, info.min, dtype)
    elif k == 2:
        x = np.full(shape, info.max, dtype)
    else:
        x = random_input(rng, d, narrow=k == 3)
        if k == 0 and x.size:
            x.flat[0], x.flat[-1] = info.min, info.max
    if divisor:
        x[(x == 0) | (x == -1)] = 1
    return x


def generate_case(case, path, folder):
    """The interpreter's results on the model at `path`, into `folder` (make_tflm_reference's
    layout)."""
    stem = os.path.relpath(path, os.path.dirname(os.path.dirname(path)))[: -len(".tflite")]

    def make_input(rng, details, k, i):
        if case.inputs is not None:
            return case.inputs(k, [int(x) for x in details["shape"]])
        bound = max(abs(b) for b in case.ranges[min(i, len(case.ranges) - 1)])
        return case_input(rng, details, k, bound, case.nonzero and i > 0)

    record(runtime.Interpreter.from_file(path), folder, stem, make_input)


def generate(out):
    for op, cases in CASES.items():
        for name, case in cases.items():
            os.makedirs(os.path.join(out, op), exist_ok=True)
            path = os.path.join(out, op, f"{name}.tflite")
            # The converter's chatter goes to stderr; a case it cannot make stops the script.
            model = convert(case, zlib.crc32(f"{op}/{name}".encode()))
            with open(path, "wb") as f:
                f.write(model)
            generate_case(case, path, os.path.join(out, op, name))


def compare(fresh, committed):
    """The first file that differs between the two trees, or None."""
    for root, _, files in os.walk(fresh):
        rel = os.path.relpath(root, fresh)
        other = os.path.join(committed, rel)
        _, mismatch, errors = filecmp.cmpfiles(root, other, sorted(files), shallow=False)
        if mismatch or errors:
            return os.path.join(rel, (mismatch + errors)[0])
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if not args.check:
        shutil.rmtree(OUT, ignore_errors=True)
        generate(OUT)
        return
    with tempfile.TemporaryDirectory() as fresh:
        generate(fresh)
        differs = compare(fresh, OUT) or compare(OUT, fresh)
        if differs:
            sys.exit(f"tflite-kernels/{differs} differs from what the script makes")
        print("tflite-kernels: the committed files are what the converter and the interpreter give")


if __name__ == "__main__":
    main()
