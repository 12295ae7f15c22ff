/* TFLite's builtin operators on CMSIS-NN (see arenaplan/tflite.h): each kernel checks its
 * arguments against its parameters before CMSIS-NN reads or writes a byte. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "arm_nnfunctions.h"

/* The parameters constant, copied (a constant's bytes need not be aligned for int32). */
static int read_params(const ap_buffer_t *b, void *out, size_t size) {
    if (b->data == NULL || b->size != size) {
        return 0;
    }
    memcpy(out, b->data, size);
    return 1;
}

static ap_status_t fully_connected(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->noutputs != 1 || (ctx->ninputs != 3 && ctx->ninputs != 4) ||
        nargs < (size_t)ctx->ninputs + 1u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *input = &args[0], *filter = &args[1], *bias = n == 4 ? &args[2] : NULL;
    ap_buffer_t *output = &args[n];
    ap_tflite_fc_params_t p;
    if (!read_params(&args[n - 1], &p, sizeof p) || p.output_depth <= 0) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const size_t depth = (size_t)p.output_depth;
    if (output->size == 0 || output->size % depth != 0 || filter->size % depth != 0) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const size_t batches = output->size / depth, accum = filter->size / depth;
    if (accum == 0 || input->size != batches * accum || accum > INT32_MAX || batches > INT32_MAX ||
        (bias != NULL && bias->size != depth * sizeof(int32_t))) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    /* CMSIS-NN reads the bias as int32_t: an unaligned constant is copied first. */
    int32_t aligned_bias[64];
    const int32_t *bias_data = NULL;
    if (bias != NULL) {
        if (((uintptr_t)bias->data & 3u) == 0) {
            bias_data = (const int32_t *)(const void *)bias->data;
        } else if (depth <= sizeof aligned_bias / sizeof aligned_bias[0]) {
            memcpy(aligned_bias, bias->data, bias->size);
            bias_data = aligned_bias;
        } else {
            return AP_ERR_BAD_ARGUMENTS;
        }
    }
    const cmsis_nn_context nn = {NULL, 0};
    const cmsis_nn_fc_params fc = {p.input_offset, p.filter_offset, p.output_offset,
                                   {p.activation_min, p.activation_max}};
    const cmsis_nn_per_tensor_quant_params quant = {p.multiplier, p.shift};
    const cmsis_nn_dims input_dims = {(int32_t)batches, 1, 1, (int32_t)accum};
    const cmsis_nn_dims filter_dims = {(int32_t)accum, 1, 1, p.output_depth};
    const cmsis_nn_dims bias_dims = {1, 1, 1, p.output_depth};
    const cmsis_nn_dims output_dims = {(int32_t)batches, 1, 1, p.output_depth};
    arm_cmsis_nn_status s = arm_fully_connected_s8(&nn, &fc, &quant, &input_dims, (const int8_t *)input->data,
                                                   &filter_dims, (const int8_t *)filter->data, &bias_dims,
                                                   bias_data, &output_dims, (int8_t *)output->data);
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aFULLY__CONNECTED = {"tflite:FULLY_CONNECTED", fully_connected, NULL};
