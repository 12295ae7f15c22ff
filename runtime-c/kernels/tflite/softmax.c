/* SOFTMAX (see arenaplan/tflite.h) on CMSIS-NN: int8 to int8 through arm_softmax_s8, int8 to
 * int16 through arm_softmax_s8_s16, with the parameters the build computed. */
#include "arenaplan/tflite.h"

#include "common.h"

#include "arm_nnfunctions.h"

static ap_status_t softmax(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_is(ctx, args, nargs, 2, 1)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[2];
    ap_tflite_softmax_params_t p;
    if (!read_params(&args[1], &p, sizeof p) || p.row_size <= 0 || input->size == 0 || input->size % (size_t)p.row_size != 0 || input->size / (size_t)p.row_size > INT32_MAX) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const int32_t rows = (int32_t)(input->size / (size_t)p.row_size);
    if (output->size == input->size) {
        arm_softmax_s8((const int8_t *)input->data, rows, p.row_size, p.multiplier, p.shift, p.diff_min,
                       (int8_t *)output->data);
        return AP_OK;
    }
    if (output->size != 2u * input->size || ((uintptr_t)output->data & 1u) != 0) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    arm_softmax_s8_s16((const int8_t *)input->data, rows, p.row_size, p.multiplier, p.shift, p.diff_min,
                       (int16_t *)(void *)output->data);
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSOFTMAX = {"tflite:SOFTMAX", softmax, NULL};
