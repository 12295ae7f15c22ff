/* SignalPCAN: TFLite Micro's signal-library per-channel amplitude normalization, each channel times
 * the gain of its noise estimate (TFLM's WideDynamicFunction table), shrunk.
 * TFLM's signal library holds its audio front end's custom operators; this port keeps its
 * fixed-point arithmetic, so the same output bytes (see arenaplan/tflite.h for the arguments and
 * arenaplan-build's src/kernels/tflite/signal.rs for what the build checks first). Elements are
 * read and written through memcpy (common.h): a constant's bytes need not be aligned for its
 * type. Where TFLM's C++ relies on two's complement (an int16 sum wrapping, a right shift of a
 * negative number), this code does too, as GCC and Clang define it. */
#include "arenaplan/tflite.h"

#include "common.h"

/* TFLM's PCAN fixed-point constants: the SNR's and the output's fractional bits. */
#define AP_PCAN_SNR_BITS 12
#define AP_PCAN_OUTPUT_BITS 6

/* TFLM's WideDynamicFunction: the gain table's quadratic for x's octave. */
static int16_t wide_dynamic(uint32_t x, const uint8_t *lut) {
    if (x <= 2u) {
        return ld_i16(lut, x);
    }
    const int32_t interval = (int32_t)msb32(x);
    const size_t at = (size_t)(4 * interval - 6);
    const int16_t frac =
        (int16_t)(((interval < 11) ? (x << (11 - interval)) : (x >> (interval - 11))) & 0x3FFu);
    int32_t result = ((int32_t)ld_i16(lut, at + 2u) * frac) >> 5;
    result += (int32_t)((uint32_t)ld_i16(lut, at + 1u) << 5);
    result = (int32_t)((uint32_t)result * (uint32_t)(int32_t)frac);
    result = (int32_t)((uint32_t)result + (1u << 14)) >> 15;
    result += ld_i16(lut, at);
    return (int16_t)result;
}

/* x^2 / 4 below 2, x - 1 above, from SNR bits to output bits. */
static uint32_t pcan_shrink(uint32_t x) {
    if (x < (2u << AP_PCAN_SNR_BITS)) {
        return (x * x) >> (2 + 2 * AP_PCAN_SNR_BITS - AP_PCAN_OUTPUT_BITS);
    }
    return (x >> (AP_PCAN_SNR_BITS - AP_PCAN_OUTPUT_BITS)) - (1u << AP_PCAN_OUTPUT_BITS);
}

static ap_status_t pcan(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_pcan_params_t p;
    if (!io_is(ctx, args, nargs, 4, 1) || !read_params(&args[3], &p, sizeof p) || !count_ok(p.count) ||
        p.snr_shift < 0 || p.snr_shift > 63 || p.lut_count < 125 || !count_ok(p.lut_count)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *in = &args[0], *noise = &args[1], *lut = &args[2];
    ap_buffer_t *out = &args[4];
    const size_t n = (size_t)p.count;
    if (in->size != 4u * n || noise->size != 4u * n || out->size != 4u * n || lut->size != 2u * (size_t)p.lut_count) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t i = 0; i < n; i++) {
        /* The int16 gain as TFLM widens it: negative ones become large. */
        const uint32_t gain = (uint32_t)(int32_t)wide_dynamic(ld_u32(noise->data, i), lut->data);
        const uint32_t snr = (uint32_t)(((uint64_t)ld_u32(in->data, i) * gain) >> p.snr_shift);
        st_u32(out->data, i, pcan_shrink(snr));
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalPCAN = {"tflite:SignalPCAN", pcan, NULL};
