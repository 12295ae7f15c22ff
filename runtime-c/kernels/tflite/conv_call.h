/* The argument check CONV_2D and DEPTHWISE_CONV_2D share (conv_call.c). */
#ifndef ARENAPLAN_TFLITE_CONV_CALL_H
#define ARENAPLAN_TFLITE_CONV_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/tflite.h"

#include "arm_nnfunctions.h"

/* A convolution's arguments, checked against its parameters and turned into CMSIS-NN's. */
typedef struct ap_tflite_conv_call {
    const int8_t *input, *filter;
    const int32_t *bias;
    /* A 16x8 call's: int16 activations, an int64 bias. */
    const int16_t *input16;
    int16_t *output16;
    const int64_t *bias64;
    int8_t *output;
    ap_tflite_conv_params_t p;
    cmsis_nn_per_channel_quant_params quant;
    cmsis_nn_dims input_dims, filter_dims, bias_dims, output_dims;
    cmsis_nn_context nn;
} ap_tflite_conv_call_t;

/* Checks a convolution's arguments (`depthwise`: DEPTHWISE_CONV_2D's filter layout; `wide`: a
 * 16x8 call, int16 input and output, int64 bias) against its parameters and fills `c`: 1 when
 * they fit, 0 (having read only the parameters) when not. */
int ap_tflite_conv_call(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, int depthwise, int wide,
                        ap_tflite_conv_call_t *c);

#endif /* ARENAPLAN_TFLITE_CONV_CALL_H */
