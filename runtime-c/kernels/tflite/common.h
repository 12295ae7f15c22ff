/* What the runtime's TFLite kernels (one C file per operator in this folder) share: the checks of
 * their arguments against their parameters, and the reading and writing of elements. Static
 * inline, so each file compiles only what it uses; nothing here needs CMSIS-NN (that is
 * cmsis_nn_call.h). */
#ifndef ARENAPLAN_TFLITE_COMMON_H
#define ARENAPLAN_TFLITE_COMMON_H

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

/* a x b x c x d, or SIZE_MAX when it overflows size_t (no buffer is that size, so a check
 * against it fails; 0 would match an empty buffer) — on a 32-bit target four extents of 65535
 * would. A factor of SIZE_MAX keeps the product there. */
static inline size_t product4(size_t a, size_t b, size_t c, size_t d) {
    const size_t xs[3] = {b, c, d};
    size_t acc = a;
    for (size_t i = 0; i < 3; i++) {
        if (acc == SIZE_MAX || (xs[i] != 0 && acc > SIZE_MAX / xs[i])) {
            return acc == 0 || xs[i] == 0 ? 0 : SIZE_MAX;
        }
        acc *= xs[i];
    }
    return acc;
}

/* The most elements one kernel argument may have (16 Mi): any count at most this, times an
 * element's bytes (at most 8), stays far inside a 32-bit size_t. */
#define AP_TFLITE_MAX_ELEMENTS (1L << 24)

/* Whether a count read from the parameters is one a kernel takes: 0 to AP_TFLITE_MAX_ELEMENTS. */
static inline int count_ok(int32_t n) {
    return n >= 0 && (long)n <= AP_TFLITE_MAX_ELEMENTS;
}

/* Whether a requantization shift is one CMSIS-NN's 32-bit rule defines (TFLM's QuantizeMultiplier
 * range). */
static inline int shift_ok(int32_t shift) {
    return shift >= -31 && shift <= 30;
}

/* The same for CMSIS-NN's 64-bit rule (the 16x8 kernels), which TFLM bounds at 7. */
static inline int shift_s64_ok(int32_t shift) {
    return shift >= -31 && shift <= 7;
}

/* Whether a buffer may be read as int32 in place. */
static inline int int32_aligned(const ap_buffer_t *b) {
    return ((uintptr_t)b->data & 3u) == 0;
}

/* Whether a buffer may be read as `align`-byte elements in place. */
static inline int aligned_to(const ap_buffer_t *b, size_t align) {
    return ((uintptr_t)b->data & (align - 1u)) == 0;
}

/* Whether `out` positions along one dimension follow from `in` positions, a window of `taps`
 * taps `dilation` apart, `stride` and `pad` positions of padding before the first, as TFLite
 * derives them (padding SAME or VALID: ComputeOutSize, ComputePaddingWithOffset; the build's
 * rule is build-support's kernels/tflite/padding.rs). The kernels index the input from the
 * output's positions, and CMSIS-NN's specialised ones (1x1, 1xN) take the output as one row per
 * input position: an output that does not follow would be written or read past its end.
 * (TRANSPOSE_CONV needs no such rule: TFLite takes its output shape as given, and its kernel
 * gathers each output's taps inside the input's bounds.) */
static inline int window_fits(int32_t in, int32_t taps, int32_t stride, int32_t dilation, int32_t pad, int32_t out) {
    if (in <= 0 || taps <= 0 || stride <= 0 || dilation <= 0 || pad < 0 || out <= 0) {
        return 0;
    }
    const int64_t span = ((int64_t)taps - 1) * dilation + 1;
    const int64_t valid = in >= span ? (in - span) / stride + 1 : 0;
    const int64_t same = ((int64_t)in + stride - 1) / stride;
    const int64_t same_total = (same - 1) * stride + span - in;
    const int64_t same_pad = same_total > 0 ? same_total / 2 : 0;
    return (out == valid && pad == 0) || (out == same && pad == same_pad);
}

/* The one rule for a call's argument list: `min_in` to `max_in` inputs, `out` outputs, then
 * `min_extra` to `max_extra` more arguments (a kernel's scratch), and nothing else. A kernel
 * reads its arguments by position only after this holds, so a table that lists fewer
 * arguments than the kernel reads is refused, never read past. */
static inline int io_counts(const ap_context_t *ctx, const ap_buffer_t *args, size_t nargs, uint32_t min_in,
                            uint32_t max_in, uint32_t out, size_t min_extra, size_t max_extra) {
    if (ctx == NULL || args == NULL || ctx->ninputs < min_in || ctx->ninputs > max_in || ctx->noutputs != out) {
        return 0;
    }
    const size_t io = (size_t)ctx->ninputs + out;
    return nargs >= io + min_extra && nargs <= io + max_extra;
}

/* Whether a call has `in` inputs and `out` outputs and nothing after them. */
static inline int io_is(const ap_context_t *ctx, const ap_buffer_t *args, size_t nargs, uint32_t in, uint32_t out) {
    return io_counts(ctx, args, nargs, in, in, out, 0, 0);
}

/* An element of a signed integer tensor of `width` bytes, little-endian as the targets are. */
static inline int32_t load_int(const uint8_t *data, size_t i, int32_t width) {
    switch (width) {
    case 1:
        return (int8_t)data[i];
    case 2: {
        int16_t v;
        memcpy(&v, data + 2u * i, sizeof v);
        return v;
    }
    default: {
        int32_t v;
        memcpy(&v, data + 4u * i, sizeof v);
        return v;
    }
    }
}

static inline void store_int(uint8_t *data, size_t i, int32_t width, int32_t value) {
    if (width == 1) {
        data[i] = (uint8_t)(int8_t)value;
    } else if (width == 2) {
        const int16_t v = (int16_t)value;
        memcpy(data + 2u * i, &v, sizeof v);
    } else {
        memcpy(data + 4u * i, &value, sizeof value);
    }
}

/* v clamped to [lo, hi]: an activation's range or the output type's. */
static inline int32_t clamp32(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Elements of a fixed type, read and written through memcpy: a constant's bytes need not be
 * aligned for its type (the signal library's kernels). */
static inline int16_t ld_i16(const uint8_t *p, size_t i) {
    int16_t v;
    memcpy(&v, p + 2u * i, sizeof v);
    return v;
}
static inline void st_i16(uint8_t *p, size_t i, int16_t v) { memcpy(p + 2u * i, &v, sizeof v); }
static inline uint32_t ld_u32(const uint8_t *p, size_t i) {
    uint32_t v;
    memcpy(&v, p + 4u * i, sizeof v);
    return v;
}
static inline void st_u32(uint8_t *p, size_t i, uint32_t v) { memcpy(p + 4u * i, &v, sizeof v); }
static inline uint64_t ld_u64(const uint8_t *p, size_t i) {
    uint64_t v;
    memcpy(&v, p + 8u * i, sizeof v);
    return v;
}
static inline void st_u64(uint8_t *p, size_t i, uint64_t v) { memcpy(p + 8u * i, &v, sizeof v); }

/* The bits needed to hold x; for 0, the type's width (32 or 64), as TFLM's __builtin_clz
 * path returns. */
static inline uint32_t msb(uint64_t x, uint32_t type_bits) {
    uint32_t n = 0;
    if (x == 0) {
        return type_bits;
    }
    while (x != 0) {
        x >>= 1;
        n++;
    }
    return n;
}

static inline uint32_t msb32(uint32_t x) { return msb(x, 32); }

#endif /* ARENAPLAN_TFLITE_COMMON_H */
