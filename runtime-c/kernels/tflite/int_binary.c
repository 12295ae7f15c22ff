/* INT_BINARY (see arenaplan/tflite.h): ADD, MUL, DIV, MAXIMUM and MINIMUM of unquantized
 * integer tensors with broadcasting, a port of TFLM's reference kernels. Sums and products wrap
 * as two's complement; a division by zero gives 0 and INT32_MIN / -1 gives INT32_MIN, as
 * Cortex-M's SDIV does, where TFLM's C++ leaves both undefined. */
#include "arenaplan/tflite.h"

#include "common.h"

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
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    size_t count = 1;
    for (int d = 0; d < 5; d++) {
        if (p.extent[d] <= 0 || p.extent[d] > 65535) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        count = product4(count, (size_t)p.extent[d], 1, 1);
    }
    const ap_buffer_t *a = &args[0], *b = &args[1];
    ap_buffer_t *out = &args[3];
    const size_t w = (size_t)p.width;
    if (count == 0 || out->size != product4(count, w, 1, 1) || reach(p.extent, p.a_stride) >= a->size / w ||
        reach(p.extent, p.b_stride) >= b->size / w) {
        return AP_ERR_ARGUMENT_MISMATCH;
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
