/* SignalWindow: TFLite Micro's signal-library window, each frame's samples times the window in
 * Q(shift), saturated to int16.
 * TFLM's signal library holds its audio front end's custom operators; this port keeps its
 * fixed-point arithmetic, so the same output bytes (see arenaplan/tflite.h for the arguments and
 * arenaplan-build's src/kernels/tflite/signal.rs for what the build checks first). Elements are
 * read and written through memcpy (common.h): a constant's bytes need not be aligned for its
 * type. Where TFLM's C++ relies on two's complement (an int16 sum wrapping, a right shift of a
 * negative number), this code does too, as GCC and Clang define it. */
#include "arenaplan/tflite.h"

#include "common.h"

static ap_status_t window(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_window_params_t p;
    if (!io_is(ctx, args, nargs, 3, 1) || !read_params(&args[2], &p, sizeof p) || p.frame <= 0 || p.count < 0 ||
        p.count % p.frame != 0 || p.shift < 0 || p.shift > 31 || !count_ok(p.count) || !count_ok(p.frame)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *in = &args[0], *w = &args[1];
    ap_buffer_t *out = &args[3];
    const size_t n = (size_t)p.count, frame = (size_t)p.frame;
    if (in->size != 2u * n || out->size != 2u * n || w->size != 2u * frame) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t i = 0; i < n; i++) {
        const int32_t raw = ((int32_t)ld_i16(in->data, i) * ld_i16(w->data, i % frame)) >> p.shift;
        st_i16(out->data, i, (int16_t)(raw < INT16_MIN ? INT16_MIN : raw > INT16_MAX ? INT16_MAX : raw));
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalWindow = {"tflite:SignalWindow", window, NULL};
