/* TFLite's builtin operators on CMSIS-NN (see arenaplan/tflite.h): each kernel checks its
 * arguments against its parameters before CMSIS-NN reads or writes a byte, and the scratch the
 * build planned against what its CMSIS-NN variant asks for. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "tflite_args.h"

#include "arm_nnfunctions.h"
#include "arm_nnsupportfunctions.h"

/* The call's scratch: the arguments after its inputs and outputs (one buffer at most, none
 * where the kernel needs none on this build). */
static int scratch_of(const ap_context_t *ctx, const ap_buffer_t *args, size_t nargs, cmsis_nn_context *nn) {
    const size_t io = (size_t)ctx->ninputs + ctx->noutputs;
    nn->buf = NULL;
    nn->size = 0;
    if (nargs < io || nargs > io + 1u) {
        return 0;
    }
    if (nargs == io + 1u) {
        if (args[io].size > INT32_MAX) {
            return 0;
        }
        /* CMSIS-NN reads its buffers as int16 and int32: planned at least 4-byte aligned. */
        if (((uintptr_t)args[io].data & 3u) != 0) {
            return 0;
        }
        nn->buf = args[io].data;
        nn->size = (int32_t)args[io].size;
    }
    return 1;
}

/* The status a kernel returns when CMSIS-NN asks for more scratch than was planned: the
 * build planned for another instruction set than this library was compiled for. */
static ap_status_t enough_scratch(int32_t needed, const cmsis_nn_context *nn) {
    return needed > nn->size ? AP_ERR_SCRATCH_TOO_SMALL : AP_OK;
}

