#!/usr/bin/env python3
"""Every package the workspace publishes carries the metadata crates.io and docs.rs show:
description, license, readme, documentation, keywords, categories and the rust-version CI
checks (.ci/run's MSRV step). Prints what is missing, per package, and exits 1 if anything is."""
import json
import subprocess
import sys

REQUIRED = ["description", "license", "readme", "documentation", "rust_version", "edition"]

meta = json.loads(
    subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
)
problems = []
published = 0
for package in meta["packages"]:
    if package.get("publish") == []:
        continue  # publish = false: examples and tests
    published += 1
    missing = [field for field in REQUIRED if not package.get(field)]
    missing += [field for field in ("keywords", "categories") if not package.get(field)]
    if missing:
        problems.append(f"{package['manifest_path']}: no {', '.join(missing)}")
for problem in problems:
    print(problem, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"{published} published packages, each with {', '.join(REQUIRED)}, keywords and categories")
