/* MUL (see arenaplan/tflite.h) of same-shape quantized tensors on CMSIS-NN: int8 through
 * arm_elementwise_mul_s8, int16 (MUL_S16, 16x8 models) through arm_elementwise_mul_s16. */
#include "arenaplan/tflite.h"

#include "cmsis_nn_call.h"

static ap_status_t mul(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_is(ctx, args, nargs, 3, 1)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *a = &args[0], *b = &args[1];
    ap_buffer_t *output = &args[3];
    ap_tflite_mul_params_t p;
    if (!read_params(&args[2], &p, sizeof p) || a->size != output->size || b->size != output->size ||
        output->size > INT32_MAX) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    arm_cmsis_nn_status s = arm_elementwise_mul_s8((const int8_t *)a->data, (const int8_t *)b->data, p.input1_offset,
                                                   p.input2_offset, (int8_t *)output->data, p.output_offset,
                                                   p.multiplier, p.shift, p.activation_min, p.activation_max,
                                                   (int32_t)output->size);
    return from_cmsis_nn(s);
}

const ap_kernel_t ap_kernel_tflite_3aMUL = {"tflite:MUL", mul, NULL};

static ap_status_t mul_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_mul_params_t p;
    if (!elementwise_s16_args(ctx, args, nargs, &p, sizeof p) || !shift_ok(p.shift)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    arm_cmsis_nn_status s = arm_elementwise_mul_s16(
        (const int16_t *)(const void *)args[0].data, (const int16_t *)(const void *)args[1].data, p.input1_offset,
        p.input2_offset, (int16_t *)(void *)args[3].data, p.output_offset, p.multiplier, p.shift, p.activation_min,
        p.activation_max, (int32_t)(args[3].size / 2));
    return from_cmsis_nn(s);
}

const ap_kernel_t ap_kernel_tflite_3aMUL__S16 = {"tflite:MUL_S16", mul_s16, NULL};
