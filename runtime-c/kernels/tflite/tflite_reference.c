/* TFLite operators without a CMSIS-NN kernel, ported from TFLM's reference kernels: integer
 * arithmetic with broadcasting, CAST, STRIDED_SLICE, TRANSPOSE_CONV, MEAN, RELU and RELU6
 * (see arenaplan/tflite.h); the quantized ones requantize by CMSIS-NN's rule, which is TFLM's. Sums and
 * products wrap as two's complement; a division by zero gives 0 and INT32_MIN / -1 gives
 * INT32_MIN, as Cortex-M's SDIV does, where TFLM's C++ leaves both undefined. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "arm_nnsupportfunctions.h"
#include "tflite_args.h"

static int32_t apply(int32_t op, int32_t a, int32_t b) {
    switch (op) {
    case 0:
        return (int32_t)((uint32_t)a + (uint32_t)b);
    case 1:
        return (int32_t)((uint32_t)a * (uint32_t)b);
    case 2:
        if (b == 0) {
            return 0;
        }
        if (a == INT32_MIN && b == -1) {
            return INT32_MIN;
        }
        return a / b;
    case 3:
        return a > b ? a : b;
    default:
        return a < b ? a : b;
    }
}

/* The largest index a (count, stride) walk over five dimensions reaches, or SIZE_MAX past
 * size_t (extents are positive). */
static size_t reach(const int32_t *extent, const int32_t *stride) {
    size_t r = 0;
    for (int d = 0; d < 5; d++) {
        if (stride[d] < 0) {
            return SIZE_MAX;
        }
        const size_t step = product4((size_t)(extent[d] - 1), (size_t)stride[d], 1, 1);
        if (step == SIZE_MAX || r > SIZE_MAX - 1u - step) {
            return SIZE_MAX;
        }
        r += step;
    }
    return r;
}

