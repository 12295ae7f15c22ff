/* CONV_2D (see arenaplan/tflite.h). int8: CMSIS-NN's arm_convolve_wrapper_s8 where the build
 * planned its scratch, else a direct convolution needing none (TFLM's reference ConvPerChannel,
 * requantized by CMSIS-NN's rule: the same bytes). 16x8 (CONV_2D_S16): TFLM's reference
 * ConvPerChannel with int64 sums, requantized by CMSIS-NN's 64-bit rule. The arguments are
 * checked by ap_tflite_conv_call (conv_call.c) before a byte is read. */
#include "arenaplan/tflite.h"

#include "cmsis_nn_call.h"
#include "conv_call.h"

#include "arm_nnsupportfunctions.h"

/* CONV_2D without scratch: TFLM's reference ConvPerChannel, each output the sum over the
 * filter's taps inside the input of filter x (input + offset), plus bias, requantized by
 * CMSIS-NN's own rule. Integer sums are exact, so the bytes are those of CMSIS-NN's kernels
 * (and TFLM's); slower than im2col, it needs no buffer. Four output channels at a time, so
 * each input element is loaded once for four filters. */
#define AP_CONV_BLOCK 4

/* The filter taps [*lo, *hi) that land inside an input dimension of `size` from `origin`,
 * `dilation` apart (none: *lo >= *hi). */
static void taps_inside(int64_t origin, int32_t dilation, int32_t size, int32_t taps, int32_t *lo, int32_t *hi) {
    const int64_t first = origin < 0 ? (-origin + dilation - 1) / dilation : 0;
    const int64_t end = size > origin ? (size - origin + dilation - 1) / dilation : 0;
    *lo = first < taps ? (int32_t)first : taps;
    *hi = end < taps ? (int32_t)end : taps;
}

static void conv_direct(const ap_tflite_conv_call_t *c) {
    const ap_tflite_conv_params_t *p = &c->p;
    const int32_t ic = p->input_c, oc = p->output_c;
    const size_t filter_stride = (size_t)p->filter_h * p->filter_w * ic;
    for (int32_t b = 0; b < p->batches; b++) {
        for (int32_t oy = 0; oy < p->output_h; oy++) {
            for (int32_t ox = 0; ox < p->output_w; ox++) {
                const int64_t y0 = (int64_t)oy * p->stride_h - p->pad_h, x0 = (int64_t)ox * p->stride_w - p->pad_w;
                int32_t fy0, fy1, fx0, fx1;
                taps_inside(y0, p->dilation_h, p->input_h, p->filter_h, &fy0, &fy1);
                taps_inside(x0, p->dilation_w, p->input_w, p->filter_w, &fx0, &fx1);
                int8_t *out = c->output + (((size_t)b * p->output_h + oy) * p->output_w + ox) * oc;
                for (int32_t o0 = 0; o0 < oc; o0 += AP_CONV_BLOCK) {
                    const int32_t nb = oc - o0 < AP_CONV_BLOCK ? oc - o0 : AP_CONV_BLOCK;
                    int32_t acc[AP_CONV_BLOCK] = {0};
                    for (int32_t fy = fy0; fy < fy1; fy++) {
                        const int32_t y = (int32_t)(y0 + (int64_t)fy * p->dilation_h);
                        for (int32_t fx = fx0; fx < fx1; fx++) {
                            const int32_t x = (int32_t)(x0 + (int64_t)fx * p->dilation_w);
                            const int8_t *in = c->input + (((size_t)b * p->input_h + y) * p->input_w + x) * ic;
                            const int8_t *w =
                                c->filter + (size_t)o0 * filter_stride + ((size_t)fy * p->filter_w + fx) * ic;
                            if (nb == AP_CONV_BLOCK) {
                                const int8_t *w1 = w + filter_stride, *w2 = w1 + filter_stride,
                                             *w3 = w2 + filter_stride;
                                for (int32_t k = 0; k < ic; k++) {
                                    const int32_t v = in[k] + p->input_offset;
                                    acc[0] += w[k] * v;
                                    acc[1] += w1[k] * v;
                                    acc[2] += w2[k] * v;
                                    acc[3] += w3[k] * v;
                                }
                            } else {
                                for (int32_t j = 0; j < nb; j++) {
                                    const int8_t *wj = w + (size_t)j * filter_stride;
                                    for (int32_t k = 0; k < ic; k++) {
                                        acc[j] += wj[k] * (in[k] + p->input_offset);
                                    }
                                }
                            }
                        }
                    }
                    for (int32_t j = 0; j < nb; j++) {
                        const int32_t o = o0 + j;
                        int32_t v = acc[j] + c->bias[o];
                        v = arm_nn_requantize(v, c->quant.multiplier[o], c->quant.shift[o]) + p->output_offset;
                        v = v < p->activation_min ? p->activation_min : v > p->activation_max ? p->activation_max : v;
                        out[o] = (int8_t)v;
                    }
                }
            }
        }
    }
}

