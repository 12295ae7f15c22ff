/* QUANTIZE (see arenaplan/tflite.h): a port of TFLM's reference Requantize (integer input,
 * rescaled by CMSIS-NN's arm_nn_requantize, TFLM's MultiplyByQuantizedMultiplier) and
 * AffineQuantize (float input, rounded half away from zero). */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

#include "arm_nnsupportfunctions.h"

/* C's roundf (half away from zero) without libm, for a firmware that links none; clamped to
 * int32 first (the conversion is undefined beyond), NaN as 0. */
static int64_t round_away(float q) {
    if (!(q == q)) {
        return 0;
    }
    if (q >= 2147483647.0f) {
        return INT32_MAX;
    }
    if (q <= -2147483648.0f) {
        return INT32_MIN;
    }
    const int64_t t = (int64_t)q; /* toward zero, exact */
    const float frac = q - (float)t; /* exact: |q| < 2^31 and t is q without its fraction */
    if (frac >= 0.5f) {
        return t + 1;
    }
    if (frac <= -0.5f) {
        return t - 1;
    }
    return t;
}

/* TFLM's Requantize: (x - input zero point) rescaled, plus the output zero point, clamped to the
 * output type. The rescaling is CMSIS-NN's arm_nn_requantize, TFLM's MultiplyByQuantizedMultiplier
 * (the subtraction wraps as int32 does on the targets). */
static ap_status_t quantize(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_is(ctx, args, nargs, 2, 1)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[2];
    ap_tflite_quantize_params_t p;
    if (!read_params(&args[1], &p, sizeof p)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const int widths_ok = (p.input_width == 1 || p.input_width == 2 || p.input_width == 4) &&
                          (p.output_width == 1 || p.output_width == 2 || p.output_width == 4);
    if (!widths_ok || input->size % (size_t)p.input_width != 0 ||
        input->size / (size_t)p.input_width != output->size / (size_t)p.output_width ||
        output->size % (size_t)p.output_width != 0) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const int32_t max = p.output_width == 1 ? INT8_MAX : p.output_width == 2 ? INT16_MAX : INT32_MAX;
    const int32_t min = p.output_width == 1 ? INT8_MIN : p.output_width == 2 ? INT16_MIN : INT32_MIN;
    const size_t n = input->size / (size_t)p.input_width;
    if (p.input_float == 1) {
        /* TFLM's AffineQuantize: in float, rounded half away from zero. */
        float scale;
        memcpy(&scale, &p.multiplier, sizeof scale);
        if (p.input_width != 4 || p.output_width == 4 || !(scale > 0.0f)) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        for (size_t i = 0; i < n; i++) {
            float x;
            memcpy(&x, input->data + 4u * i, sizeof x);
            const int64_t y = round_away(x / scale) + p.output_zero_point;
            store_int(output->data, i, p.output_width, (int32_t)(y > max ? max : y < min ? min : y));
        }
        return AP_OK;
    }
    if (p.input_float != 0) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t i = 0; i < n; i++) {
        const int32_t x = (int32_t)((uint32_t)load_int(input->data, i, p.input_width) -
                                    (uint32_t)p.input_zero_point);
        const int64_t y = (int64_t)arm_nn_requantize(x, p.multiplier, p.shift) + p.output_zero_point;
        store_int(output->data, i, p.output_width, (int32_t)(y > max ? max : y < min ? min : y));
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aQUANTIZE = {"tflite:QUANTIZE", quantize, NULL};
