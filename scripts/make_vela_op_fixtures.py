#!/usr/bin/env python3
"""Regenerates build-support/testdata/vela-ops/: TFLite models whose TFLM references the
repository already has (build-support/testdata/tflm-reference/), compiled by Arm's Vela for each
Ethos-U55 configuration and memory mode a target can name, and for each Ethos-U85 configuration
(128 to 2048 MACs, Dedicated_Sram; the -256 also in Shared_Sram), so the emulated NPU is checked against TFLite Micro on every
MAC count (its SHRAM, LUT place and weight order follow it) and on streams that place
constants and arena differently.

    python3 -m venv /tmp/fx && /tmp/fx/bin/pip install -r scripts/requirements-fixtures.txt
    /tmp/fx/bin/python scripts/make_vela_op_fixtures.py           # rewrite the files
    /tmp/fx/bin/python scripts/make_vela_op_fixtures.py --check   # regenerate elsewhere, compare

The models: TensorFlow's exports of the operators the corpus does not use
(testdata/tflite-ops/: MAX_POOL_2D, PAD, MUL, CONCATENATION; TRANSPOSE_CONV, MEAN,
STRIDED_SLICE, MAXIMUM, MINIMUM, RELU; the 16x8 CONV_2D, DEPTHWISE_CONV_2D, ADD, MUL, poolings
and FULLY_CONNECTED; the 16x8 LOGISTIC and TANH over their input range) and
scripts/make_fixtures.py's convolution and pooling (testdata/fixtures/).
Out: `<model>__<accelerator>__<memory mode>.tflite`, and `manifest.json` naming, per file, the
reference folder and the target of `targets.toml` (beside it) whose NPU it was compiled for.
Vela is deterministic: a run reproduces the committed files byte for byte.
"""

import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "build-support", "testdata")
OUT = os.path.join(TESTDATA, "vela-ops")

MODELS = [
    os.path.join(TESTDATA, "tflite-ops", "tf_int8_ops.tflite"),
    os.path.join(TESTDATA, "tflite-ops", "tf_int8_ops2.tflite"),
    os.path.join(TESTDATA, "tflite-ops", "tf_int16_ops.tflite"),
    os.path.join(TESTDATA, "tflite-ops", "tf_int16_act.tflite"),
    os.path.join(TESTDATA, "fixtures", "fixture_conv.tflite"),
    os.path.join(TESTDATA, "fixtures", "fixture_pool.tflite"),
]

# (accelerator, memory mode, Vela system configuration, target in vela-ops/targets.toml). Vela's
# U55 system configurations have no DRAM, so no Dedicated_Sram for the U55 (that mode is the
# U65's and U85's).
U55_SYSTEM = "Ethos_U55_High_End_Embedded"
CONFIGS = [
    ("ethos-u55-32", "Shared_Sram", U55_SYSTEM, "u55-32-shared-sram"),
    ("ethos-u55-64", "Shared_Sram", U55_SYSTEM, "u55-64-shared-sram"),
    ("ethos-u55-128", "Shared_Sram", U55_SYSTEM, "corstone-300"),
    ("ethos-u55-256", "Shared_Sram", U55_SYSTEM, "u55-256-shared-sram"),
    ("ethos-u55-128", "Sram_Only", U55_SYSTEM, "u55-128-sram-only"),
    ("ethos-u85-128", "Dedicated_Sram", "Ethos_U85_SYS_DRAM_Mid", "u85-128-dedicated-sram"),
    ("ethos-u85-256", "Dedicated_Sram", "Ethos_U85_SYS_DRAM_Mid", "corstone-320"),
    ("ethos-u85-256", "Shared_Sram", "Ethos_U85_SYS_Flash_High", "u85-256-shared-sram"),
    ("ethos-u85-512", "Dedicated_Sram", "Ethos_U85_SYS_DRAM_Mid", "u85-512-dedicated-sram"),
    ("ethos-u85-1024", "Dedicated_Sram", "Ethos_U85_SYS_DRAM_Mid", "u85-1024-dedicated-sram"),
    ("ethos-u85-2048", "Dedicated_Sram", "Ethos_U85_SYS_DRAM_Mid", "u85-2048-dedicated-sram"),
]


def compile_all(out):
    os.makedirs(out, exist_ok=True)
    manifest = []
    with tempfile.TemporaryDirectory(prefix="arenaplan-vela-ops-") as work:
        for model in MODELS:
            stem = os.path.basename(model)[: -len(".tflite")]
            for accelerator, mode, system, target in CONFIGS:
                dest = os.path.join(work, f"{accelerator}-{mode}")
                subprocess.run(
                    ["vela", f"--accelerator-config={accelerator}", f"--system-config={system}",
                     f"--memory-mode={mode}", f"--output-dir={dest}", model],
                    check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                )
                name = f"{stem}__{accelerator}__{mode}.tflite"
                shutil.copyfile(os.path.join(dest, stem + "_vela.tflite"), os.path.join(out, name))
                manifest.append({"file": name, "reference": stem, "target": target,
                                 "accelerator": accelerator, "memory_mode": mode,
                                 "system_config": system})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump({"vela": "ethos-u-vela 5.2.0", "models": manifest},
                  f, indent=1, sort_keys=True)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if not args.check:
        compile_all(OUT)
        return
    with tempfile.TemporaryDirectory() as fresh:
        compile_all(fresh)
        names = sorted(os.listdir(fresh))
        _, mismatch, errors = filecmp.cmpfiles(fresh, OUT, names, shallow=False)
        if mismatch or errors:
            sys.exit(f"vela-ops differs: {mismatch + errors}")
        print("vela-ops: the committed files are what Vela gives")


if __name__ == "__main__":
    main()
