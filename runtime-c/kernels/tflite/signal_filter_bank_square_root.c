/* SignalFilterBankSquareRoot: TFLite Micro's signal-library filter bank square root, TFLM's integer
 * Sqrt64 of each channel, shifted right by the FFT's scale.
 * TFLM's signal library holds its audio front end's custom operators; this port keeps its
 * fixed-point arithmetic, so the same output bytes (see arenaplan/tflite.h for the arguments and
 * arenaplan-build's src/kernels/tflite/signal.rs for what the build checks first). Elements are
 * read and written through memcpy (common.h): a constant's bytes need not be aligned for its
 * type. Where TFLM's C++ relies on two's complement (an int16 sum wrapping, a right shift of a
 * negative number), this code does too, as GCC and Clang define it. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

/* TFLM's Sqrt32 and Sqrt64 (`bits` 32 or 64): bit by bit, rounded to nearest unless the
 * root is already the largest of half the width. */
static uint64_t isqrt(uint64_t num, int32_t bits) {
    if (num == 0) {
        return 0;
    }
    const uint64_t largest = ((uint64_t)1 << (bits / 2)) - 1u;
    uint64_t res = 0;
    const int32_t max_bit = (int32_t)(bits - msb(num, (uint32_t)bits)) | 1;
    uint64_t bit = (uint64_t)1 << (bits - 1 - max_bit);
    for (int32_t it = (bits - 1 - max_bit) / 2 + 1; it > 0; it--) {
        if (num >= res + bit) {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if (num > res && res != largest) {
        ++res;
    }
    return res & largest;
}

/* TFLM's Sqrt64, which takes Sqrt32's shortcut below 2^32. */
static uint32_t sqrt64(uint64_t num) {
    return (uint32_t)((num >> 32) == 0 ? isqrt(num, 32) : isqrt(num, 64));
}

static ap_status_t filter_bank_square_root(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_count_params_t p;
    if (!io_is(ctx, args, nargs, 3, 1) || !read_params(&args[2], &p, sizeof p) || !count_ok(p.count)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *in = &args[0], *bits = &args[1];
    ap_buffer_t *out = &args[3];
    int32_t shift;
    if (in->size != 8u * (size_t)p.count || out->size != 4u * (size_t)p.count || bits->size != sizeof shift) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    memcpy(&shift, bits->data, sizeof shift);
    /* FftAutoScale makes 0..15; a shift C leaves undefined is refused. */
    if (shift < 0 || shift > 31) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    for (size_t i = 0; i < (size_t)p.count; i++) {
        st_u32(out->data, i, sqrt64(ld_u64(in->data, i)) >> shift);
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalFilterBankSquareRoot = {"tflite:SignalFilterBankSquareRoot",
                                                                   filter_bank_square_root, NULL};
