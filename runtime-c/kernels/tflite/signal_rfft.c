/* SignalRfft: TFLite Micro's signal-library real FFT of each frame, on the port of kissfft's
 * fixed-point real FFT in kissfft.c (the FFT TFLM builds it on), with the twiddles and
 * factorization the build computed.
 * TFLM's signal library holds its audio front end's custom operators; this port keeps its
 * fixed-point arithmetic, so the same output bytes (see arenaplan/tflite.h for the arguments and
 * arenaplan-build's src/kernels/tflite/signal.rs for what the build checks first). Elements are
 * read and written through memcpy (common.h): a constant's bytes need not be aligned for its
 * type. Where TFLM's C++ relies on two's complement (an int16 sum wrapping, a right shift of a
 * negative number), this code does too, as GCC and Clang define it. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"
#include "kissfft.h"

/* The most (radix, length) pairs a factorization may have (kissfft's MAXFACTORS). */
#define AP_RFFT_MAX_FACTORS 32

static ap_status_t rfft(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_rfft_params_t p;
    int32_t factors[2 * AP_RFFT_MAX_FACTORS];
    if (!io_is(ctx, args, nargs, 4, 1) || args[3].data == NULL || args[3].size < sizeof p) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    memcpy(&p, args[3].data, sizeof p);
    if (p.half < 2 || p.half > (1 << 15) || p.input_length <= 0 || p.input_length > 2 * p.half || p.frames < 0 ||
        p.factors <= 0 || p.factors > AP_RFFT_MAX_FACTORS ||
        args[3].size != sizeof p + 2u * (size_t)p.factors * sizeof(int32_t)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    memcpy(factors, args[3].data + sizeof p, 2u * (size_t)p.factors * sizeof(int32_t));
    /* The factorization must multiply out to half, each radix one this code has. */
    int32_t length = p.half;
    for (int32_t k = 0; k < p.factors; k++) {
        const int32_t radix = factors[2 * k], rest = factors[2 * k + 1];
        if (radix < 2 || radix > 5 || length % radix != 0 || length / radix != rest) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        length = rest;
    }
    const size_t half = (size_t)p.half, frame_in = (size_t)p.input_length, frame_out = half + 1u;
    const ap_buffer_t *in = &args[0], *tw = &args[1], *super = &args[2];
    ap_buffer_t *out = &args[4];
    if (length != 1 || tw->size != 4u * half || super->size != 4u * (half / 2u) ||
        in->size != product4(2u, frame_in, (size_t)p.frames, 1) ||
        out->size != product4(4u, frame_out, (size_t)p.frames, 1) ||
        !aligned_to(out, 2)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    ap_tflite_fft_t f = {tw->data, factors, p.factors, NULL, frame_in};
    for (size_t frame = 0; frame < (size_t)p.frames; frame++) {
        f.input = in->data + 2u * frame_in * frame;
        /* The frame's half + 1 bins, computed in place in the output (kiss_fftr's tmpbuf). */
        ap_tflite_kiss_fftr(&f, super->data, half, (ap_tflite_cpx_t *)(void *)(out->data + 4u * frame_out * frame));
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalRfft = {"tflite:SignalRfft", rfft, NULL};
