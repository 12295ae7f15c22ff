#!/usr/bin/env python3
"""Regenerates build-support/testdata/tflm-reference/: what the TFLite Micro interpreter (the
`tflite-micro` package, the reference runtime for `.tflite`) makes of each TFLite model of the
corpus (../shared/corpus/tflite/) on fixed inputs, for the tests to compare against.

    python3 -m venv /tmp/tflm && /tmp/tflm/bin/pip install -r scripts/requirements-tflm.txt
    /tmp/tflm/bin/python scripts/make_tflm_reference.py           # rewrite the files
    /tmp/tflm/bin/python scripts/make_tflm_reference.py --check   # regenerate elsewhere, compare

Per model, in a folder named after it:
  io.json            every input and output as the interpreter reports it: shape, dtype,
                     quantization (scales as float32 bit patterns, zero points, axis)
  K-inI.npy          input I of invocation K (K = 0 to 3: a model with variable tensors keeps
                     state from each to the next, as TFLM keeps it; before the first, TFLM's
                     reset puts them at their reset values, as firmware does for a new stream)
  K-outO.npy         output O of invocation K

The inputs are pseudo-random, seeded by the model's name: the same on every machine. The first
invocation's are over the dtype's whole range; the later ones' near the input's zero point (a
sixteenth of the range either side), which most models' outputs do not saturate on, so that
what the state carried changes them. The corpus's models are not copied here, only these
results.
"""

import argparse
import filecmp
import json
import os
import struct
import sys
import tempfile
import zlib

import numpy as np
from tflite_micro.python.tflite_micro import runtime

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "..", "shared", "corpus", "tflite")
OUT = os.path.join(HERE, "..", "build-support", "testdata", "tflm-reference")
INVOCATIONS = 4


def count(details):
    """How many inputs or outputs the interpreter has (it raises past the last)."""
    n = 0
    while True:
        try:
            details(n)
        except (IndexError, RuntimeError, ValueError):
            return n
        n += 1


def describe(d):
    q = d["quantization_parameters"]
    return {
        "shape": [int(x) for x in d["shape"]],
        "dtype": np.dtype(d["dtype"]).name,
        "scale_bits": [struct.unpack("<I", struct.pack("<f", float(s)))[0] for s in q["scales"]],
        "zero_point": [int(z) for z in q["zero_points"]],
        "axis": int(q["quantized_dimension"]),
    }


def random_input(rng, d, narrow):
    dtype = np.dtype(d["dtype"])
    shape = [int(x) for x in d["shape"]]
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not narrow:
            return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)
        zero = [int(z) for z in d["quantization_parameters"]["zero_points"]] or [0]
        spread = (int(info.max) - int(info.min) + 1) // 32
        low = max(int(info.min), zero[0] - spread)
        high = min(int(info.max), zero[0] + spread)
        return rng.integers(low, high, size=shape, endpoint=True).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 1, size=shape, endpoint=True).astype(dtype)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def generate(out):
    models = sorted(f for f in os.listdir(CORPUS) if f.endswith(".tflite"))
    if not models:
        sys.exit(f"no .tflite models in {CORPUS}")
    generate_models([os.path.join(CORPUS, m) for m in models], out)
    fixtures = os.path.join(HERE, "..", "build-support", "testdata", "tflite-ops")
    if os.path.isdir(fixtures):
        generate_models(
            sorted(os.path.join(fixtures, f) for f in os.listdir(fixtures) if f.endswith(".tflite")),
            out,
        )
    # The uncompiled models behind the repository's own Vela fixtures (scripts/make_fixtures.py):
    # the references of their `_vela_u55`/`_vela_u85` forms on the emulated NPUs.
    vela_fixtures = os.path.join(HERE, "..", "build-support", "testdata", "fixtures")
    generate_models(
        sorted(
            os.path.join(vela_fixtures, f)
            for f in os.listdir(vela_fixtures)
            if f.endswith(".tflite") and "_vela" not in f
        ),
        out,
    )
    # The fixtures' two-call ExecuTorch programs run the convolution, then the pooling on its
    # output: TFLM's two interpreters chained give their reference.
    generate_chain(
        [os.path.join(vela_fixtures, "fixture_conv.tflite"), os.path.join(vela_fixtures, "fixture_pool.tflite")],
        os.path.join(out, "fixture_conv_then_pool"),
    )