static ap_status_t conv_2d(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_conv_call_t c;
    if (!ap_tflite_conv_call(ctx, args, nargs, 0, 0, &c)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const cmsis_nn_conv_params conv = {c.p.input_offset, c.p.output_offset, {c.p.stride_w, c.p.stride_h},
                                       {c.p.pad_w, c.p.pad_h}, {c.p.dilation_w, c.p.dilation_h},
                                       {c.p.activation_min, c.p.activation_max}};
    const int32_t needed =
        arm_convolve_wrapper_s8_get_buffer_size(&conv, &c.input_dims, &c.filter_dims, &c.output_dims);
    if (needed > 0 && without_scratch(ctx, nargs)) {
        conv_direct(&c);
        return AP_OK;
    }
    ap_status_t enough = enough_scratch(needed, &c.nn);
    if (enough != AP_OK) {
        return enough;
    }
    arm_cmsis_nn_status s = arm_convolve_wrapper_s8(&c.nn, &conv, &c.quant, &c.input_dims, c.input, &c.filter_dims,
                                                    c.filter, &c.bias_dims, c.bias, &c.output_dims, c.output);
    return from_cmsis_nn(s);
}

const ap_kernel_t ap_kernel_tflite_3aCONV__2D = {"tflite:CONV_2D", conv_2d, NULL};

/* CONV_2D, 16x8: TFLM's reference ConvPerChannel with int64 sums and bias, requantized by
 * CMSIS-NN's 64-bit rule (TFLM's: the multiplier reduced to 16 bits, rounded); no scratch. */
static ap_status_t conv_2d_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_conv_call_t c;
    if (!ap_tflite_conv_call(ctx, args, nargs, 0, 1, &c) || !without_scratch(ctx, nargs)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_tflite_conv_params_t *p = &c.p;
    const int32_t ic = p->input_c, oc = p->output_c;
    for (int32_t b = 0; b < p->batches; b++) {
        for (int32_t oy = 0; oy < p->output_h; oy++) {
            for (int32_t ox = 0; ox < p->output_w; ox++) {
                const int64_t y0 = (int64_t)oy * p->stride_h - p->pad_h, x0 = (int64_t)ox * p->stride_w - p->pad_w;
                int32_t fy0, fy1, fx0, fx1;
                taps_inside(y0, p->dilation_h, p->input_h, p->filter_h, &fy0, &fy1);
                taps_inside(x0, p->dilation_w, p->input_w, p->filter_w, &fx0, &fx1);
                for (int32_t o = 0; o < oc; o++) {
                    int64_t acc = 0;
                    for (int32_t fy = fy0; fy < fy1; fy++) {
                        const int32_t y = (int32_t)(y0 + (int64_t)fy * p->dilation_h);
                        for (int32_t fx = fx0; fx < fx1; fx++) {
                            const int32_t x = (int32_t)(x0 + (int64_t)fx * p->dilation_w);
                            const int16_t *in = c.input16 + (((size_t)b * p->input_h + y) * p->input_w + x) * ic;
                            const int8_t *w = c.filter + (((size_t)o * p->filter_h + fy) * p->filter_w + fx) * ic;
                            for (int32_t k = 0; k < ic; k++) {
                                acc += (int64_t)w[k] * in[k];
                            }
                        }
                    }
                    acc += c.bias64[o];
                    int32_t v = arm_nn_requantize_s64(acc, REDUCE_MULTIPLIER(c.quant.multiplier[o]), c.quant.shift[o]);
                    v = v < p->activation_min ? p->activation_min : v > p->activation_max ? p->activation_max : v;
                    c.output16[(((size_t)b * p->output_h + oy) * p->output_w + ox) * oc + o] = (int16_t)v;
                }
            }
        }
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aCONV__2D__S16 = {"tflite:CONV_2D_S16", conv_2d_s16, NULL};
