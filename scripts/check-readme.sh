#!/usr/bin/env bash
# The README's projects, built as they stand there: every code block after a
# `<!-- file: PATH -->` line is written to PATH in a fresh folder outside the workspace, with a
# model beside it, then
#   - the firmware crate (Cargo.toml, build.rs, src/main.rs, memory.x) runs on the host, runs
#     on QEMU's mps3-an547 with its `qemu` feature (the emulated NPU), and builds for
#     thumbv8m.main-none-eabihf, where it must link Arm's driver and the board bring-up and no
#     simulator;
#   - the C project (c/CMakeLists.txt, c/main.c) configures, builds and runs with CMake.
# Nothing is added to the files but what a team adds by hand: a model, and (the crates being on
# no registry yet) `[patch.crates-io]` pointing at this checkout, in a Cargo config beside them.
# Needs what .ci/run installs; ETHOS_U_CORE_DRIVER_PATH for the board build.
set -Eeuo pipefail
trap 'echo "check-readme.sh: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
root=$PWD
model=$root/../shared/corpus/pte-delegated/ethosu_u55_kws_ref.pte
[ -f "$model" ] || model=$root/build-support/testdata/fixtures/ethosu_u55_two_calls.pte

work=$(mktemp -d "${TMPDIR:-/tmp}/arenaplan-readme.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "-- the README's files"
python3 - "$root/README.md" "$work" <<'EOF'
import pathlib, re, sys
readme, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
lines = readme.read_text().split("\n")
written = []
for i, line in enumerate(lines):
    m = re.fullmatch(r"<!-- file: ([A-Za-z0-9_./-]+) -->", line)
    if not m:
        continue
    if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
        sys.exit(f"README.md:{i + 1}: a file marker must be followed by a code block")
    end = next((j for j in range(i + 2, len(lines)) if lines[j] == "```"), None)
    if end is None:
        sys.exit(f"README.md:{i + 2}: the code block never ends")
    path = out / m.group(1)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines[i + 2:end]) + "\n")
    written.append(m.group(1))
for need in ["Cargo.toml", "build.rs", "src/main.rs", "memory.x", "c/CMakeLists.txt", "c/main.c"]:
    if need not in written:
        sys.exit(f"README.md: no `<!-- file: {need} -->` block")
print(" ".join(written))
EOF
mkdir -p "$work/model"
cp "$model" "$work/model/kws.pte"
cp "$model" "$work/c/kws.pte"

echo "-- the firmware crate on the host"
# The team's own workspace; arenaplan's crates from this checkout until they are published.
mkdir -p "$work/.cargo"
{
  echo "[patch.crates-io]"
  for crate in arenaplan=runtime-c arenaplan-macros=macros arenaplan-syntax=macros/syntax \
               arenaplan-build=build-support arenaplan-planner=build-support/planner; do
    echo "${crate%%=*} = { path = \"$root/${crate#*=}\" }"
  done
} > "$work/.cargo/config.toml"
echo "[workspace]" >> "$work/Cargo.toml"
export CARGO_TARGET_DIR=$root/target/readme
(cd "$work" && cargo run --quiet)

echo "-- the firmware crate on QEMU's Corstone-300 (mps3-an547), the emulated NPU"
(cd "$work" && cargo build --quiet --target thumbv8m.main-none-eabihf --features qemu)
timeout 120 qemu-system-arm -M mps3-an547 -nographic -semihosting-config enable=on,target=native \
  -kernel "$CARGO_TARGET_DIR/thumbv8m.main-none-eabihf/debug/kws-firmware" | tee "$work/qemu.txt"
grep -q '^first output byte: ' "$work/qemu.txt"

echo "-- the firmware crate for the board (thumbv8m.main-none-eabihf)"
(cd "$work" && cargo build --quiet --target thumbv8m.main-none-eabihf)
scripts/check-board-elf.sh "$CARGO_TARGET_DIR/thumbv8m.main-none-eabihf/debug/kws-firmware" \
  ethosu_init ethosu_invoke_v3 ap_board_ethosu_init ap_board_ethosu_irq

echo "-- the C project with CMake"
cmake -S "$work/c" -B "$work/c/build" -DARENAPLAN="$root/runtime-c" >/dev/null
cmake --build "$work/c/build" >/dev/null
"$work/c/build/app"
echo "readme: the firmware crate ran on the host and on QEMU and linked for the board; the C project ran"
