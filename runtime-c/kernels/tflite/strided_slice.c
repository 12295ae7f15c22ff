/* STRIDED_SLICE (see arenaplan/tflite.h): a port of TFLM's reference strided slice over five
 * dimensions, with each dimension's first index, count and step resolved at build time. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

static ap_status_t strided_slice(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_strided_slice_params_t p;
    if (!io_is(ctx, args, nargs, 5, 1) || !read_params(&args[4], &p, sizeof p) ||
        (p.width != 1 && p.width != 2 && p.width != 4)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    size_t in_count = 1, out_count = 1, inner[5];
    for (int d = 4; d >= 0; d--) {
        const int32_t n = p.count[d], e = p.extent[d];
        if (e <= 0 || e > 65535 || n < 0 || n > 65535 || p.step[d] == 0 || p.step[d] < -65535 || p.step[d] > 65535) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        /* The first and last index taken stay inside the dimension. */
        if (n > 0) {
            const int64_t last = (int64_t)p.first[d] + (int64_t)(n - 1) * p.step[d];
            if (p.first[d] < 0 || p.first[d] >= e || last < 0 || last >= e) {
                return AP_ERR_ARGUMENT_MISMATCH;
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
        return AP_ERR_ARGUMENT_MISMATCH;
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
