/* CAST (see arenaplan/tflite.h): a port of TFLM's reference cast, each element converted as C
 * converts it. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

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
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const size_t wi = cast_width(p.from), wo = cast_width(p.to), n = (size_t)p.count;
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[2];
    if (wi == 0 || wo == 0 || !count_ok(p.count) || in->size != wi * n || out->size != wo * n) {
        return AP_ERR_ARGUMENT_MISMATCH;
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
