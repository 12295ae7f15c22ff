/*
 * TFLite's builtin operators as kernels of the runtime, on Arm's CMSIS-NN (built in when
 * CMSIS_NN_PATH names it). Each kernel's last input is a constant of parameters the build
 * computed from the model as TFLite Micro computes them when it prepares the operator
 * (quantized multipliers and shifts, offsets, activation ranges): the layouts below, int32
 * little-endian, field by field, as arenaplan-build's TFLite importer writes them
 * (build-support/src/import/tflite_ops.rs).
 */
#ifndef ARENAPLAN_TFLITE_H
#define ARENAPLAN_TFLITE_H

#include <stdint.h>

#include "arenaplan/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* FULLY_CONNECTED, int8: inputs (input, filter, [bias int32,] params), output. */
typedef struct ap_tflite_fc_params {
    int32_t input_offset;  /* -input zero point */
    int32_t filter_offset; /* -filter zero point (0 for int8) */
    int32_t output_offset; /* output zero point */
    int32_t multiplier;    /* input scale x filter scale / output scale, as Q31 */
    int32_t shift;         /* and its power of two */
    int32_t activation_min;
    int32_t activation_max;
    int32_t output_depth;  /* the filter's rows */
} ap_tflite_fc_params_t;

/* The kernels, under the names programs use (`tflite:FULLY_CONNECTED`: the symbol rule makes
 * `:` `_3a` and `_` `__`). */
extern const ap_kernel_t ap_kernel_tflite_3aFULLY__CONNECTED;

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_TFLITE_H */
