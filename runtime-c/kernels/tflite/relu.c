/* RELU and RELU6 (tflite:RELU, see arenaplan/tflite.h), int8 and int16: a port of TFLM's
 * reference kernel, requantized by CMSIS-NN's rule (TFLM's) where the input and output scales
 * differ, then clamped. */
#include "arenaplan/tflite.h"

#include "common.h"

#include "arm_nnsupportfunctions.h"

static ap_status_t relu(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_relu_params_t p;
    if (!io_is(ctx, args, nargs, 2, 1) || !read_params(&args[1], &p, sizeof p) || (p.width != 1 && p.width != 2) ||
        !count_ok(p.count) || (p.requantize && !shift_ok(p.shift))) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[2];
    const size_t n = (size_t)p.count, w = (size_t)p.width;
    if (in->size != n * w || out->size != n * w) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t i = 0; i < n; i++) {
        int32_t v = load_int(in->data, i, p.width);
        if (p.requantize) {
            v = p.output_zero_point + arm_nn_requantize(v - p.input_zero_point, p.multiplier, p.shift);
        }
        store_int(out->data, i, p.width, clamp32(v, p.activation_min, p.activation_max));
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aRELU = {"tflite:RELU", relu, NULL};