static ap_status_t int_binary(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_int_binary_params_t p;
    if (!io_is(ctx, args, nargs, 3, 1) || !read_params(&args[2], &p, sizeof p) || p.op < 0 || p.op > 4 ||
        (p.width != 1 && p.width != 2 && p.width != 4)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    size_t count = 1;
    for (int d = 0; d < 5; d++) {
        if (p.extent[d] <= 0 || p.extent[d] > 65535) {
            return AP_ERR_BAD_ARGUMENTS;
        }
        count = product4(count, (size_t)p.extent[d], 1, 1);
    }
    const ap_buffer_t *a = &args[0], *b = &args[1];
    ap_buffer_t *out = &args[3];
    const size_t w = (size_t)p.width;
    if (count == 0 || out->size != product4(count, w, 1, 1) || reach(p.extent, p.a_stride) >= a->size / w ||
        reach(p.extent, p.b_stride) >= b->size / w) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    size_t o = 0;
    int32_t i[5];
    for (i[0] = 0; i[0] < p.extent[0]; i[0]++) {
        for (i[1] = 0; i[1] < p.extent[1]; i[1]++) {
            for (i[2] = 0; i[2] < p.extent[2]; i[2]++) {
                for (i[3] = 0; i[3] < p.extent[3]; i[3]++) {
                    for (i[4] = 0; i[4] < p.extent[4]; i[4]++) {
                        size_t ia = 0, ib = 0;
                        for (int d = 0; d < 5; d++) {
                            ia += (size_t)i[d] * (size_t)p.a_stride[d];
                            ib += (size_t)i[d] * (size_t)p.b_stride[d];
                        }
                        int32_t v = apply(p.op, load_int(a->data, ia, p.width), load_int(b->data, ib, p.width));
                        v = v < p.activation_min ? p.activation_min : v > p.activation_max ? p.activation_max : v;
                        store_int(out->data, o++, p.width, v);
                    }
                }
            }
        }
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aINT__BINARY = {"tflite:INT_BINARY", int_binary, NULL};

/* Bytes per element of CAST's types, by code (1 int8, 2 int16, 3 int32, 4 uint32, 5 bool,
 * 6 float32); 0 for none. */
static size_t cast_width(int32_t type) {
    static const size_t widths[7] = {0, 1, 2, 4, 4, 1, 4};
    return type >= 1 && type <= 6 ? widths[type] : 0;
}

static ap_status_t cast(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_cast_params_t p;
    if (!io_is(ctx, args, nargs, 2, 1) || !read_params(&args[1], &p, sizeof p) || p.count < 0 || p.from == 6 ||
        p.to == 5) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const size_t wi = cast_width(p.from), wo = cast_width(p.to), n = (size_t)p.count;
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[2];
    if (wi == 0 || wo == 0 || !count_ok(p.count) || in->size != wi * n || out->size != wo * n) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    for (size_t i = 0; i < n; i++) {
        /* The value, exactly: every input type fits in int64. */
        int64_t v;
        if (p.from == 4) {
            uint32_t u;
            memcpy(&u, in->data + 4u * i, sizeof u);
            v = u;
        } else if (p.from == 5) {
            v = in->data[i] != 0;
        } else {
            v = load_int(in->data, i, (int32_t)wi);
        }
        if (p.to == 6) {
            const float f = (float)v;
            memcpy(out->data + 4u * i, &f, sizeof f);
        } else if (p.to == 4) {
            const uint32_t u = (uint32_t)v;
            memcpy(out->data + 4u * i, &u, sizeof u);
        } else {
            store_int(out->data, i, (int32_t)wo, (int32_t)(uint32_t)(uint64_t)v);
        }
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aCAST = {"tflite:CAST", cast, NULL};

static ap_status_t strided_slice(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_strided_slice_params_t p;
    if (!io_is(ctx, args, nargs, 5, 1) || !read_params(&args[4], &p, sizeof p) ||
        (p.width != 1 && p.width != 2 && p.width != 4)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    size_t in_count = 1, out_count = 1, inner[5];
    for (int d = 4; d >= 0; d--) {
        const int32_t n = p.count[d], e = p.extent[d];
        if (e <= 0 || e > 65535 || n < 0 || n > 65535 || p.step[d] == 0 || p.step[d] < -65535 || p.step[d] > 65535) {
            return AP_ERR_BAD_ARGUMENTS;
        }
        /* The first and last index taken stay inside the dimension. */
        if (n > 0) {
            const int64_t last = (int64_t)p.first[d] + (int64_t)(n - 1) * p.step[d];
            if (p.first[d] < 0 || p.first[d] >= e || last < 0 || last >= e) {
                return AP_ERR_BAD_ARGUMENTS;
            }
        }
        inner[d] = in_count;
        in_count = product4(in_count, (size_t)e, 1, 1);
        out_count = product4(out_count, (size_t)n, 1, 1);
    }
    const size_t w = (size_t)p.width;
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[5];
    if (in_count == 0 || in->size != product4(in_count, w, 1, 1) || out->size != product4(out_count, w, 1, 1)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    uint8_t *o = out->data;
    int32_t i[5];
    for (i[0] = 0; i[0] < p.count[0]; i[0]++) {
        for (i[1] = 0; i[1] < p.count[1]; i[1]++) {
            for (i[2] = 0; i[2] < p.count[2]; i[2]++) {
                for (i[3] = 0; i[3] < p.count[3]; i[3]++) {
                    for (i[4] = 0; i[4] < p.count[4]; i[4]++) {
                        size_t at = 0;
                        for (int d = 0; d < 5; d++) {
                            at += (size_t)(p.first[d] + i[d] * p.step[d]) * inner[d];
                        }
                        memcpy(o, in->data + at * w, w);
                        o += w;
                    }
                }
            }
        }
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSTRIDED__SLICE = {"tflite:STRIDED_SLICE", strided_slice, NULL};

static int32_t clamp32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* TRANSPOSE_CONV: for each output, the inputs whose filter taps land on it (TFLM's reference
 * scatters each input instead, into an int32 accumulator per output: the same sums). */
static ap_status_t transpose_conv(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->noutputs != 1 || (ctx->ninputs != 4 && ctx->ninputs != 5) ||
        nargs != (size_t)ctx->ninputs + 1u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *filter = &args[1], *input = &args[2], *bias = n == 5 ? &args[3] : NULL, *params = &args[n - 1];
    ap_buffer_t *output = &args[n];
    ap_tflite_conv_params_t p;
    if (params->data == NULL || params->size < sizeof p) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    memcpy(&p, params->data, sizeof p);
    const int32_t dims[] = {p.batches, p.input_h, p.input_w, p.input_c, p.filter_h, p.filter_w,
                            p.output_h, p.output_w, p.output_c, p.stride_w, p.stride_h};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return AP_ERR_BAD_ARGUMENTS;
        }
    }
    const size_t oc = (size_t)p.output_c, ic = (size_t)p.input_c;
    if (p.pad_w < 0 || p.pad_h < 0 || p.pad_w > 65535 || p.pad_h > 65535 ||
        params->size != sizeof p + 2u * oc * sizeof(int32_t) ||
        input->size != product4((size_t)p.batches, (size_t)p.input_h, (size_t)p.input_w, ic) ||
        filter->size != product4(oc, (size_t)p.filter_h, (size_t)p.filter_w, ic) ||
        (bias != NULL && bias->size != oc * sizeof(int32_t)) ||
        output->size != product4((size_t)p.batches, (size_t)p.output_h, (size_t)p.output_w, oc)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    for (size_t o = 0; o < oc; o++) {
        int32_t shift;
        memcpy(&shift, params->data + sizeof p + 4u * (oc + o), sizeof shift);
        if (!shift_ok(shift)) {
            return AP_ERR_BAD_ARGUMENTS;
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

/* MEAN: each output (the kept dimensions, in order) the sum of its reduced elements, as int32
 * wrapping as TFLM's, less count x input zero, requantized. */
static ap_status_t mean(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_mean_params_t p;
    if (!io_is(ctx, args, nargs, 3, 1) || !read_params(&args[2], &p, sizeof p) || (p.width != 1 && p.width != 2) ||
        !shift_ok(p.shift)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    size_t in_count = 1, out_count = 1, stride[5];
    int64_t reduced = 1;
    for (int d = 4; d >= 0; d--) {
        if (p.extent[d] <= 0 || p.extent[d] > 65535 || (p.reduced[d] != 0 && p.reduced[d] != 1)) {
            return AP_ERR_BAD_ARGUMENTS;
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
        return AP_ERR_BAD_ARGUMENTS;
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

static ap_status_t relu(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_relu_params_t p;
    if (!io_is(ctx, args, nargs, 2, 1) || !read_params(&args[1], &p, sizeof p) || (p.width != 1 && p.width != 2) ||
        !count_ok(p.count) || (p.requantize && !shift_ok(p.shift))) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[2];
    const size_t n = (size_t)p.count, w = (size_t)p.width;
    if (in->size != n * w || out->size != n * w) {
        return AP_ERR_BAD_ARGUMENTS;
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
