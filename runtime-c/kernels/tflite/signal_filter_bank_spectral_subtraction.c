/* SignalFilterBankSpectralSubtraction: TFLite Micro's signal-library spectral subtraction, a
 * smoothed noise estimate per channel (the state) subtracted, down to a floor.
 * TFLM's signal library holds its audio front end's custom operators; this port keeps its
 * fixed-point arithmetic, so the same output bytes (see arenaplan/tflite.h for the arguments and
 * arenaplan-build's src/kernels/tflite/signal.rs for what the build checks first). Elements are
 * read and written through memcpy (common.h): a constant's bytes need not be aligned for its
 * type. Where TFLM's C++ relies on two's complement (an int16 sum wrapping, a right shift of a
 * negative number), this code does too, as GCC and Clang define it. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

static ap_status_t spectral_subtraction(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_spectral_subtraction_params_t p;
    if (!io_is(ctx, args, nargs, 3, 2) || !read_params(&args[2], &p, sizeof p) || !count_ok(p.channels) ||
        p.smoothing_bits < 0 || p.smoothing_bits > 31 || p.spectral_subtraction_bits < 0 ||
        p.spectral_subtraction_bits > 63) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *state = &args[1], *out = &args[3], *noise = &args[4];
    const size_t n = (size_t)p.channels;
    if (in->size != 4u * n || state->size != 4u * n || out->size != 4u * n || noise->size != 4u * n) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t i = 0; i < n; i++) {
        const int odd = (i & 1u) != 0;
        const uint32_t smoothing = odd ? p.alternate_smoothing : p.smoothing;
        const uint32_t one_minus = odd ? p.alternate_one_minus_smoothing : p.one_minus_smoothing;
        const uint32_t x = ld_u32(in->data, i);
        const uint32_t scaled = x << p.smoothing_bits;
        uint32_t estimate = (uint32_t)(((uint64_t)scaled * smoothing + (uint64_t)ld_u32(state->data, i) * one_minus) >>
                                       p.spectral_subtraction_bits);
        st_u32(state->data, i, estimate);
        if (estimate > scaled) {
            estimate = scaled;
            if (p.clamping) {
                st_u32(state->data, i, estimate);
            }
        }
        const uint32_t floor = (uint32_t)(((uint64_t)x * p.min_signal_remaining) >> p.spectral_subtraction_bits);
        const uint32_t subtracted = (scaled - estimate) >> p.smoothing_bits;
        st_u32(out->data, i, subtracted > floor ? subtracted : floor);
    }
    if (n > 0) { /* empty buffers' pointers may be NULL, which memcpy may not be given */
        memcpy(noise->data, state->data, 4u * n);
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalFilterBankSpectralSubtraction = {
    "tflite:SignalFilterBankSpectralSubtraction", spectral_subtraction, NULL};
