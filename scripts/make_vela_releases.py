#!/usr/bin/env python3
"""Regenerates build-support/testdata/vela-releases/: our own fixture model
(build-support/testdata/fixtures/fixture_conv.tflite) compiled for ethos-u55-128 by earlier
releases of Arm's Vela, one file per release, so the tests run command streams of the ages
that firmware teams still ship (TFLM's examples carry streams from such releases).

    python3 scripts/make_vela_releases.py           # rewrite the files
    python3 scripts/make_vela_releases.py --check   # regenerate elsewhere, compare bytes

Each release gets a virtual environment of its own under --venvs (default /tmp/vela-releases),
with the release and the NumPy it still runs on pinned below; nothing is installed elsewhere.
The latest release's output is the fixture set's own (fixture_conv_vela_u55.tflite, by
scripts/make_fixtures.py). Vela's output is deterministic for a given release and input.
"""

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "build-support", "testdata")
MODEL = os.path.join(TESTDATA, "fixtures", "fixture_conv.tflite")
OUT = os.path.join(TESTDATA, "vela-releases")

# (ethos-u-vela, numpy): releases before 4.1 use `np.int` and friends, gone in NumPy 1.24.
RELEASES = [
    ("1.2.0", "1.23.5"),
    ("2.0.1", "1.23.5"),
    ("2.1.1", "1.23.5"),
    ("3.0.0", "1.23.5"),
    ("3.10.0", "1.23.5"),
    ("4.0.1", "1.23.5"),
]


def venv_for(release, numpy, root):
    env = os.path.join(root, "vela-" + release)
    vela = os.path.join(env, "bin", "vela")
    if not os.path.exists(vela):
        subprocess.run([sys.executable, "-m", "venv", env], check=True)
        subprocess.run([os.path.join(env, "bin", "pip"), "install", "--quiet",
                        "ethos-u-vela==" + release, "numpy==" + numpy], check=True)
    return vela


def generate(out, venvs):
    os.makedirs(out, exist_ok=True)
    for release, numpy in RELEASES:
        vela = venv_for(release, numpy, venvs)
        with tempfile.TemporaryDirectory() as work:
            subprocess.run([vela, "--accelerator-config=ethos-u55-128", "--output-dir=" + work, MODEL],
                           check=True, stdout=subprocess.DEVNULL)
            shutil.copyfile(os.path.join(work, "fixture_conv_vela.tflite"),
                            os.path.join(out, "fixture_conv_vela_" + release + ".tflite"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--venvs", default=os.path.join(tempfile.gettempdir(), "vela-releases"))
    args = parser.parse_args()
    if not args.check:
        generate(OUT, args.venvs)
        return
    with tempfile.TemporaryDirectory() as fresh:
        generate(fresh, args.venvs)
        names = sorted(os.listdir(fresh))
        _, mismatch, errors = filecmp.cmpfiles(fresh, OUT, names, shallow=False)
        if mismatch or errors or sorted(os.listdir(OUT)) != names:
            sys.exit(f"vela-releases differ: {mismatch + errors}")
        print("vela-releases: the committed files are what the releases write")


if __name__ == "__main__":
    main()
