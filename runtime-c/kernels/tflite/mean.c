/* MEAN (see arenaplan/tflite.h), int8 and int16: a port of TFLM's reference kernel, requantized
 * by CMSIS-NN's rule, which is TFLM's. */
#include "arenaplan/tflite.h"

#include "common.h"

#include "arm_nnsupportfunctions.h"

/* MEAN: each output (the kept dimensions, in order) the sum of its reduced elements, as int32
 * wrapping as TFLM's, less count x input zero, requantized. */
static ap_status_t mean(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_mean_params_t p;
    if (!io_is(ctx, args, nargs, 3, 1) || !read_params(&args[2], &p, sizeof p) || (p.width != 1 && p.width != 2) ||
        !shift_ok(p.shift)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    size_t in_count = 1, out_count = 1, stride[5];
    int64_t reduced = 1;
    for (int d = 4; d >= 0; d--) {
        if (p.extent[d] <= 0 || p.extent[d] > 65535 || (p.reduced[d] != 0 && p.reduced[d] != 1)) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        stride[d] = in_count;
        in_count = product4(in_count, (size_t)p.extent[d], 1, 1);
        if (p.reduced[d]) {
            reduced *= p.extent[d];
        } else {
            out_count = product4(out_count, (size_t)p.extent[d], 1, 1);
        }
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[3];
    const size_t w = (size_t)p.width;
    if (in_count == 0 || reduced > INT32_MAX || in->size != product4(in_count, w, 1, 1) ||
        out->size != product4(out_count, w, 1, 1)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const int32_t lo = p.width == 1 ? INT8_MIN : INT16_MIN, hi = p.width == 1 ? INT8_MAX : INT16_MAX;
    /* Walk the kept dimensions as an odometer, and for each the reduced ones. */
    int32_t kept[5] = {0}, red[5];
    for (size_t o = 0; o < out_count; o++) {
        size_t base = 0;
        for (int d = 0; d < 5; d++) {
            base += (size_t)kept[d] * stride[d];
            red[d] = 0;
        }
        uint32_t sum = 0;
        for (;;) {
            size_t at = base;
            for (int d = 0; d < 5; d++) {
                at += (size_t)red[d] * stride[d];
            }
            sum += (uint32_t)load_int(in->data, at, p.width);
            int d = 4;
            while (d >= 0 && (!p.reduced[d] || ++red[d] == p.extent[d])) {
                if (p.reduced[d]) {
                    red[d] = 0;
                }
                d--;
            }
            if (d < 0) {
                break;
            }
        }
        const int32_t shifted = (int32_t)(sum - (uint32_t)((int64_t)p.input_zero_point * reduced));
        const int32_t v = arm_nn_requantize(shifted, p.multiplier, p.shift) + p.output_zero_point;
        store_int(out->data, o, p.width, clamp32(v, lo, hi));
        for (int d = 4; d >= 0; d--) {
            if (p.reduced[d]) {
                continue;
            }
            if (++kept[d] < p.extent[d]) {
                break;
            }
            kept[d] = 0;
        }
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aMEAN = {"tflite:MEAN", mean, NULL};
