/* SignalFftAutoScale: TFLite Micro's signal-library FFT auto scale, the samples shifted left as far
 * as the largest magnitude allows, and the shift.
 * TFLM's signal library holds its audio front end's custom operators; this port keeps its
 * fixed-point arithmetic, so the same output bytes (see arenaplan/tflite.h for the arguments and
 * arenaplan-build's src/kernels/tflite/signal.rs for what the build checks first). Elements are
 * read and written through memcpy (common.h): a constant's bytes need not be aligned for its
 * type. Where TFLM's C++ relies on two's complement (an int16 sum wrapping, a right shift of a
 * negative number), this code does too, as GCC and Clang define it. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

static ap_status_t fft_auto_scale(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_count_params_t p;
    if (!io_is(ctx, args, nargs, 2, 2) || !read_params(&args[1], &p, sizeof p) || !count_ok(p.count)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[2], *bits = &args[3];
    const size_t n = (size_t)p.count;
    if (in->size != 2u * n || out->size != 2u * n || bits->size != 4u) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    /* TFLM's MaxAbs16: an int16 maximum, so -32768 wraps to itself. */
    int16_t max = 0;
    for (size_t i = 0; i < n; i++) {
        const int16_t v = ld_i16(in->data, i);
        if (v > max) {
            max = v;
        } else if (-v > max) {
            max = (int16_t)-v;
        }
    }
    int32_t scale = 16 - (int32_t)msb32((uint32_t)(int32_t)max) - 1;
    if (scale < 0) {
        scale = 0;
    }
    for (size_t i = 0; i < n; i++) {
        st_i16(out->data, i, (int16_t)(ld_i16(in->data, i) * (1 << scale)));
    }
    memcpy(bits->data, &scale, sizeof scale);
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalFftAutoScale = {"tflite:SignalFftAutoScale", fft_auto_scale, NULL};
