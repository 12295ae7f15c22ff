/* DEQUANTIZE (see arenaplan/tflite.h): a port of TFLM's reference Dequantize, int8 or int16 to
 * float32. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

/* TFLM's Dequantize: the scale, in double, times the value less the zero point, as float. */
static ap_status_t dequantize(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_is(ctx, args, nargs, 2, 1)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[2];
    ap_tflite_dequantize_params_t p;
    if (!read_params(&args[1], &p, sizeof p) || (p.input_width != 1 && p.input_width != 2) ||
        input->size % (size_t)p.input_width != 0 || output->size != input->size / (size_t)p.input_width * 4u) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    float scale;
    memcpy(&scale, &p.scale_bits, sizeof scale);
    const size_t n = input->size / (size_t)p.input_width;
    for (size_t i = 0; i < n; i++) {
        const int32_t v = load_int(input->data, i, p.input_width);
        const float y = (float)((double)scale * (double)(v - p.zero_point));
        memcpy(output->data + 4u * i, &y, sizeof y);
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aDEQUANTIZE = {"tflite:DEQUANTIZE", dequantize, NULL};
