#!/usr/bin/env python3
"""Makes build-support/testdata/tflite-ops/: small int8 TFLite models, exported by TensorFlow's
own converter, that use the operators the corpus's models do not — tf_int8_ops: MAX_POOL_2D,
MUL, PAD, CONCATENATION, float QUANTIZE at the input, DEQUANTIZE at the output; tf_int8_ops2:
TRANSPOSE_CONV, MEAN, STRIDED_SLICE, MAXIMUM and MINIMUM (broadcast), FULLY_CONNECTED with
per-channel weights, and a convolution whose
im2col buffer would grow the arena; tf_int16_ops: the 16x8 kernels (int16 activations, int8
weights) of CONV_2D, DEPTHWISE_CONV_2D, ADD, MUL, AVERAGE_POOL_2D, MAX_POOL_2D and
FULLY_CONNECTED, with QUANTIZE from and DEQUANTIZE to float; tf_int16_act: the 16x8 LOGISTIC and
TANH over most of their input range (the NPUs' int16 sigmoid and tanh: the Ethos-U55's own
functions, the Ethos-U85's interpolating tables) — with the TFLite Micro interpreter's results on them in
build-support/testdata/tflm-reference/ (as scripts/make_tflm_reference.py writes them for the
corpus).

    python3 -m venv /tmp/tflm
    /tmp/tflm/bin/pip install -r scripts/requirements-tflm.txt -r scripts/requirements-tf.txt
    /tmp/tflm/bin/python scripts/make_tflite_op_fixtures.py

The weights and the calibration data are pseudo-random with a fixed seed.
"""

import os
import sys

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_tflm_reference  # noqa: E402

OUT = os.path.join(HERE, "..", "build-support", "testdata", "tflite-ops")


def ops_model():
    """Float in, float out: conv, max pool, pad, a product and a concatenation of branches."""
    tf.keras.utils.set_random_seed(7)
    x = tf.keras.Input(shape=(8, 8, 3), batch_size=1)
    a = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")(x)
    a = tf.keras.layers.MaxPooling2D(2)(a)
    b = tf.keras.layers.ZeroPadding2D(((1, 0), (0, 1)))(a)
    b = tf.keras.layers.Conv2D(4, 2, padding="valid")(b)
    m = tf.keras.layers.Multiply()([a, b])
    c = tf.keras.layers.Concatenate(axis=-1)([a, m])
    y = tf.keras.layers.Conv2D(2, 1)(c)
    return tf.keras.Model(x, y)


def ops2_model():
    """Float in, two float outputs: transposed convolutions, slices, clips and means."""
    tf.keras.utils.set_random_seed(8)
    x = tf.keras.Input(shape=(8, 8, 4), batch_size=1)
    a = tf.keras.layers.Conv2DTranspose(6, 3, strides=2, padding="same")(x)
    a = tf.keras.layers.Conv2D(6, 3, padding="same")(a)
    a = tf.keras.layers.Lambda(lambda t: t[:, 1::3, ::2, 1:])(a)
    a = tf.keras.layers.Lambda(lambda t: tf.clip_by_value(t, -0.5, 0.5))(a)
    a = tf.keras.layers.Lambda(
        lambda t: tf.maximum(t, tf.reduce_mean(t, axis=[1, 2], keepdims=True))
    )(a)
    b = tf.keras.layers.Conv2DTranspose(3, 2, padding="valid", activation="relu")(x)
    g = tf.keras.layers.GlobalAveragePooling2D()(b)
    g = tf.keras.layers.Dense(4, activation="relu")(g)
    m = tf.keras.layers.Lambda(lambda t: tf.reduce_mean(t, axis=2))(a)
    return tf.keras.Model(x, [m, g])


def int16_model():
    """Float in, float out, for TensorFlow's 16x8 quantization."""
    tf.keras.utils.set_random_seed(9)
    x = tf.keras.Input(shape=(8, 8, 3), batch_size=1)
    a = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")(x)
    b = tf.keras.layers.DepthwiseConv2D(3, padding="same")(a)
    c = tf.keras.layers.Add()([a, b])
    c = tf.keras.layers.Multiply()([c, b])
    c = tf.keras.layers.AveragePooling2D(2)(c)
    d = tf.keras.layers.MaxPooling2D(2)(c)
    f = tf.keras.layers.Flatten()(d)
    y = tf.keras.layers.Dense(5)(f)
    return tf.keras.Model(x, y)


def int16_activations_model():
    """int16 in, two int16 outputs (no QUANTIZE or DEQUANTIZE: one NPU call after Vela):
    sigmoid and tanh of the input scaled well past their bends (the input's int16 range then
    spans their whole table)."""
    x = tf.keras.Input(shape=(32, 32, 1), batch_size=1)
    s = tf.keras.layers.Activation("sigmoid")(tf.keras.layers.Lambda(lambda t: t * 8.0)(x))
    t = tf.keras.layers.Activation("tanh")(tf.keras.layers.Lambda(lambda t: t * 4.0)(x))
    return tf.keras.Model(x, [s, t])


def convert(model, shape, ops=tf.lite.OpsSet.TFLITE_BUILTINS_INT8, io_type=None):
    rng = np.random.default_rng(11)

    def calibration():
        for _ in range(32):
            yield [rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)]

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = calibration
    converter.target_spec.supported_ops = [ops]
    if io_type is not None:
        converter.inference_input_type = io_type
        converter.inference_output_type = io_type
    return converter.convert()


def main():
    os.makedirs(OUT, exist_ok=True)
    paths = []
    int16 = tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8
    for name, model, shape, ops, io_type in [
        ("tf_int8_ops", ops_model(), (1, 8, 8, 3), tf.lite.OpsSet.TFLITE_BUILTINS_INT8, None),
        ("tf_int8_ops2", ops2_model(), (1, 8, 8, 4), tf.lite.OpsSet.TFLITE_BUILTINS_INT8, None),
        ("tf_int16_ops", int16_model(), (1, 8, 8, 3), int16, None),
        ("tf_int16_act", int16_activations_model(), (1, 32, 32, 1), int16, tf.int16),
    ]:
        path = os.path.join(OUT, f"{name}.tflite")
        with open(path, "wb") as f:
            f.write(convert(model, shape, ops, io_type))
        paths.append(path)
    make_tflm_reference.generate_models(paths, make_tflm_reference.OUT)


if __name__ == "__main__":
    main()
