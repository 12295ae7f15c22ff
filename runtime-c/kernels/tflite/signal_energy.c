/* SignalEnergy: TFLite Micro's signal-library energy, re x re + im x im of each bin in the range, 0
 * outside it.
 * TFLM's signal library holds its audio front end's custom operators; this port keeps its
 * fixed-point arithmetic, so the same output bytes (see arenaplan/tflite.h for the arguments and
 * arenaplan-build's src/kernels/tflite/signal.rs for what the build checks first). Elements are
 * read and written through memcpy (common.h): a constant's bytes need not be aligned for its
 * type. Where TFLM's C++ relies on two's complement (an int16 sum wrapping, a right shift of a
 * negative number), this code does too, as GCC and Clang define it. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

static ap_status_t energy(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_energy_params_t p;
    if (!io_is(ctx, args, nargs, 2, 1) || !read_params(&args[1], &p, sizeof p) || p.start < 0 || p.end < p.start ||
        p.count < p.end || !count_ok(p.count)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[2];
    if (out->size != 4u * (size_t)p.count || in->size < 4u * (size_t)p.end) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    if (out->size > 0) { /* an empty output's pointer may be NULL, which memset may not be given */
        memset(out->data, 0, out->size);
    }
    for (size_t i = (size_t)p.start; i < (size_t)p.end; i++) {
        const int32_t re = ld_i16(in->data, 2u * i), im = ld_i16(in->data, 2u * i + 1u);
        st_u32(out->data, i, (uint32_t)(re * re) + (uint32_t)(im * im));
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalEnergy = {"tflite:SignalEnergy", energy, NULL};
