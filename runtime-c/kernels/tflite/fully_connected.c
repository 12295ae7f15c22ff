/* FULLY_CONNECTED (see arenaplan/tflite.h): the int8 kernel on CMSIS-NN's
 * arm_fully_connected_s8, with the row sums the build computed as its scratch; the per-channel
 * variants (int8 and 16x8) a port of TFLM's reference FullyConnectedPerChannel, requantized by
 * CMSIS-NN's rules (TFLM's). Each checks its arguments against its parameters before a byte is
 * read. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "cmsis_nn_call.h"

#include "arm_nnsupportfunctions.h"

static ap_status_t fully_connected(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_counts(ctx, args, nargs, 4, 5, 1, 0, 0)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *input = &args[0], *filter = &args[1], *bias = n == 5 ? &args[2] : NULL;
    const ap_buffer_t *sums = &args[n - 2];
    ap_buffer_t *output = &args[n];
    ap_tflite_fc_params_t p;
    if (!read_params(&args[n - 1], &p, sizeof p) || p.output_depth <= 0) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const size_t depth = (size_t)p.output_depth;
    if (output->size == 0 || output->size % depth != 0 || filter->size % depth != 0) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const size_t batches = output->size / depth, accum = filter->size / depth;
    if (accum == 0 || input->size != product4(batches, accum, 1, 1) || accum > INT32_MAX || batches > INT32_MAX ||
        (bias != NULL && (bias->size != depth * sizeof(int32_t) || !int32_aligned(bias))) ||
        sums->size != depth * sizeof(int32_t) || !int32_aligned(sums)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const int32_t *bias_data = bias != NULL ? (const int32_t *)(const void *)bias->data : NULL;
    const cmsis_nn_fc_params fc = {p.input_offset, p.filter_offset, p.output_offset,
                                   {p.activation_min, p.activation_max}};
    const cmsis_nn_per_tensor_quant_params quant = {p.multiplier, p.shift};
    const cmsis_nn_dims input_dims = {(int32_t)batches, 1, 1, (int32_t)accum};
    const cmsis_nn_dims filter_dims = {(int32_t)accum, 1, 1, p.output_depth};
    const cmsis_nn_dims bias_dims = {1, 1, 1, p.output_depth};
    const cmsis_nn_dims output_dims = {(int32_t)batches, 1, 1, p.output_depth};
    /* What CMSIS-NN asks for in its scratch (Helium's row sums, arm_vector_sum_s8's) the build
     * computed from the constant weights: the buffer CMSIS-NN reads is that constant. */
    const cmsis_nn_context nn = {(void *)(uintptr_t)sums->data, (int32_t)sums->size};
    ap_status_t enough = enough_scratch(arm_fully_connected_s8_get_buffer_size(&filter_dims), &nn);
    if (enough != AP_OK) {
        return enough;
    }
    arm_cmsis_nn_status s = arm_fully_connected_s8(&nn, &fc, &quant, &input_dims, (const int8_t *)input->data,
                                                   &filter_dims, (const int8_t *)filter->data, &bias_dims,
                                                   bias_data, &output_dims, (int8_t *)output->data);
    return from_cmsis_nn(s);
}

const ap_kernel_t ap_kernel_tflite_3aFULLY__CONNECTED = {"tflite:FULLY_CONNECTED", fully_connected, NULL};

/* FULLY_CONNECTED with per-channel weights: TFLM's reference FullyConnectedPerChannel, each
 * output the row's sum of weight x (input + offset) plus bias, requantized by its channel's
 * multiplier by CMSIS-NN's rule (TFLM's): int32 sums for int8 (`wide` 0), int64 for 16x8. */
static ap_status_t fc_per_channel(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, int wide) {
    if (!io_counts(ctx, args, nargs, 3, 4, 1, 0, 0)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *input = &args[0], *filter = &args[1], *bias = n == 4 ? &args[2] : NULL, *params = &args[n - 1];
    ap_buffer_t *output = &args[n];
    ap_tflite_fc_params_t p;
    if (params->data == NULL || params->size < sizeof p) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    memcpy(&p, params->data, sizeof p);
    const size_t act = wide ? 2u : 1u, bias_width = wide ? 8u : 4u;
    if (p.output_depth <= 0 || p.output_depth > 65535 ||
        params->size != sizeof p + 2u * (size_t)p.output_depth * sizeof(int32_t)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const size_t depth = (size_t)p.output_depth;
    for (size_t o = 0; o < depth; o++) {
        int32_t shift;
        memcpy(&shift, params->data + sizeof p + 4u * (depth + o), sizeof shift);
        if (!(wide ? shift_s64_ok(shift) : shift_ok(shift))) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
    }
    if (output->size == 0 || output->size % (act * depth) != 0 || filter->size % depth != 0) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const size_t batches = output->size / (act * depth), accum = filter->size / depth;
    if (accum == 0 || input->size != product4(act, batches, accum, 1) ||
        (bias != NULL && bias->size != depth * bias_width)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const int8_t *w = (const int8_t *)filter->data;
    for (size_t b = 0; b < batches; b++) {
        for (size_t o = 0; o < depth; o++) {
            int32_t mult, shift, v;
            memcpy(&mult, params->data + sizeof p + 4u * o, sizeof mult);
            memcpy(&shift, params->data + sizeof p + 4u * (depth + o), sizeof shift);
            const int8_t *row = w + o * accum;
            if (wide) {
                int64_t acc = 0;
                for (size_t k = 0; k < accum; k++) {
                    int16_t x;
                    memcpy(&x, input->data + 2u * (b * accum + k), sizeof x);
                    acc += (int64_t)row[k] * x;
                }
                if (bias != NULL) {
                    int64_t bv;
                    memcpy(&bv, bias->data + 8u * o, sizeof bv);
                    acc += bv;
                }
                v = arm_nn_requantize_s64(acc, REDUCE_MULTIPLIER(mult), shift) + p.output_offset;
            } else {
                int32_t acc = 0;
                for (size_t k = 0; k < accum; k++) {
                    acc += row[k] * ((int8_t)input->data[b * accum + k] + p.input_offset);
                }
                if (bias != NULL) {
                    int32_t bv;
                    memcpy(&bv, bias->data + 4u * o, sizeof bv);
                    acc += bv;
                }
                v = arm_nn_requantize(acc, mult, shift) + p.output_offset;
            }
            v = v < p.activation_min ? p.activation_min : v > p.activation_max ? p.activation_max : v;
            if (wide) {
                const int16_t out = (int16_t)v;
                memcpy(output->data + 2u * (b * depth + o), &out, sizeof out);
            } else {
                output->data[b * depth + o] = (uint8_t)(int8_t)v;
            }
        }
    }
    return AP_OK;
}

static ap_status_t fully_connected_per_channel(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    return fc_per_channel(ctx, args, nargs, 0);
}

static ap_status_t fully_connected_per_channel_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    return fc_per_channel(ctx, args, nargs, 1);
}

const ap_kernel_t ap_kernel_tflite_3aFULLY__CONNECTED__PER__CHANNEL = {"tflite:FULLY_CONNECTED_PER_CHANNEL",
                                                                       fully_connected_per_channel, NULL};
const ap_kernel_t ap_kernel_tflite_3aFULLY__CONNECTED__PER__CHANNEL__S16 = {
    "tflite:FULLY_CONNECTED_PER_CHANNEL_S16", fully_connected_per_channel_s16, NULL};
