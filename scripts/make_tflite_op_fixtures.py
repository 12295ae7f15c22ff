#!/usr/bin/env python3
"""Makes build-support/testdata/tflite-ops/: small int8 TFLite models, exported by TensorFlow's
own converter, that use the operators the corpus's models do not (MAX_POOL_2D, MUL, PAD,
CONCATENATION, float QUANTIZE at the input, DEQUANTIZE at the output), with the TFLite Micro
interpreter's results on them in build-support/testdata/tflm-reference/ (as
scripts/make_tflm_reference.py writes them for the corpus).

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


def convert(model):
    rng = np.random.default_rng(11)

    def calibration():
        for _ in range(32):
            yield [rng.uniform(-1.0, 1.0, size=(1, 8, 8, 3)).astype(np.float32)]

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = calibration
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    return converter.convert()


def main():
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "tf_int8_ops.tflite")
    with open(path, "wb") as f:
        f.write(convert(ops_model()))
    make_tflm_reference.generate_models([path], make_tflm_reference.OUT)


if __name__ == "__main__":
    main()
