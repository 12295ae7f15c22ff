/* SignalFilterBank: TFLite Micro's signal-library filter bank, each channel's band of the spectrum
 * summed with its weights, in uint64.
 * TFLM's signal library holds its audio front end's custom operators; this port keeps its
 * fixed-point arithmetic, so the same output bytes (see arenaplan/tflite.h for the arguments and
 * arenaplan-build's src/kernels/tflite/signal.rs for what the build checks first). Elements are
 * read and written through memcpy (common.h): a constant's bytes need not be aligned for its
 * type. Where TFLM's C++ relies on two's complement (an int16 sum wrapping, a right shift of a
 * negative number), this code does too, as GCC and Clang define it. */
#include "arenaplan/tflite.h"

#include "common.h"

static ap_status_t filter_bank(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_filter_bank_params_t p;
    if (!io_is(ctx, args, nargs, 7, 1) || !read_params(&args[6], &p, sizeof p) || p.channels <= 0 ||
        !count_ok(p.channels) || !count_ok(p.input_count) || !count_ok(p.weight_count)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *in = &args[0], *w = &args[1], *u = &args[2], *freq = &args[3], *wstart = &args[4],
                      *width = &args[5];
    ap_buffer_t *out = &args[7];
    const size_t channels = (size_t)p.channels;
    if (in->size != 4u * (size_t)p.input_count || w->size != 2u * (size_t)p.weight_count || u->size != w->size ||
        freq->size < 2u * (channels + 1u) || wstart->size < 2u * (channels + 1u) ||
        width->size < 2u * (channels + 1u) || out->size != 8u * channels) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    /* Channel i's band, weighted, and the band before it unweighted: channel 0 of TFLM's
     * num_channels + 1 is only the first band's unweighted part, which it drops. */
    uint64_t weighted = 0, unweighted = 0;
    for (size_t i = 0; i <= channels; i++) {
        const int32_t f0 = ld_i16(freq->data, i), w0 = ld_i16(wstart->data, i), n = ld_i16(width->data, i);
        if (n > 0 && (f0 < 0 || w0 < 0 || f0 + n > p.input_count || w0 + n > p.weight_count)) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        for (int32_t j = 0; j < n; j++) {
            const uint64_t x = ld_u32(in->data, (size_t)(f0 + j));
            weighted += (uint64_t)(int64_t)ld_i16(w->data, (size_t)(w0 + j)) * x;
            unweighted += (uint64_t)(int64_t)ld_i16(u->data, (size_t)(w0 + j)) * x;
        }
        if (i > 0) {
            st_u64(out->data, i - 1u, weighted);
        }
        weighted = unweighted;
        unweighted = 0;
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalFilterBank = {"tflite:SignalFilterBank", filter_bank, NULL};