def generate_chain(paths, folder):
    """A reference folder for models run one after another, each one's output 0 the next one's
    input 0: the first's inputs, the last's outputs."""
    os.makedirs(folder, exist_ok=True)
    interpreters = [runtime.Interpreter.from_file(p) for p in paths]
    first, last = interpreters[0], interpreters[-1]
    io = {
        "inputs": [describe(first.get_input_details(0))],
        "outputs": [describe(last.get_output_details(0))],
        "invocations": INVOCATIONS,
    }
    rng = np.random.default_rng(zlib.crc32(os.path.basename(folder).encode()))
    for interpreter in interpreters:
        interpreter.reset()
    for k in range(INVOCATIONS):
        x = random_input(rng, first.get_input_details(0), narrow=k > 0)
        np.save(os.path.join(folder, f"{k}-in0.npy"), x)
        for interpreter in interpreters:
            interpreter.set_input(x, 0)
            interpreter.invoke()
            x = np.array(interpreter.get_output(0))
        np.save(os.path.join(folder, f"{k}-out0.npy"), x)
    with open(os.path.join(folder, "io.json"), "w") as f:
        json.dump(io, f, indent=1, sort_keys=True)
        f.write("\n")


def record(interpreter, folder, stem, make_input):
    """Runs `interpreter` INVOCATIONS times from its reset on the inputs
    `make_input(rng, details, k, i)` gives (`rng` seeded by `stem`), and writes into `folder` each
    invocation's inputs and outputs (`k-inI.npy`, `k-outO.npy`) and `io.json`: the one layout the
    tests read."""
    os.makedirs(folder, exist_ok=True)
    inputs = count(interpreter.get_input_details)
    outputs = count(interpreter.get_output_details)
    io = {
        "inputs": [describe(interpreter.get_input_details(i)) for i in range(inputs)],
        "outputs": [describe(interpreter.get_output_details(o)) for o in range(outputs)],
        "invocations": INVOCATIONS,
    }
    rng = np.random.default_rng(zlib.crc32(stem.encode()))
    # Variable tensors at their reset values (the arena's first contents are undefined).
    interpreter.reset()
    for k in range(INVOCATIONS):
        for i in range(inputs):
            x = make_input(rng, interpreter.get_input_details(i), k, i)
            interpreter.set_input(x, i)
            np.save(os.path.join(folder, f"{k}-in{i}.npy"), x)
        interpreter.invoke()
        for o in range(outputs):
            np.save(os.path.join(folder, f"{k}-out{o}.npy"), np.array(interpreter.get_output(o)))
    with open(os.path.join(folder, "io.json"), "w") as f:
        json.dump(io, f, indent=1, sort_keys=True)
        f.write("\n")


def generate_models(paths, out):
    """The reference folder of each model at `paths`, under `out`."""
    for path in paths:
        stem = os.path.basename(path)[: -len(".tflite")]
        record(
            runtime.Interpreter.from_file(path),
            os.path.join(out, stem),
            stem,
            lambda rng, d, k, i: random_input(rng, d, narrow=k > 0),
        )


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if not args.check:
        generate(OUT)
        return
    with tempfile.TemporaryDirectory() as fresh:
        generate(fresh)
        for stem in sorted(os.listdir(fresh)):
            names = sorted(os.listdir(os.path.join(fresh, stem)))
            _, mismatch, errors = filecmp.cmpfiles(os.path.join(fresh, stem), os.path.join(OUT, stem),
                                                   names, shallow=False)
            if mismatch or errors:
                sys.exit(f"tflm-reference/{stem} differs: {mismatch + errors}")
        print("tflm-reference: the committed files are what the interpreter gives")


if __name__ == "__main__":
    main()