static ap_status_t fully_connected(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->noutputs != 1 || (ctx->ninputs != 4 && ctx->ninputs != 5) ||
        nargs != (size_t)ctx->ninputs + 1u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *input = &args[0], *filter = &args[1], *bias = n == 5 ? &args[2] : NULL;
    const ap_buffer_t *sums = &args[n - 2];
    ap_buffer_t *output = &args[n];
    ap_tflite_fc_params_t p;
    if (!read_params(&args[n - 1], &p, sizeof p) || p.output_depth <= 0) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const size_t depth = (size_t)p.output_depth;
    if (output->size == 0 || output->size % depth != 0 || filter->size % depth != 0) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const size_t batches = output->size / depth, accum = filter->size / depth;
    if (accum == 0 || input->size != product4(batches, accum, 1, 1) || accum > INT32_MAX || batches > INT32_MAX ||
        (bias != NULL && (bias->size != depth * sizeof(int32_t) || !int32_aligned(bias))) ||
        sums->size != depth * sizeof(int32_t) || !int32_aligned(sums)) {
        return AP_ERR_BAD_ARGUMENTS;
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
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aFULLY__CONNECTED = {"tflite:FULLY_CONNECTED", fully_connected, NULL};

/* FULLY_CONNECTED with per-channel weights: TFLM's reference FullyConnectedPerChannel, each
 * output the row's sum of weight x (input + offset) plus bias, requantized by its channel's
 * multiplier by CMSIS-NN's rule (TFLM's): int32 sums for int8 (`wide` 0), int64 for 16x8. */
static ap_status_t fc_per_channel(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, int wide) {
    if (ctx == NULL || args == NULL || ctx->noutputs != 1 || (ctx->ninputs != 3 && ctx->ninputs != 4) ||
        nargs != (size_t)ctx->ninputs + 1u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *input = &args[0], *filter = &args[1], *bias = n == 4 ? &args[2] : NULL, *params = &args[n - 1];
    ap_buffer_t *output = &args[n];
    ap_tflite_fc_params_t p;
    if (params->data == NULL || params->size < sizeof p) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    memcpy(&p, params->data, sizeof p);
    const size_t act = wide ? 2u : 1u, bias_width = wide ? 8u : 4u;
    if (p.output_depth <= 0 || p.output_depth > 65535 ||
        params->size != sizeof p + 2u * (size_t)p.output_depth * sizeof(int32_t)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const size_t depth = (size_t)p.output_depth;
    for (size_t o = 0; o < depth; o++) {
        int32_t shift;
        memcpy(&shift, params->data + sizeof p + 4u * (depth + o), sizeof shift);
        if (!(wide ? shift_s64_ok(shift) : shift_ok(shift))) {
            return AP_ERR_BAD_ARGUMENTS;
        }
    }
    if (output->size == 0 || output->size % (act * depth) != 0 || filter->size % depth != 0) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const size_t batches = output->size / (act * depth), accum = filter->size / depth;
    if (accum == 0 || input->size != product4(act, batches, accum, 1) ||
        (bias != NULL && bias->size != depth * bias_width)) {
        return AP_ERR_BAD_ARGUMENTS;
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

/* A convolution's arguments, checked against its parameters and turned into CMSIS-NN's. */
typedef struct conv_call {
    const int8_t *input, *filter;
    const int32_t *bias;
    /* A 16x8 call's: int16 activations, an int64 bias. */
    const int16_t *input16;
    int16_t *output16;
    const int64_t *bias64;
    int8_t *output;
    ap_tflite_conv_params_t p;
    cmsis_nn_per_channel_quant_params quant;
    cmsis_nn_dims input_dims, filter_dims, bias_dims, output_dims;
    cmsis_nn_context nn;
} conv_call_t;

/* `wide`: a 16x8 call (int16 input and output, int64 bias). */
static int conv_call(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, int depthwise, int wide, conv_call_t *c) {
    if (ctx == NULL || args == NULL || ctx->ninputs != 4 || ctx->noutputs != 1 || nargs < 5u) {
        return 0;
    }
    const ap_buffer_t *input = &args[0], *filter = &args[1], *bias = &args[2], *params = &args[3];
    ap_buffer_t *output = &args[4];
    ap_tflite_conv_params_t *p = &c->p;
    if (params->data == NULL || params->size < sizeof *p) {
        return 0;
    }
    memcpy(p, params->data, sizeof *p);
    const int32_t dims[] = {p->batches, p->input_h, p->input_w, p->input_c, p->filter_h,
                            p->filter_w, p->output_h, p->output_w, p->output_c, p->ch_mult};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return 0;
        }
    }
    const size_t oc = (size_t)p->output_c;
    const size_t filter_c = depthwise ? 1u : (size_t)p->input_c;
    const int channels_fit =
        depthwise ? (int64_t)p->input_c * p->ch_mult == p->output_c : p->ch_mult == 1;
    /* Strides and dilations positive, paddings not negative, all within CMSIS-NN's 16 bits: the
     * kernels' index arithmetic then stays inside int32. */
    const int32_t geometry[] = {p->stride_w, p->stride_h, p->dilation_w, p->dilation_h};
    for (size_t i = 0; i < sizeof geometry / sizeof geometry[0]; i++) {
        if (geometry[i] <= 0 || geometry[i] > 65535) {
            return 0;
        }
    }
    if (p->pad_w < 0 || p->pad_h < 0 || p->pad_w > 65535 || p->pad_h > 65535) {
        return 0;
    }
    /* The per-channel multipliers and shifts follow the header; CMSIS-NN reads them as int32. */
    const size_t act = wide ? 2u : 1u, bias_width = wide ? 8u : 4u;
    if (!channels_fit || params->size != sizeof *p + 2u * oc * sizeof(int32_t) || !int32_aligned(params) ||
        !aligned_to(bias, bias_width) || !aligned_to(input, act) || !aligned_to(output, act) ||
        input->size !=
            product4(product4((size_t)p->batches, (size_t)p->input_h, (size_t)p->input_w, (size_t)p->input_c), act, 1, 1) ||
        filter->size != product4((size_t)p->filter_h, (size_t)p->filter_w, filter_c, oc) ||
        bias->size != oc * bias_width ||
        output->size != product4(product4((size_t)p->batches, (size_t)p->output_h, (size_t)p->output_w, oc), act, 1, 1)) {
        return 0;
    }
    const int32_t *per_channel = (const int32_t *)(const void *)(params->data + sizeof *p);
    for (size_t o = 0; o < oc; o++) {
        if (!(wide ? shift_s64_ok(per_channel[oc + o]) : shift_ok(per_channel[oc + o]))) {
            return 0;
        }
    }
    c->quant.multiplier = (int32_t *)per_channel;
    c->quant.shift = (int32_t *)per_channel + oc;
    c->input = (const int8_t *)input->data;
    c->filter = (const int8_t *)filter->data;
    c->bias = (const int32_t *)(const void *)bias->data;
    c->output = (int8_t *)output->data;
    c->input16 = (const int16_t *)(const void *)input->data;
    c->output16 = (int16_t *)(void *)output->data;
    c->bias64 = (const int64_t *)(const void *)bias->data;
    c->input_dims = (cmsis_nn_dims){p->batches, p->input_h, p->input_w, p->input_c};
    c->filter_dims = depthwise ? (cmsis_nn_dims){1, p->filter_h, p->filter_w, p->output_c}
                               : (cmsis_nn_dims){p->output_c, p->filter_h, p->filter_w, p->input_c};
    c->bias_dims = (cmsis_nn_dims){1, 1, 1, p->output_c};
    c->output_dims = (cmsis_nn_dims){p->batches, p->output_h, p->output_w, p->output_c};
    return scratch_of(ctx, args, nargs, &c->nn);
}

/* Whether the build gave the call no scratch at all: it chose the kernel's variant that needs
 * none (where the library's scratch would have made the arena larger, or its target's variant
 * needs none). A scratch that is there but too small is a plan for another instruction set. */
static int without_scratch(const ap_context_t *ctx, size_t nargs) {
    return nargs == (size_t)ctx->ninputs + ctx->noutputs;
}

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

static void conv_direct(const conv_call_t *c) {
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
    conv_call_t c;
    if (!conv_call(ctx, args, nargs, 0, 0, &c)) {
        return AP_ERR_BAD_ARGUMENTS;
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
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aCONV__2D = {"tflite:CONV_2D", conv_2d, NULL};

static ap_status_t depthwise_conv(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    conv_call_t c;
    if (!conv_call(ctx, args, nargs, 1, 0, &c)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const cmsis_nn_dw_conv_params dw = {c.p.input_offset, c.p.output_offset, c.p.ch_mult,
                                        {c.p.stride_w, c.p.stride_h}, {c.p.pad_w, c.p.pad_h},
                                        {c.p.dilation_w, c.p.dilation_h}, {c.p.activation_min, c.p.activation_max}};
    const int32_t needed =
        arm_depthwise_conv_wrapper_s8_get_buffer_size(&dw, &c.input_dims, &c.filter_dims, &c.output_dims);
    if (needed > 0 && without_scratch(ctx, nargs)) {
        /* CMSIS-NN's generic depthwise kernel, which needs no buffer. */
        arm_cmsis_nn_status s = arm_depthwise_conv_s8(&c.nn, &dw, &c.quant, &c.input_dims, c.input, &c.filter_dims,
                                                      c.filter, &c.bias_dims, c.bias, &c.output_dims, c.output);
        return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
    }
    ap_status_t enough = enough_scratch(needed, &c.nn);
    if (enough != AP_OK) {
        return enough;
    }
    arm_cmsis_nn_status s = arm_depthwise_conv_wrapper_s8(&c.nn, &dw, &c.quant, &c.input_dims, c.input,
                                                          &c.filter_dims, c.filter, &c.bias_dims, c.bias,
                                                          &c.output_dims, c.output);
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aDEPTHWISE__CONV__2D = {"tflite:DEPTHWISE_CONV_2D", depthwise_conv, NULL};

/* CONV_2D, 16x8: TFLM's reference ConvPerChannel with int64 sums and bias, requantized by
 * CMSIS-NN's 64-bit rule (TFLM's: the multiplier reduced to 16 bits, rounded); no scratch. */
static ap_status_t conv_2d_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    conv_call_t c;
    if (!conv_call(ctx, args, nargs, 0, 1, &c) || !without_scratch(ctx, nargs)) {
        return AP_ERR_BAD_ARGUMENTS;
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

/* DEPTHWISE_CONV_2D, 16x8: CMSIS-NN's generic kernel, which needs no buffer. */
static ap_status_t depthwise_conv_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    conv_call_t c;
    if (!conv_call(ctx, args, nargs, 1, 1, &c) || !without_scratch(ctx, nargs)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const cmsis_nn_dw_conv_params dw = {c.p.input_offset, c.p.output_offset, c.p.ch_mult,
                                        {c.p.stride_w, c.p.stride_h}, {c.p.pad_w, c.p.pad_h},
                                        {c.p.dilation_w, c.p.dilation_h}, {c.p.activation_min, c.p.activation_max}};
    arm_cmsis_nn_status s = arm_depthwise_conv_s16(&c.nn, &dw, &c.quant, &c.input_dims, c.input16, &c.filter_dims,
                                                   c.filter, &c.bias_dims, c.bias64, &c.output_dims, c.output16);
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aDEPTHWISE__CONV__2D__S16 = {"tflite:DEPTHWISE_CONV_2D_S16", depthwise_conv_s16,
                                                                 NULL};

/* Pooling of int8 (width 1) or int16 (width 2) values. */
static ap_status_t pool(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, int average, size_t width) {
    if (ctx == NULL || args == NULL || ctx->ninputs != 2 || ctx->noutputs != 1 || nargs < 3u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[2];
    ap_tflite_pool_params_t p;
    if (!read_params(&args[1], &p, sizeof p)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const int32_t dims[] = {p.batches, p.input_h, p.input_w, p.channels, p.filter_h, p.filter_w,
                            p.output_h, p.output_w, p.stride_w, p.stride_h};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return AP_ERR_BAD_ARGUMENTS;
        }
    }
    if (p.pad_w < 0 || p.pad_h < 0 || p.pad_w > 65535 || p.pad_h > 65535 ||
        input->size !=
            product4(product4((size_t)p.batches, (size_t)p.channels, (size_t)p.input_h, (size_t)p.input_w), width, 1, 1) ||
        output->size !=
            product4(product4((size_t)p.batches, (size_t)p.channels, (size_t)p.output_h, (size_t)p.output_w), width, 1, 1) ||
        !aligned_to(input, width) || !aligned_to(output, width)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    cmsis_nn_context nn;
    if (!scratch_of(ctx, args, nargs, &nn)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const int32_t needed = !average     ? 0
                           : width == 1 ? arm_avgpool_s8_get_buffer_size(p.output_w, p.channels)
                                        : arm_avgpool_s16_get_buffer_size(p.output_w, p.channels);
    ap_status_t enough = enough_scratch(needed, &nn);
    if (enough != AP_OK) {
        return enough;
    }
    const cmsis_nn_pool_params pp = {{p.stride_w, p.stride_h}, {p.pad_w, p.pad_h},
                                       {p.activation_min, p.activation_max}};
    const cmsis_nn_dims input_dims = {p.batches, p.input_h, p.input_w, p.channels};
    const cmsis_nn_dims filter_dims = {1, p.filter_h, p.filter_w, 1};
    const cmsis_nn_dims output_dims = {p.batches, p.output_h, p.output_w, p.channels};
    arm_cmsis_nn_status s;
    if (width == 2) {
        const int16_t *in = (const int16_t *)(const void *)input->data;
        int16_t *out = (int16_t *)(void *)output->data;
        s = average ? arm_avgpool_s16(&nn, &pp, &input_dims, in, &filter_dims, &output_dims, out)
                    : arm_max_pool_s16(&nn, &pp, &input_dims, in, &filter_dims, &output_dims, out);
    } else {
        s = average ? arm_avgpool_s8(&nn, &pp, &input_dims, (const int8_t *)input->data, &filter_dims, &output_dims,
                                     (int8_t *)output->data)
                    : arm_max_pool_s8(&nn, &pp, &input_dims, (const int8_t *)input->data, &filter_dims, &output_dims,
                                      (int8_t *)output->data);
    }
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

static ap_status_t average_pool(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    return pool(ctx, args, nargs, 1, 1);
}

static ap_status_t average_pool_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    return pool(ctx, args, nargs, 1, 2);
}

static ap_status_t max_pool_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    return pool(ctx, args, nargs, 0, 2);
}

const ap_kernel_t ap_kernel_tflite_3aAVERAGE__POOL__2D__S16 = {"tflite:AVERAGE_POOL_2D_S16", average_pool_s16, NULL};
const ap_kernel_t ap_kernel_tflite_3aMAX__POOL__2D__S16 = {"tflite:MAX_POOL_2D_S16", max_pool_s16, NULL};

static ap_status_t max_pool(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    return pool(ctx, args, nargs, 0, 1);
}

const ap_kernel_t ap_kernel_tflite_3aMAX__POOL__2D = {"tflite:MAX_POOL_2D", max_pool, NULL};

const ap_kernel_t ap_kernel_tflite_3aAVERAGE__POOL__2D = {"tflite:AVERAGE_POOL_2D", average_pool, NULL};

static ap_status_t add(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->ninputs != 3 || ctx->noutputs != 1 || nargs < 4u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *a = &args[0], *b = &args[1];
    ap_buffer_t *output = &args[3];
    ap_tflite_add_params_t p;
    if (!read_params(&args[2], &p, sizeof p) || a->size != output->size || b->size != output->size ||
        output->size > INT32_MAX) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    arm_cmsis_nn_status s = arm_elementwise_add_s8(
        (const int8_t *)a->data, (const int8_t *)b->data, p.input1_offset, p.input1_multiplier, p.input1_shift,
        p.input2_offset, p.input2_multiplier, p.input2_shift, p.left_shift, (int8_t *)output->data,
        p.output_offset, p.output_multiplier, p.output_shift, p.activation_min, p.activation_max,
        (int32_t)output->size);
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aADD = {"tflite:ADD", add, NULL};

static ap_status_t mul(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->ninputs != 3 || ctx->noutputs != 1 || nargs != 4u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *a = &args[0], *b = &args[1];
    ap_buffer_t *output = &args[3];
    ap_tflite_mul_params_t p;
    if (!read_params(&args[2], &p, sizeof p) || a->size != output->size || b->size != output->size ||
        output->size > INT32_MAX) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    arm_cmsis_nn_status s = arm_elementwise_mul_s8((const int8_t *)a->data, (const int8_t *)b->data, p.input1_offset,
                                                   p.input2_offset, (int8_t *)output->data, p.output_offset,
                                                   p.multiplier, p.shift, p.activation_min, p.activation_max,
                                                   (int32_t)output->size);
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aMUL = {"tflite:MUL", mul, NULL};

/* ADD and MUL of int16 (16x8 models): the same parameters, CMSIS-NN's _s16 kernels. */
static int elementwise_s16_args(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *params, size_t size) {
    return ctx != NULL && args != NULL && ctx->ninputs == 3 && ctx->noutputs == 1 && nargs == 4u &&
           read_params(&args[2], params, size) && args[0].size == args[3].size && args[1].size == args[3].size &&
           args[3].size % 2 == 0 && args[3].size / 2 <= INT32_MAX && aligned_to(&args[0], 2) &&
           aligned_to(&args[1], 2) && aligned_to(&args[3], 2);
}

static ap_status_t add_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_add_params_t p;
    if (!elementwise_s16_args(ctx, args, nargs, &p, sizeof p) || !shift_ok(p.input1_shift) || !shift_ok(p.input2_shift) ||
        !shift_ok(p.output_shift) || p.left_shift < 0 || p.left_shift > 20) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    arm_cmsis_nn_status s = arm_elementwise_add_s16(
        (const int16_t *)(const void *)args[0].data, (const int16_t *)(const void *)args[1].data, p.input1_offset,
        p.input1_multiplier, p.input1_shift, p.input2_offset, p.input2_multiplier, p.input2_shift, p.left_shift,
        (int16_t *)(void *)args[3].data, p.output_offset, p.output_multiplier, p.output_shift, p.activation_min,
        p.activation_max, (int32_t)(args[3].size / 2));
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aADD__S16 = {"tflite:ADD_S16", add_s16, NULL};

static ap_status_t mul_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_mul_params_t p;
    if (!elementwise_s16_args(ctx, args, nargs, &p, sizeof p) || !shift_ok(p.shift)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    arm_cmsis_nn_status s = arm_elementwise_mul_s16(
        (const int16_t *)(const void *)args[0].data, (const int16_t *)(const void *)args[1].data, p.input1_offset,
        p.input2_offset, (int16_t *)(void *)args[3].data, p.output_offset, p.multiplier, p.shift, p.activation_min,
        p.activation_max, (int32_t)(args[3].size / 2));
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aMUL__S16 = {"tflite:MUL_S16", mul_s16, NULL};

static ap_status_t softmax(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->ninputs != 2 || ctx->noutputs != 1 || nargs < 3u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[2];
    ap_tflite_softmax_params_t p;
    if (!read_params(&args[1], &p, sizeof p) || p.row_size <= 0 || input->size == 0 || input->size % (size_t)p.row_size != 0 || input->size / (size_t)p.row_size > INT32_MAX) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const int32_t rows = (int32_t)(input->size / (size_t)p.row_size);
    if (output->size == input->size) {
        arm_softmax_s8((const int8_t *)input->data, rows, p.row_size, p.multiplier, p.shift, p.diff_min,
                       (int8_t *)output->data);
        return AP_OK;
    }
    if (output->size != 2u * input->size || ((uintptr_t)output->data & 1u) != 0) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    arm_softmax_s8_s16((const int8_t *)input->data, rows, p.row_size, p.multiplier, p.shift, p.diff_min,
                       (int16_t *)(void *)output->data);
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSOFTMAX = {"tflite:SOFTMAX", softmax, NULL};


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
    if (ctx == NULL || args == NULL || ctx->ninputs != 2 || ctx->noutputs != 1 || nargs != 3u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[2];
    ap_tflite_quantize_params_t p;
    if (!read_params(&args[1], &p, sizeof p)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const int widths_ok = (p.input_width == 1 || p.input_width == 2 || p.input_width == 4) &&
                          (p.output_width == 1 || p.output_width == 2 || p.output_width == 4);
    if (!widths_ok || input->size % (size_t)p.input_width != 0 ||
        input->size / (size_t)p.input_width != output->size / (size_t)p.output_width ||
        output->size % (size_t)p.output_width != 0) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const int32_t max = p.output_width == 1 ? INT8_MAX : p.output_width == 2 ? INT16_MAX : INT32_MAX;
    const int32_t min = p.output_width == 1 ? INT8_MIN : p.output_width == 2 ? INT16_MIN : INT32_MIN;
    const size_t n = input->size / (size_t)p.input_width;
    if (p.input_float == 1) {
        /* TFLM's AffineQuantize: in float, rounded half away from zero. */
        float scale;
        memcpy(&scale, &p.multiplier, sizeof scale);
        if (p.input_width != 4 || p.output_width == 4 || !(scale > 0.0f)) {
            return AP_ERR_BAD_ARGUMENTS;
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
        return AP_ERR_BAD_ARGUMENTS;
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

/* TFLM's Dequantize: the scale, in double, times the value less the zero point, as float. */
static ap_status_t dequantize(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->ninputs != 2 || ctx->noutputs != 1 || nargs != 3u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[2];
    ap_tflite_dequantize_params_t p;
    if (!read_params(&args[1], &p, sizeof p) || (p.input_width != 1 && p.input_width != 2) ||
        input->size % (size_t)p.input_width != 0 || output->size != input->size / (size_t)p.input_width * 4u) {
        return AP_ERR_BAD_ARGUMENTS;
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

/* TFLM's Pad: every output element is the input's where it falls inside, else the value. */
static ap_status_t pad(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || (ctx->ninputs != 3 && ctx->ninputs != 4) || ctx->noutputs != 1 ||
        nargs != (size_t)ctx->ninputs + 1u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[n];
    ap_tflite_pad_params_t p;
    if (!read_params(&args[n - 1], &p, sizeof p) || (p.width != 1 && p.width != 2 && p.width != 4)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    size_t in_dims[5], out_dims[5], in_count = 1, out_count = 1;
    for (size_t d = 0; d < 5; d++) {
        if (p.dims[d][0] <= 0 || p.dims[d][0] > 65535 || p.dims[d][1] < 0 || p.dims[d][1] > 65535 ||
            p.dims[d][2] < 0 || p.dims[d][2] > 65535) {
            return AP_ERR_BAD_ARGUMENTS;
        }
        in_dims[d] = (size_t)p.dims[d][0];
        out_dims[d] = in_dims[d] + (size_t)p.dims[d][1] + (size_t)p.dims[d][2];
        /* Five extents of at most 3 x 65535 each: checked, as size_t may be 32 bits. */
        if (in_count > SIZE_MAX / in_dims[d] || out_count > SIZE_MAX / out_dims[d]) {
            return AP_ERR_BAD_ARGUMENTS;
        }
        in_count *= in_dims[d];
        out_count *= out_dims[d];
    }
    const size_t w = (size_t)p.width;
    if (in_count > SIZE_MAX / w || out_count > SIZE_MAX / w || input->size != in_count * w ||
        output->size != out_count * w) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    size_t at[5] = {0, 0, 0, 0, 0};
    for (size_t o = 0; o < out_count; o++) {
        size_t src = 0;
        int inside = 1;
        for (size_t d = 0; d < 5; d++) {
            const size_t before = (size_t)p.dims[d][1];
            inside = inside && at[d] >= before && at[d] < before + in_dims[d];
            src = src * in_dims[d] + (inside ? at[d] - before : 0);
        }
        if (inside) {
            memcpy(output->data + o * w, input->data + src * w, w);
        } else {
            store_int(output->data, o, p.width, p.value);
        }
        for (size_t d = 5; d-- > 0;) {
            if (++at[d] < out_dims[d]) {
                break;
            }
            at[d] = 0;
        }
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aPAD = {"tflite:PAD", pad, NULL};

/* Each outer index: every input's slice after it, in order. */
static ap_status_t concatenation(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->ninputs < 2 || ctx->noutputs != 1 || nargs != (size_t)ctx->ninputs + 1u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const uint32_t n = ctx->ninputs - 1; /* the data inputs, before the params */
    const ap_buffer_t *params = &args[n];
    ap_buffer_t *output = &args[n + 1];
    ap_tflite_concat_params_t p;
    if (params->data == NULL || params->size < sizeof p) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    memcpy(&p, params->data, sizeof p);
    if (p.inputs <= 0 || (uint32_t)p.inputs != n || p.outer < 0 ||
        params->size != sizeof p + (size_t)n * sizeof(int32_t)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    size_t row = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t inner;
        memcpy(&inner, params->data + sizeof p + i * sizeof inner, sizeof inner);
        if (inner < 0 || args[i].size != (size_t)p.outer * (size_t)inner) {
            return AP_ERR_BAD_ARGUMENTS;
        }
        row += (size_t)inner;
    }
    if (output->size != (size_t)p.outer * row) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    uint8_t *out = output->data;
    for (size_t k = 0; k < (size_t)p.outer; k++) {
        for (uint32_t i = 0; i < n; i++) {
            int32_t inner;
            memcpy(&inner, params->data + sizeof p + i * sizeof inner, sizeof inner);
            memcpy(out, args[i].data + k * (size_t)inner, (size_t)inner);
            out += inner;
        }
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aCONCATENATION = {"tflite:CONCATENATION", concatenation, NULL};

static ap_status_t svdf(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || (ctx->ninputs != 6 && ctx->ninputs != 7) || ctx->noutputs != 1 ||
        nargs != (size_t)ctx->ninputs + 2u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *input = &args[0], *features = &args[1], *time = &args[2], *bias = &args[3];
    ap_buffer_t *state = &args[4], *output = &args[n], *scratch = &args[n + 1];
    const ap_buffer_t *sums = n == 7 ? &args[5] : NULL;
    ap_tflite_svdf_params_t p;
    if (!read_params(&args[n - 1], &p, sizeof p)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const int32_t dims[] = {p.rank, p.batches, p.input_size, p.filters, p.memory_size};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return AP_ERR_BAD_ARGUMENTS;
        }
    }
    /* CMSIS-NN keeps the rank in 16 bits. */
    if (p.filters % p.rank != 0 || p.rank > INT16_MAX) {
        return AP_ERR_BAD_ARGUMENTS;
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
        return AP_ERR_BAD_ARGUMENTS;
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
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aSVDF = {"tflite:SVDF", svdf, NULL};

static cmsis_nn_lstm_gate lstm_gate(const ap_tflite_lstm_gate_t *g, const ap_buffer_t *input_weights,
                                    const ap_buffer_t *recurrent_weights, const ap_buffer_t *bias,
                                    const int32_t *input_sums, const int32_t *hidden_sums) {
    const cmsis_nn_lstm_gate gate = {g->input_multiplier, g->input_shift, input_weights->data, input_sums,
                                     g->hidden_multiplier, g->hidden_shift, recurrent_weights->data, hidden_sums,
                                     bias->data, g->activation == 1 ? ARM_TANH : ARM_SIGMOID};
    return gate;
}

static ap_status_t lstm(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->ninputs != 17 || ctx->noutputs != 1 || nargs != 19u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *input = &args[0], *sums = &args[15];
    ap_buffer_t *hidden = &args[13], *cell = &args[14], *output = &args[17], *scratch = &args[18];
    ap_tflite_lstm_params_t p;
    if (!read_params(&args[16], &p, sizeof p)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const int32_t dims[] = {p.batches, p.time_steps, p.input_size, p.hidden_size};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return AP_ERR_BAD_ARGUMENTS;
        }
    }
    const size_t b = (size_t)p.batches, h = (size_t)p.hidden_size, in = (size_t)p.input_size;
    const size_t steps = (size_t)p.time_steps;
    const size_t in_bytes = product4(b, steps, in, 1), out_bytes = product4(b, steps, h, 1);
    int ok = in_bytes != 0 && out_bytes != 0 && input->size == in_bytes && output->size == out_bytes &&
             hidden->size == b * h && cell->size == product4(b, h, sizeof(int16_t), 1) &&
             sums->size == 8u * h * sizeof(int32_t) && scratch->size >= product4(2u, b, h, sizeof(int16_t)) && int32_aligned(sums) && int32_aligned(scratch) &&
             ((uintptr_t)cell->data & 1u) == 0;
    for (size_t g = 0; ok && g < 4; g++) {
        ok = args[1 + g].size == h * in && args[5 + g].size == h * h && args[9 + g].size == h * sizeof(int32_t) &&
             int32_aligned(&args[9 + g]);
    }
    if (!ok) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    /* The model's gates are input, forget, cell, output; CMSIS-NN's and the sums', forget,
     * input, cell, output. */
    const int32_t *s = (const int32_t *)(const void *)sums->data;
    static const size_t model_gate[4] = {1, 0, 2, 3};
    const ap_tflite_lstm_gate_t *gates[4] = {&p.forget_gate, &p.input_gate, &p.cell_gate, &p.output_gate};
    cmsis_nn_lstm_gate g[4];
    for (size_t k = 0; k < 4; k++) {
        const size_t m = model_gate[k];
        g[k] = lstm_gate(gates[k], &args[1 + m], &args[5 + m], &args[9 + m], s + k * h, s + (4 + k) * h);
    }
    const cmsis_nn_lstm_params lp = {p.time_major, p.batches, p.time_steps, p.input_size, p.hidden_size,
                                     p.input_offset, p.forget_to_cell_multiplier, p.forget_to_cell_shift,
                                     p.input_to_cell_multiplier, p.input_to_cell_shift, p.cell_clip,
                                     p.cell_scale_power, p.output_multiplier, p.output_shift, p.output_offset,
                                     g[0], g[1], g[2], g[3]};
    /* The states are the model's variable tensors: CMSIS-NN starts from them and leaves the
     * last step's in them, so they carry into the next invocation as under TFLM. */
    int16_t *temp = (int16_t *)(void *)scratch->data;
    cmsis_nn_lstm_context buffers = {temp, temp + b * h, cell->data, hidden->data};
    arm_cmsis_nn_status st = arm_lstm_unidirectional_s8((const int8_t *)input->data, (int8_t *)output->data, &lp,
                                                        &buffers);
    return st == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aUNIDIRECTIONAL__SEQUENCE__LSTM = {"tflite:UNIDIRECTIONAL_SEQUENCE_LSTM", lstm,
                                                                      NULL};

static ap_status_t reshape(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->ninputs != 1 || ctx->noutputs != 1 || nargs < 2u ||
        args[0].size != args[1].size) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    if (args[0].size > 0 && args[0].data != args[1].data) {
        memmove(args[1].data, args[0].data, args[0].size);
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aRESHAPE = {"tflite:RESHAPE", reshape, NULL};
