#!/usr/bin/env python3
"""The report's runtime-table figures are what the linker placed: sums the generated model_*
symbols of a Cortex-M ELF by section kind (arm-none-eabi-nm -S) and compares them with the
report's "Runtime tables" line. Usage: check-table-sizes.py ELF REPORT [PREFIX]"""
import re
import subprocess
import sys

elf, report = sys.argv[1], sys.argv[2]
prefix = sys.argv[3] if len(sys.argv) > 3 else "model_"
flash = ram = constants = 0
for line in subprocess.run(["arm-none-eabi-nm", "-S", elf], check=True, capture_output=True,
                           text=True).stdout.splitlines():
    fields = line.split()
    if len(fields) != 4 or not fields[3].startswith(prefix):
        continue
    size, kind, name = int(fields[1], 16), fields[2], fields[3]
    # Not the blobs, and not the integrator-facing tables of NAME.h (buffers, calls).
    if name in (prefix + "buffers", prefix + "calls"):
        continue
    if kind in "rR" and name.startswith(prefix + "const"):
        constants += size
    elif kind in "rR" and not name.startswith(prefix + "blob"):
        flash += size
    elif kind in "bBdD" and not name.startswith(prefix + "arena"):
        ram += size
text = open(report).read()
m = re.search(r"flash (\d+) B of const tables \(\+ \d+ B of blobs, (\d+) B of constants\); "
              r"RAM (\d+) B outside the arenas", text)
if not m:
    sys.exit(f"{report}: no runtime-tables line")
said = (int(m.group(1)), int(m.group(2)), int(m.group(3)))
if said != (flash, constants, ram):
    sys.exit(f"the report says flash {said[0]} B, constants {said[1]} B, RAM {said[2]} B; "
             f"the ELF has {flash} B, {constants} B, {ram} B")
print(f"runtime tables: flash {flash} B, constants {constants} B, RAM {ram} B, as the report says")
