#!/usr/bin/env bash
# Firmware for a board, checked by its symbols: check-board-elf.sh ELF SYMBOL...
# Every SYMBOL is defined in ELF's code (Arm's driver, the board bring-up, ...), and nothing of
# the emulated NPU is linked (a board's firmware never ships the simulator). One rule for CI's
# board builds: the Corstone-300 example, the README's crate, the C integrator for Cortex-M55.
set -Eeuo pipefail
elf=$1
shift
symbols=$(arm-none-eabi-nm "$elf")
for needed in "$@"; do
  grep -q " T $needed\$" <<<"$symbols" || { echo "$elf: the board firmware does not link $needed" >&2; exit 1; }
done
if grep -E ' (ap_ethosu_npu_run|ap_ethosu_host_setup)$' <<<"$symbols"; then
  echo "$elf: the board firmware links the simulator" >&2
  exit 1
fi
