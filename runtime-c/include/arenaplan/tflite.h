/*
 * TFLite's builtin operators (and TFLite Micro's signal library's custom ones) as kernels of
 * the runtime, on Arm's CMSIS-NN (built in when CMSIS_NN_PATH names it). Each kernel's last
 * input is a constant of parameters the build computed from the model as TFLite Micro
 * computes them when it prepares the operator (quantized multipliers and shifts, offsets,
 * activation ranges).
 *
 * Both halves are generated from arenaplan-build's one definition of each
 * (build-support/src/kernels/tflite/): the parameter layouts (layouts.rs) in
 * arenaplan/tflite_params.h, the kernels and their registry (registry.rs) in
 * arenaplan/tflite_kernels.h. A C kernel includes this header.
 */
#ifndef ARENAPLAN_TFLITE_H
#define ARENAPLAN_TFLITE_H

#include "arenaplan/runtime.h"
#include "arenaplan/tflite_params.h"
#include "arenaplan/tflite_kernels.h"

#endif /* ARENAPLAN_TFLITE_H */
