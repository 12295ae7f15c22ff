/* SVDF (see arenaplan/tflite.h) on CMSIS-NN: int8 state through arm_svdf_s8 (with the feature
 * sums the build computed), int16 state through arm_svdf_state_s16_s8; the planned scratch holds
 * both of CMSIS-NN's int32 buffers. */
#include "arenaplan/tflite.h"

#include "cmsis_nn_call.h"
#include "common.h"

#include "arm_nnfunctions.h"

static ap_status_t svdf(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_counts(ctx, args, nargs, 6, 7, 1, 1, 1)) { /* then its scratch */
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *input = &args[0], *features = &args[1], *time = &args[2], *bias = &args[3];
    ap_buffer_t *state = &args[4], *output = &args[n], *scratch = &args[n + 1];
    const ap_buffer_t *sums = n == 7 ? &args[5] : NULL;
    ap_tflite_svdf_params_t p;
    if (!read_params(&args[n - 1], &p, sizeof p)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const int32_t dims[] = {p.rank, p.batches, p.input_size, p.filters, p.memory_size};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
    }
    /* CMSIS-NN keeps the rank in 16 bits. */
    if (p.filters % p.rank != 0 || p.rank > INT16_MAX) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const size_t batches = (size_t)p.batches, filters = (size_t)p.filters, units = filters / (size_t)p.rank;
    const size_t memory = (size_t)p.memory_size;
    /* int8 state with its feature sums, or int16 state without. */
    const size_t width = sums != NULL ? 1u : 2u;
    const size_t scratch_bytes = product4(batches, filters + units, sizeof(int32_t), 1);
    const size_t state_bytes = product4(batches, memory, filters, width);
    if (input->size != batches * (size_t)p.input_size || features->size != filters * (size_t)p.input_size ||
        time->size != product4(filters, memory, width, 1) || bias->size != units * sizeof(int32_t) ||
        state_bytes == 0 || state->size != state_bytes || output->size != batches * units || scratch_bytes == 0 ||
        scratch->size < scratch_bytes || !int32_aligned(bias) || !int32_aligned(scratch) ||
        (width == 2u && (((uintptr_t)state->data | (uintptr_t)time->data) & 1u) != 0) ||
        (sums != NULL && (sums->size != filters * sizeof(int32_t) || !int32_aligned(sums)))) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    int32_t *buffers = (int32_t *)(void *)scratch->data;
    const cmsis_nn_context feature_ctx = {buffers, (int32_t)(batches * filters * sizeof(int32_t))};
    const cmsis_nn_context unit_ctx = {buffers + batches * filters, (int32_t)(batches * units * sizeof(int32_t))};
    const cmsis_nn_svdf_params sp = {p.rank, p.input_zero_point, p.output_zero_point, {p.state_min, p.state_max},
                                     {INT8_MIN, INT8_MAX}};
    const cmsis_nn_per_tensor_quant_params q1 = {p.multiplier_1, p.shift_1};
    const cmsis_nn_per_tensor_quant_params q2 = {p.multiplier_2, p.shift_2};
    const cmsis_nn_dims input_dims = {p.batches, p.input_size, 1, 1};
    const cmsis_nn_dims state_dims = {p.batches, (int32_t)(memory * filters), 1, 1};
    const cmsis_nn_dims feature_dims = {p.filters, p.input_size, 1, 1};
    const cmsis_nn_dims time_dims = {p.filters, p.memory_size, 1, 1};
    const cmsis_nn_dims bias_dims = {(int32_t)units, 1, 1, 1};
    const cmsis_nn_dims output_dims = {p.batches, (int32_t)units, 1, 1};
    arm_cmsis_nn_status s;
    if (sums != NULL) {
        const cmsis_nn_context sums_ctx = {(void *)(uintptr_t)sums->data, (int32_t)sums->size};
        if (arm_svdf_s8_get_buffer_size(&feature_dims) > sums_ctx.size) {
            return AP_ERR_SCRATCH_TOO_SMALL;
        }
        s = arm_svdf_s8(&sums_ctx, &feature_ctx, &unit_ctx, &sp, &q1, &q2, &input_dims, (const int8_t *)input->data,
                        &state_dims, (int8_t *)state->data, &feature_dims, (const int8_t *)features->data, &time_dims,
                        (const int8_t *)time->data, &bias_dims, (const int32_t *)(const void *)bias->data,
                        &output_dims, (int8_t *)output->data);
    } else {
        s = arm_svdf_state_s16_s8(&feature_ctx, &unit_ctx, &sp, &q1, &q2, &input_dims, (const int8_t *)input->data,
                                  &state_dims, (int16_t *)(void *)state->data, &feature_dims,
                                  (const int8_t *)features->data, &time_dims,
                                  (const int16_t *)(const void *)time->data, &bias_dims,
                                  (const int32_t *)(const void *)bias->data, &output_dims, (int8_t *)output->data);
    }
    return from_cmsis_nn(s);
}

const ap_kernel_t ap_kernel_tflite_3aSVDF = {"tflite:SVDF", svdf, NULL};
