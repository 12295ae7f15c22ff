#!/usr/bin/env bash
# CMake's fetch of a vendor's sources (runtime-c/cmake/arenaplan_vendors.cmake), end to end
# without the network: CMSIS-NN's files from ../shared/third_party made into a git repository
# of their own, served as the "mirror" ARENAPLAN_TFLITE_KERNELS_GIT_REPOSITORY names (its
# commit, not the tested one, which only GitHub has). The runtime with the TFLite kernels is
# configured with no path set and built from what was fetched; a mirror without CMSIS-NN's
# header is refused, naming the variable to set.
set -Eeuo pipefail
trap 'echo "check-cmake-fetch.sh: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
cd "$(dirname "$0")/.."
root=$PWD
cmsis_nn=${CMSIS_NN_SOURCES:-$root/../shared/third_party/cmsis-nn}
work=$(mktemp -d "${TMPDIR:-/tmp}/arenaplan-fetch.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

# Two repositories: CMSIS-NN's sources, and one without them.
git_repo() {
  git -C "$1" init -q
  git -C "$1" add -A
  git -C "$1" -c user.name=ci -c user.email=ci@localhost commit -qm sources
  git -C "$1" rev-parse HEAD
}
cp -R "$cmsis_nn" "$work/cmsis-nn"
good=$(git_repo "$work/cmsis-nn")
mkdir -p "$work/empty" && echo "not CMSIS-NN" > "$work/empty/README"
bad=$(git_repo "$work/empty")

mkdir -p "$work/project"
cat > "$work/project/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.18)
project(fetch_check C)
add_subdirectory("$root/runtime-c" arenaplan)
CMAKE

configure() { # <build folder> <repository> <commit>
  env -u CMSIS_NN_PATH -u ETHOS_U_CORE_DRIVER_PATH -u NXP_NEUTRON_DRIVER_PATH \
    cmake -S "$work/project" -B "$1" -DARENAPLAN_FEATURE_TFLITE_KERNELS=ON \
    -DARENAPLAN_TFLITE_KERNELS_GIT_REPOSITORY="file://$2" -DARENAPLAN_TFLITE_KERNELS_GIT_TAG="$3"
}

echo "-- fetched at a commit, then built"
configure "$work/good" "$work/cmsis-nn" "$good" > "$work/good.log" 2>&1 \
  || { cat "$work/good.log" >&2; exit 1; }
grep -q "fetching Arm's CMSIS-NN at $good" "$work/good.log"
cmake --build "$work/good" --target arenaplan_runtime -j 2 > "$work/build.log" 2>&1 \
  || { tail -n 30 "$work/build.log" >&2; exit 1; }
# The kernels and CMSIS-NN were compiled, from the fetched copy.
test -f "$work/good/arenaplan/libarenaplan_cmsis_nn.a"
grep -q "_deps/arenaplan_tflite_kernels-src/Include" "$work/good/arenaplan/CMakeFiles/arenaplan_cmsis_nn.dir/flags.make"
nm "$work/good/arenaplan/libarenaplan_runtime.a" > "$work/symbols"
grep -Eq " [DR] ap_kernel_tflite_3aCONV__2D$" "$work/symbols"

echo "-- a repository without CMSIS-NN is refused, naming the variable"
if configure "$work/bad" "$work/empty" "$bad" > "$work/bad.log" 2>&1; then
  echo "a repository without Include/arm_nnfunctions.h was accepted" >&2; exit 1
fi
# CMake wraps its messages: one line of words to search.
tr -s ' \n' '  ' < "$work/bad.log" > "$work/bad.txt"
grep -q "has no Include/arm_nnfunctions.h" "$work/bad.txt"
grep -q "set ARENAPLAN_CMSIS_NN to a checkout of https://github.com/ARM-software/CMSIS-NN at 99f736a" "$work/bad.txt" \
  || { cat "$work/bad.log" >&2; exit 1; }
echo "CMake fetched CMSIS-NN ($good) and built the TFLite kernels from it; a wrong repository is refused"
