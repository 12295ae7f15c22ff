#!/usr/bin/env bash
# Prints the runtime README's "Dispatch cost" table: instructions the C executor spends per
# delegate call, backend excluded, counted by callgrind over the 1,000 calls of
# runtime-c/cbench/dispatch.c (instruction counts, not time: the same on every run).
set -euo pipefail
cd "$(dirname "$0")/../runtime-c"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
cc -O2 -Iinclude core/runtime.c cbench/dispatch.c -o "$out/dispatch"
valgrind --tool=callgrind --callgrind-out-file="$out/cg.out" "$out/dispatch" >/dev/null 2>&1
report="$(callgrind_annotate --inclusive=yes --threshold=100 "$out/cg.out")"
count() { echo "$report" | grep -E "[^_a-z]$1( |$)" | head -n 1 | awk '{gsub(",", "", $1); print $1}'; }
execute="$(count ap_method_execute)"
backend="$(count noop_execute)"
calls=1000
echo "| measure | instructions |"
echo "|---|---:|"
echo "| \`ap_method_execute\`, inclusive, $calls calls | $execute |"
echo "| of which the backend (\`noop_execute\`) | $backend |"
echo "| **executor per delegate call** | **$(( (execute - backend) / calls ))** |"
echo
echo "($(cc --version | head -n 1), -O2, $(uname -m))"
