/* What every TFLite kernel of the runtime checks its arguments with (csrc/tflite_*.c). */
#ifndef ARENAPLAN_TFLITE_ARGS_H
#define ARENAPLAN_TFLITE_ARGS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arenaplan/runtime.h"

/* The parameters constant, copied (a constant's bytes need not be aligned for int32). */
static inline int read_params(const ap_buffer_t *b, void *out, size_t size) {
    if (b->data == NULL || b->size != size) {
        return 0;
    }
    memcpy(out, b->data, size);
    return 1;
}

/* a x b x c x d, or 0 when it overflows size_t (no buffer is that size, so a check against it
 * fails) — on a 32-bit target four extents of 65535 would. */
static inline size_t product4(size_t a, size_t b, size_t c, size_t d) {
    const size_t xs[3] = {b, c, d};
    size_t acc = a;
    for (size_t i = 0; i < 3; i++) {
        if (xs[i] != 0 && acc > SIZE_MAX / xs[i]) {
            return 0;
        }
        acc *= xs[i];
    }
    return acc;
}

/* Whether a buffer may be read as int32 in place. */
static inline int int32_aligned(const ap_buffer_t *b) {
    return ((uintptr_t)b->data & 3u) == 0;
}

/* Whether a buffer may be read as `align`-byte elements in place. */
static inline int aligned_to(const ap_buffer_t *b, size_t align) {
    return ((uintptr_t)b->data & (align - 1u)) == 0;
}

/* Whether a call has `in` inputs and `out` outputs and nothing after them. */
static inline int io_is(const ap_context_t *ctx, const ap_buffer_t *args, size_t nargs, uint32_t in, uint32_t out) {
    return ctx != NULL && args != NULL && ctx->ninputs == in && ctx->noutputs == out && nargs == (size_t)in + out;
}

#endif /* ARENAPLAN_TFLITE_ARGS_H */
