/* SignalFilterBankLog: TFLite Micro's signal-library filter bank log, TFLM's fixed-point Log32 of
 * each channel, scaled and saturated to int16.
 * TFLM's signal library holds its audio front end's custom operators; this port keeps its
 * fixed-point arithmetic, so the same output bytes (see arenaplan/tflite.h for the arguments and
 * arenaplan-build's src/kernels/tflite/signal.rs for what the build checks first). Elements are
 * read and written through memcpy (common.h): a constant's bytes need not be aligned for its
 * type. Where TFLM's C++ relies on two's complement (an int16 sum wrapping, a right shift of a
 * negative number), this code does too, as GCC and Clang define it. */
#include "arenaplan/tflite.h"

#include "common.h"

/* log2(1 + x) - x over [0, 1] in 128 segments, scaled by 2^16: TFLM's table. */
static const uint16_t log_lut[130] = {
    0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944, 3087, 3224,
    3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791, 4864, 4934, 5001, 5063,
    5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533, 5557, 5578, 5595, 5610, 5622, 5631, 5637, 5640,
    5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498, 5470, 5439, 5406, 5370, 5332, 5291, 5249, 5203,
    5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697, 4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935,
    3848, 3759, 3668, 3575, 3481, 3384, 3286, 3186, 3084, 2981, 2875, 2768, 2659, 2549, 2437, 2323, 2207, 2090, 1971,
    1851, 1729, 1605, 1480, 1353, 1224, 1094, 963,  830,  695,  559,  421,  282,  142,  0,    0};

/* TFLM's Log32: log2 by its integer part and the table, then times ln 2 (45426 / 2^16) and
 * the output scale, each rounded. x > 1. */
static uint32_t log32(uint32_t x, uint32_t out_scale) {
    const uint32_t integer = msb32(x) - 1u;
    int32_t frac = (int32_t)((int64_t)x - ((int64_t)1 << integer));
    if (integer < 16u) {
        frac = (int32_t)((uint32_t)frac << (16u - integer));
    } else {
        frac >>= integer - 16u;
    }
    const uint32_t seg = (uint32_t)frac >> 9;
    const int32_t c0 = log_lut[seg], c1 = log_lut[seg + 1u];
    const int32_t rel = ((c1 - c0) * (frac - (int32_t)(512u * seg))) >> 16;
    const uint32_t fraction = (uint32_t)(frac + c0 + rel);
    const uint32_t log2 = (integer << 16) + fraction;
    const uint32_t loge = (uint32_t)(((uint64_t)45426 * log2 + 32768u) >> 16);
    return (out_scale * loge + 32768u) >> 16;
}

static ap_status_t filter_bank_log(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_filter_bank_log_params_t p;
    if (!io_is(ctx, args, nargs, 2, 1) || !read_params(&args[1], &p, sizeof p) || !count_ok(p.count) ||
        p.correction_bits < 0 || p.correction_bits > 31) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[2];
    if (in->size != 4u * (size_t)p.count || out->size != 2u * (size_t)p.count) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t i = 0; i < (size_t)p.count; i++) {
        const uint32_t scaled = ld_u32(in->data, i) << p.correction_bits;
        int16_t v = 0;
        if (scaled > 1u) {
            const uint32_t l = log32(scaled, p.output_scale);
            v = (int16_t)(l < (uint32_t)INT16_MAX ? l : (uint32_t)INT16_MAX);
        }
        st_i16(out->data, i, v);
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalFilterBankLog = {"tflite:SignalFilterBankLog", filter_bank_log, NULL};
