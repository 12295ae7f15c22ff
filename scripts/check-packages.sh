#!/usr/bin/env bash
# The path a firmware team outside this repository takes, proved from the packages alone:
#   1. `cargo package --workspace` (each package verified: it builds from its own contents);
#   2. a firmware crate outside the workspace — the Corstone-300 example as packaged, so its
#      manifest names `arenaplan = "0.1.0"` like a team's would — built and run on the host,
#      built for thumbv8m.main-none-eabihf and run on QEMU, resolving arenaplan's crates to the
#      unpacked packages only (`[patch.crates-io]`: none of them is on a registry yet);
#   3. the `arenaplan` CLI installed from its package into a temporary folder and run on a
#      corpus model.
# Needs what .ci/run installs (the thumbv8m target, qemu-system-arm). Writes only under a
# temporary folder, Cargo's home included (see below): nothing of the user's is changed.
set -Eeuo pipefail
# A failing command names itself and its line (set -e alone would end the script silently).
trap 'echo "check-packages.sh: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
root=$PWD
corpus_model=${CORPUS_MODEL:-$root/../shared/corpus/pte-delegated/ethosu_u55_kws_ref.pte}

work=$(mktemp -d "${TMPDIR:-/tmp}/arenaplan-packages.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "-- cargo package --workspace (verified)"
# Verification builds each package against a local registry of the fresh packages. Cargo takes
# registry sources as immutable: a source extracted, or a crate built, from an earlier package of
# the same name and version (0.1.0 until a release) would be reused. So every step runs with a
# Cargo home of its own, fresh each time: the user's registry index, downloaded crates and
# configuration copied in (no download again), and a target folder of its own.
user_home=${CARGO_HOME:-$HOME/.cargo}
export CARGO_HOME="$work/cargo-home"
mkdir -p "$CARGO_HOME/registry"
for part in index cache; do
  if [ -d "$user_home/registry/$part" ]; then cp -R "$user_home/registry/$part" "$CARGO_HOME/registry/"; fi
done
for config in config.toml config; do
  if [ -f "$user_home/$config" ]; then cp "$user_home/$config" "$CARGO_HOME/"; fi
done
# arenaplan-firmware-test is CI's harness for the docs' examples: it compiles files of the
# runtime crate by relative path, which no package of its own can hold (it is never published).
CARGO_TARGET_DIR="$work/package-target" cargo package --workspace --exclude arenaplan-firmware-test --quiet --allow-dirty
packages="$work/package-target/package"

echo "-- unpack the library and CLI packages"
mkdir -p "$work/packages"
published=(arenaplan arenaplan-macros arenaplan-syntax arenaplan-planner arenaplan-build arenaplan-cli arenaplan-host arenaplan-kernels)
for crate in "${published[@]}"; do
  tar -xzf "$packages/$crate-0.1.0.crate" -C "$work/packages"
done
# Every arenaplan crate from its unpacked package, whatever asks for it.
patch_toml() {
  echo "[patch.crates-io]"
  for crate in "${published[@]}"; do
    echo "$crate = { path = \"$work/packages/$crate-0.1.0\" }"
  done
}
patch_flags=()
for crate in "${published[@]}"; do
  patch_flags+=(--config "patch.crates-io.$crate.path=\"$work/packages/$crate-0.1.0\"")
done

echo "-- a firmware crate outside the workspace, from the example's package"
tar -xzf "$packages/ethos-u-corstone300-0.0.0.crate" -C "$work"
firmware="$work/ethos-u-corstone300-0.0.0"
# Its own workspace, its own lock file, and arenaplan's crates from the packages.
rm -f "$firmware/Cargo.lock"
{ echo; echo "[workspace]"; echo; patch_toml; } >> "$firmware/Cargo.toml"
if grep -n '"\.\./' "$firmware/Cargo.toml"; then
  echo "the packaged firmware manifest still points into the repository" >&2
  exit 1
fi
(
  cd "$firmware"
  export CARGO_TARGET_DIR="$work/target"
  cargo run --quiet
  cargo build --quiet --target thumbv8m.main-none-eabihf
  timeout 120 qemu-system-arm -M mps3-an547 -nographic -semihosting-config enable=on,target=native \
    -kernel "$work/target/thumbv8m.main-none-eabihf/debug/ethos-u-corstone300"
)

echo "-- the CLI installed from its package"
# Not --locked: the package's lock file would ask crates.io for arenaplan's own crates.
CARGO_TARGET_DIR="$work/cli-target" cargo install --quiet --path "$work/packages/arenaplan-cli-0.1.0" \
  --root "$work/install" "${patch_flags[@]}"
"$work/install/bin/arenaplan" --version
"$work/install/bin/arenaplan" plan --target corstone-300 --model "$corpus_model" --emit all \
  --out "$work/cli-out"
for f in "$work/cli-out"/*.h "$work/cli-out"/*.x "$work/cli-out"/*.plan.json; do
  test -s "$f" || { echo "the installed CLI wrote no $f" >&2; exit 1; }
done
echo "packages: the firmware crate ran on the host and QEMU, the installed CLI planned $(basename "$corpus_model")"
