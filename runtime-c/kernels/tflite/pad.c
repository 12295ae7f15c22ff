/* PAD (see arenaplan/tflite.h): a port of TFLM's reference Pad over five dimensions, elements of
 * 1, 2 or 4 bytes. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

/* TFLM's Pad: every output element is the input's where it falls inside, else the value. */
static ap_status_t pad(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_counts(ctx, args, nargs, 3, 4, 1, 0, 0)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[n];
    ap_tflite_pad_params_t p;
    if (!read_params(&args[n - 1], &p, sizeof p) || (p.width != 1 && p.width != 2 && p.width != 4)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    size_t in_dims[5], out_dims[5], in_count = 1, out_count = 1;
    for (size_t d = 0; d < 5; d++) {
        if (p.dims[d][0] <= 0 || p.dims[d][0] > 65535 || p.dims[d][1] < 0 || p.dims[d][1] > 65535 ||
            p.dims[d][2] < 0 || p.dims[d][2] > 65535) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        in_dims[d] = (size_t)p.dims[d][0];
        out_dims[d] = in_dims[d] + (size_t)p.dims[d][1] + (size_t)p.dims[d][2];
        /* Five extents of at most 3 x 65535 each: checked, as size_t may be 32 bits. */
        if (in_count > SIZE_MAX / in_dims[d] || out_count > SIZE_MAX / out_dims[d]) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        in_count *= in_dims[d];
        out_count *= out_dims[d];
    }
    const size_t w = (size_t)p.width;
    if (in_count > SIZE_MAX / w || out_count > SIZE_MAX / w || input->size != in_count * w ||
        output->size != out_count * w) {
        return AP_ERR_ARGUMENT_MISMATCH;
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
