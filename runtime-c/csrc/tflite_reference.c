/* TFLite operators without a CMSIS-NN kernel, ported from TFLM's reference kernels: integer
 * arithmetic with broadcasting, CAST and STRIDED_SLICE (see arenaplan/tflite.h). Sums and
 * products wrap as two's complement; a division by zero gives 0 and INT32_MIN / -1 gives
 * INT32_MIN, as Cortex-M's SDIV does, where TFLM's C++ leaves both undefined. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "tflite_args.h"

/* Element i of a buffer of `width`-byte signed integers, widened. */
static int32_t load(const uint8_t *p, size_t i, int32_t width) {
    switch (width) {
    case 1:
        return (int8_t)p[i];
    case 2: {
        int16_t v;
        memcpy(&v, p + 2u * i, sizeof v);
        return v;
    }
    default: {
        int32_t v;
        memcpy(&v, p + 4u * i, sizeof v);
        return v;
    }
    }
}

static void store(uint8_t *p, size_t i, int32_t width, int32_t v) {
    switch (width) {
    case 1:
        p[i] = (uint8_t)(int8_t)v;
        break;
    case 2: {
        const int16_t x = (int16_t)v;
        memcpy(p + 2u * i, &x, sizeof x);
        break;
    }
    default:
        memcpy(p + 4u * i, &v, sizeof v);
        break;
    }
}

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

/* The largest index a (count, stride) walk over five dimensions reaches, or -1 past size_t. */
static size_t reach(const int32_t *extent, const int32_t *stride) {
    size_t r = 0;
    for (int d = 0; d < 5; d++) {
        if (stride[d] < 0) {
            return (size_t)-1;
        }
        r += (size_t)(extent[d] - 1) * (size_t)stride[d];
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
    if (count == 0 || out->size != count * w || reach(p.extent, p.a_stride) >= a->size / w ||
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
                        int32_t v = apply(p.op, load(a->data, ia, p.width), load(b->data, ib, p.width));
                        v = v < p.activation_min ? p.activation_min : v > p.activation_max ? p.activation_max : v;
                        store(out->data, o++, p.width, v);
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
    if (wi == 0 || wo == 0 || in->size != wi * n || out->size != wo * n) {
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
            v = load(in->data, i, (int32_t)wi);
        }
        if (p.to == 6) {
            const float f = (float)v;
            memcpy(out->data + 4u * i, &f, sizeof f);
        } else if (p.to == 4) {
            const uint32_t u = (uint32_t)v;
            memcpy(out->data + 4u * i, &u, sizeof u);
        } else {
            store(out->data, i, (int32_t)wo, (int32_t)(uint32_t)(uint64_t)v);
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
        if (e <= 0 || e > 65535 || n < 0 || n > 65535) {
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
    if (in_count == 0 || in->size != in_count * w || out->size != out_count * w) {
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
