#!/usr/bin/env bash
# Fills fuzz/corpus/<target> with the repository's own models as starting points (the corpus
# folder is not committed): .pte fixtures and exported programs for `pte` and `codegen`, TOML models (behind a `#`,
# which tells `codegen` to read TOML) for `codegen`. Usage: fuzz/seeds.sh (from build-support/).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p fuzz/corpus/codegen fuzz/corpus/pte
for f in testdata/fixtures/*.pte; do
  cp "$f" fuzz/corpus/pte/
  cp "$f" "fuzz/corpus/codegen/$(basename "$f")"
done
# The programs ExecuTorch itself exported: lists, None, in-place state, views, branches.
for d in testdata/exported/*/; do
  case_name=$(basename "$d")
  cp "$d/program.pte" "fuzz/corpus/pte/exported-$case_name.pte"
  cp "$d/program.pte" "fuzz/corpus/codegen/exported-$case_name.pte"
done
n=0
for f in testdata/models/*.toml firmware-test/model.toml ../examples/rust-backend/model.toml; do
  { printf '#'; cat "$f"; } > "fuzz/corpus/codegen/toml-$n"
  n=$((n + 1))
done
