#!/usr/bin/env bash
# A Cargo feature may only add: for the firmware crate `arenaplan` on Cortex-M, every public item
# documented without a feature is documented with it too (rustdoc writes one page per item).
# Usage: scripts/check-features-add.sh   (from anywhere; uses target/features-add)
set -euo pipefail
cd "$(dirname "$0")/.."
target=thumbv8m.main-none-eabihf
out=target/features-add
items() { # the item pages rustdoc writes for one feature set (one target folder: shared deps)
  rm -rf "$out/$target/doc/arenaplan"
  CARGO_TARGET_DIR="$out" cargo doc --quiet -p arenaplan --no-deps --target "$target" ${1:+--features "$1"}
  (cd "$out/$target/doc/arenaplan" && find . -name '*.html' | sort)
}
base=$(items "")
for feature in simulator dcache-scb board tflite-kernels ethos-u-driver neutron-api; do
  with=$(items "$feature")
  lost=$(comm -23 <(echo "$base") <(echo "$with"))
  if [ -n "$lost" ]; then
    echo "feature \`$feature\` of arenaplan removes public items:" >&2
    echo "$lost" >&2
    exit 1
  fi
done
echo "features-add: each feature only adds to arenaplan's public items ($(echo "$base" | wc -l) pages without)"
