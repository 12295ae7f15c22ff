/* TRANSPOSE_CONV (see arenaplan/tflite.h), int8: a port of TFLM's reference kernel,
 * requantized per channel by CMSIS-NN's rule, which is TFLM's. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

#include "arm_nnsupportfunctions.h"

/* TRANSPOSE_CONV: for each output, the inputs whose filter taps land on it (TFLM's reference
 * scatters each input instead, into an int32 accumulator per output: the same sums). */
static ap_status_t transpose_conv(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_counts(ctx, args, nargs, 4, 5, 1, 0, 0)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *filter = &args[1], *input = &args[2], *bias = n == 5 ? &args[3] : NULL, *params = &args[n - 1];
    ap_buffer_t *output = &args[n];
    ap_tflite_conv_params_t p;
    if (params->data == NULL || params->size < sizeof p) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    memcpy(&p, params->data, sizeof p);
    const int32_t dims[] = {p.batches, p.input_h, p.input_w, p.input_c, p.filter_h, p.filter_w,
                            p.output_h, p.output_w, p.output_c, p.stride_w, p.stride_h};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
    }
    const size_t oc = (size_t)p.output_c, ic = (size_t)p.input_c;
    if (p.pad_w < 0 || p.pad_h < 0 || p.pad_w > 65535 || p.pad_h > 65535 ||
        params->size != sizeof p + 2u * oc * sizeof(int32_t) ||
        input->size != product4((size_t)p.batches, (size_t)p.input_h, (size_t)p.input_w, ic) ||
        filter->size != product4(oc, (size_t)p.filter_h, (size_t)p.filter_w, ic) ||
        (bias != NULL && bias->size != oc * sizeof(int32_t)) ||
        output->size != product4((size_t)p.batches, (size_t)p.output_h, (size_t)p.output_w, oc)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t o = 0; o < oc; o++) {
        int32_t shift;
        memcpy(&shift, params->data + sizeof p + 4u * (oc + o), sizeof shift);
        if (!shift_ok(shift)) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
    }
    const int8_t *in = (const int8_t *)input->data, *w = (const int8_t *)filter->data;
    int8_t *out = (int8_t *)output->data;
    for (int32_t b = 0; b < p.batches; b++) {
        for (int32_t oy = 0; oy < p.output_h; oy++) {
            for (int32_t ox = 0; ox < p.output_w; ox++) {
                for (size_t o = 0; o < oc; o++) {
                    int32_t acc = 0;
                    for (int32_t fy = 0; fy < p.filter_h; fy++) {
                        const int32_t ty = oy + p.pad_h - fy;
                        if (ty < 0 || ty % p.stride_h != 0 || ty / p.stride_h >= p.input_h) {
                            continue;
                        }
                        for (int32_t fx = 0; fx < p.filter_w; fx++) {
                            const int32_t tx = ox + p.pad_w - fx;
                            if (tx < 0 || tx % p.stride_w != 0 || tx / p.stride_w >= p.input_w) {
                                continue;
                            }
                            const int8_t *x =
                                in + (((size_t)b * p.input_h + ty / p.stride_h) * p.input_w + tx / p.stride_w) * ic;
                            const int8_t *k = w + ((o * p.filter_h + fy) * p.filter_w + fx) * ic;
                            for (size_t c = 0; c < ic; c++) {
                                acc += (x[c] + p.input_offset) * k[c];
                            }
                        }
                    }
                    if (bias != NULL) {
                        int32_t bv;
                        memcpy(&bv, bias->data + 4u * o, sizeof bv);
                        acc += bv;
                    }
                    int32_t mult, shift;
                    memcpy(&mult, params->data + sizeof p + 4u * o, sizeof mult);
                    memcpy(&shift, params->data + sizeof p + 4u * (oc + o), sizeof shift);
                    acc = arm_nn_requantize(acc, mult, shift) + p.output_offset;
                    out[(((size_t)b * p.output_h + oy) * p.output_w + ox) * oc + o] =
                        (int8_t)clamp32(acc, p.activation_min, p.activation_max);
                }
            }
        }
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aTRANSPOSE__CONV = {"tflite:TRANSPOSE_CONV", transpose_conv, NULL};
