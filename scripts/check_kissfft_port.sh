#!/usr/bin/env bash
# Runs scripts/kissfft_port_check.c: the runtime's SignalRfft against kissfft v130 (the release
# TFLite Micro pins, same URL and MD5), bit for bit. Needs curl, unzip and a C compiler; run by
# hand (the tests check the FFT through the audio preprocessor's TFLM reference).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curl -sSfL -o "$work/kissfft.zip" https://github.com/mborgerding/kissfft/archive/refs/tags/v130.zip
echo "438ba1fef5783cc5f5f201395cc477ca  $work/kissfft.zip" | md5sum -c --quiet
unzip -q "$work/kissfft.zip" -d "$work"
k="$work/kissfft-130"
runtime="$here/../runtime-c"
cc -O1 -std=c11 -DFIXED_POINT=16 -I"$k" -I"$runtime/include" -I"$runtime/kernels/tflite" \
  "$here/kissfft_port_check.c" "$k/kiss_fft.c" "$k/tools/kiss_fftr.c" \
  "$runtime/kernels/tflite/signal_rfft.c" "$runtime/kernels/tflite/kissfft.c" \
  -lm -o "$work/check"
"$work/check"
