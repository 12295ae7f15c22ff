/* TFLite Micro's signal library (the custom operators of its audio front end), ported: the
 * same fixed-point arithmetic, so the same output bytes (see arenaplan/tflite.h for each
 * kernel's arguments and arenaplan-build's src/import/tflite_ops/signal.rs for what the build
 * checks first). Every element is read and written through memcpy: a constant's bytes need
 * not be aligned for its type. Where TFLM's C++ relies on two's complement (an int16 sum
 * wrapping, a right shift of a negative number), this code does too, as GCC and Clang
 * define it. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "tflite_args.h"

static int16_t ld_i16(const uint8_t *p, size_t i) {
    int16_t v;
    memcpy(&v, p + 2u * i, sizeof v);
    return v;
}
static void st_i16(uint8_t *p, size_t i, int16_t v) { memcpy(p + 2u * i, &v, sizeof v); }
static uint32_t ld_u32(const uint8_t *p, size_t i) {
    uint32_t v;
    memcpy(&v, p + 4u * i, sizeof v);
    return v;
}
static void st_u32(uint8_t *p, size_t i, uint32_t v) { memcpy(p + 4u * i, &v, sizeof v); }
static uint64_t ld_u64(const uint8_t *p, size_t i) {
    uint64_t v;
    memcpy(&v, p + 8u * i, sizeof v);
    return v;
}
static void st_u64(uint8_t *p, size_t i, uint64_t v) { memcpy(p + 8u * i, &v, sizeof v); }

/* The bits needed to hold x; for 0, the type's width (32 or 64), as TFLM's __builtin_clz
 * path returns. */
static uint32_t msb(uint64_t x, uint32_t type_bits) {
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

static uint32_t msb32(uint32_t x) { return msb(x, 32); }

/* ---- SignalWindow ---- */

static ap_status_t window(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_window_params_t p;
    if (!io_is(ctx, args, nargs, 3, 1) || !read_params(&args[2], &p, sizeof p) || p.frame <= 0 || p.count < 0 ||
        p.count % p.frame != 0 || p.shift < 0 || p.shift > 31 || !count_ok(p.count) || !count_ok(p.frame)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *in = &args[0], *w = &args[1];
    ap_buffer_t *out = &args[3];
    const size_t n = (size_t)p.count, frame = (size_t)p.frame;
    if (in->size != 2u * n || out->size != 2u * n || w->size != 2u * frame) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    for (size_t i = 0; i < n; i++) {
        const int32_t raw = ((int32_t)ld_i16(in->data, i) * ld_i16(w->data, i % frame)) >> p.shift;
        st_i16(out->data, i, (int16_t)(raw < INT16_MIN ? INT16_MIN : raw > INT16_MAX ? INT16_MAX : raw));
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalWindow = {"tflite:SignalWindow", window, NULL};

/* ---- SignalFftAutoScale ---- */

static ap_status_t fft_auto_scale(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_count_params_t p;
    if (!io_is(ctx, args, nargs, 2, 2) || !read_params(&args[1], &p, sizeof p) || !count_ok(p.count)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[2], *bits = &args[3];
    const size_t n = (size_t)p.count;
    if (in->size != 2u * n || out->size != 2u * n || bits->size != 4u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    /* TFLM's MaxAbs16: an int16 maximum, so -32768 wraps to itself. */
    int16_t max = 0;
    for (size_t i = 0; i < n; i++) {
        const int16_t v = ld_i16(in->data, i);
        if (v > max) {
            max = v;
        } else if (-v > max) {
            max = (int16_t)-v;
        }
    }
    int32_t scale = 16 - (int32_t)msb32((uint32_t)(int32_t)max) - 1;
    if (scale < 0) {
        scale = 0;
    }
    for (size_t i = 0; i < n; i++) {
        st_i16(out->data, i, (int16_t)(ld_i16(in->data, i) * (1 << scale)));
    }
    memcpy(bits->data, &scale, sizeof scale);
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalFftAutoScale = {"tflite:SignalFftAutoScale", fft_auto_scale, NULL};

/* ---- SignalRfft: kissfft's fixed-point (Q15) complex FFT and its real-input wrapper ---- */

typedef struct {
    int16_t r, i;
} cpx_t;

/* kissfft's sround(a x b): the Q15 product, rounded. */
static int16_t qmul(int16_t a, int16_t b) { return (int16_t)(((int32_t)a * b + (1 << 14)) >> 15); }

static cpx_t cmul(cpx_t a, cpx_t b) {
    cpx_t m;
    m.r = (int16_t)(((int32_t)a.r * b.r - (int32_t)a.i * b.i + (1 << 14)) >> 15);
    m.i = (int16_t)(((int32_t)a.r * b.i + (int32_t)a.i * b.r + (1 << 14)) >> 15);
    return m;
}

static cpx_t cadd(cpx_t a, cpx_t b) {
    cpx_t c = {(int16_t)(a.r + b.r), (int16_t)(a.i + b.i)};
    return c;
}

static cpx_t csub(cpx_t a, cpx_t b) {
    cpx_t c = {(int16_t)(a.r - b.r), (int16_t)(a.i - b.i)};
    return c;
}

/* C_FIXDIV: each part times 32767 / k in Q15, which keeps a radix-k stage in range. */
static cpx_t cdiv(cpx_t c, int16_t k) {
    const int16_t q = (int16_t)(32767 / k);
    cpx_t d = {qmul(c.r, q), qmul(c.i, q)};
    return d;
}

typedef struct {
    const uint8_t *twiddles; /* half complex int16 */
    const int32_t *factors;  /* (radix, length) pairs, copied out of the params */
    int32_t nfactors;
    const uint8_t *input;    /* this frame's samples */
    size_t input_length;
} fft_t;

static cpx_t twiddle(const fft_t *f, size_t k) {
    cpx_t t;
    memcpy(&t, f->twiddles + 4u * k, sizeof t);
    return t;
}

/* The frame as complex samples (pairs of reals), zero past its end, as TFLM's zero-padded
 * work area holds them. */
static cpx_t sample(const fft_t *f, size_t k) {
    cpx_t c = {0, 0};
    if (2u * k < f->input_length) {
        c.r = ld_i16(f->input, 2u * k);
    }
    if (2u * k + 1u < f->input_length) {
        c.i = ld_i16(f->input, 2u * k + 1u);
    }
    return c;
}

static void bfly2(cpx_t *out, size_t fstride, const fft_t *f, size_t m) {
    for (size_t k = 0; k < m; k++) {
        out[k] = cdiv(out[k], 2);
        out[k + m] = cdiv(out[k + m], 2);
        const cpx_t t = cmul(out[k + m], twiddle(f, k * fstride));
        out[k + m] = csub(out[k], t);
        out[k] = cadd(out[k], t);
    }
}

static void bfly3(cpx_t *out, size_t fstride, const fft_t *f, size_t m) {
    const cpx_t epi3 = twiddle(f, fstride * m);
    for (size_t k = 0; k < m; k++) {
        cpx_t *a = &out[k], *b = &out[k + m], *c = &out[k + 2u * m];
        *a = cdiv(*a, 3);
        *b = cdiv(*b, 3);
        *c = cdiv(*c, 3);
        const cpx_t s1 = cmul(*b, twiddle(f, k * fstride));
        const cpx_t s2 = cmul(*c, twiddle(f, 2u * k * fstride));
        const cpx_t s3 = cadd(s1, s2);
        cpx_t s0 = csub(s1, s2);
        b->r = (int16_t)(a->r - (s3.r >> 1));
        b->i = (int16_t)(a->i - (s3.i >> 1));
        s0.r = qmul(s0.r, epi3.i);
        s0.i = qmul(s0.i, epi3.i);
        *a = cadd(*a, s3);
        c->r = (int16_t)(b->r + s0.i);
        c->i = (int16_t)(b->i - s0.r);
        b->r = (int16_t)(b->r - s0.i);
        b->i = (int16_t)(b->i + s0.r);
    }
}

static void bfly4(cpx_t *out, size_t fstride, const fft_t *f, size_t m) {
    for (size_t k = 0; k < m; k++) {
        cpx_t *a = &out[k], *b = &out[k + m], *c = &out[k + 2u * m], *d = &out[k + 3u * m];
        *a = cdiv(*a, 4);
        *b = cdiv(*b, 4);
        *c = cdiv(*c, 4);
        *d = cdiv(*d, 4);
        const cpx_t s0 = cmul(*b, twiddle(f, k * fstride));
        const cpx_t s1 = cmul(*c, twiddle(f, 2u * k * fstride));
        const cpx_t s2 = cmul(*d, twiddle(f, 3u * k * fstride));
        const cpx_t s5 = csub(*a, s1);
        *a = cadd(*a, s1);
        const cpx_t s3 = cadd(s0, s2);
        const cpx_t s4 = csub(s0, s2);
        *c = csub(*a, s3);
        *a = cadd(*a, s3);
        b->r = (int16_t)(s5.r + s4.i);
        b->i = (int16_t)(s5.i - s4.r);
        d->r = (int16_t)(s5.r - s4.i);
        d->i = (int16_t)(s5.i + s4.r);
    }
}

static void bfly5(cpx_t *out, size_t fstride, const fft_t *f, size_t m) {
    const cpx_t ya = twiddle(f, fstride * m), yb = twiddle(f, fstride * 2u * m);
    for (size_t u = 0; u < m; u++) {
        cpx_t *f0 = &out[u], *f1 = &out[u + m], *f2 = &out[u + 2u * m], *f3 = &out[u + 3u * m],
              *f4 = &out[u + 4u * m];
        *f0 = cdiv(*f0, 5);
        *f1 = cdiv(*f1, 5);
        *f2 = cdiv(*f2, 5);
        *f3 = cdiv(*f3, 5);
        *f4 = cdiv(*f4, 5);
        const cpx_t s0 = *f0;
        const cpx_t s1 = cmul(*f1, twiddle(f, u * fstride));
        const cpx_t s2 = cmul(*f2, twiddle(f, 2u * u * fstride));
        const cpx_t s3 = cmul(*f3, twiddle(f, 3u * u * fstride));
        const cpx_t s4 = cmul(*f4, twiddle(f, 4u * u * fstride));
        const cpx_t s7 = cadd(s1, s4), s10 = csub(s1, s4), s8 = cadd(s2, s3), s9 = csub(s2, s3);
        f0->r = (int16_t)(f0->r + (s7.r + s8.r));
        f0->i = (int16_t)(f0->i + (s7.i + s8.i));
        cpx_t s5, s6, s11, s12;
        s5.r = (int16_t)(s0.r + qmul(s7.r, ya.r) + qmul(s8.r, yb.r));
        s5.i = (int16_t)(s0.i + qmul(s7.i, ya.r) + qmul(s8.i, yb.r));
        s6.r = (int16_t)(qmul(s10.i, ya.i) + qmul(s9.i, yb.i));
        s6.i = (int16_t)(-qmul(s10.r, ya.i) - qmul(s9.r, yb.i));
        *f1 = csub(s5, s6);
        *f4 = cadd(s5, s6);
        s11.r = (int16_t)(s0.r + qmul(s7.r, yb.r) + qmul(s8.r, ya.r));
        s11.i = (int16_t)(s0.i + qmul(s7.i, yb.r) + qmul(s8.i, ya.r));
        s12.r = (int16_t)(-qmul(s10.i, yb.i) + qmul(s9.i, ya.i));
        s12.i = (int16_t)(qmul(s10.r, yb.i) - qmul(s9.r, ya.i));
        *f2 = cadd(s11, s12);
        *f3 = csub(s11, s12);
    }
}

/* kissfft's kf_work: p DFTs of length m over decimated input, recombined by a radix-p
 * butterfly. Its depth is the number of factors, which the build bounds. */
static void fft_work(cpx_t *out, size_t in, size_t fstride, const fft_t *f, int32_t level) {
    const size_t p = (size_t)f->factors[2 * level], m = (size_t)f->factors[2 * level + 1];
    if (m == 1u) {
        for (size_t k = 0; k < p; k++) {
            out[k] = sample(f, in + k * fstride);
        }
    } else {
        for (size_t k = 0; k < p; k++) {
            fft_work(out + k * m, in + k * fstride, fstride * p, f, level + 1);
        }
    }
    switch (p) {
    case 2:
        bfly2(out, fstride, f, m);
        break;
    case 3:
        bfly3(out, fstride, f, m);
        break;
    case 4:
        bfly4(out, fstride, f, m);
        break;
    default:
        bfly5(out, fstride, f, m);
        break;
    }
}

/* The most (radix, length) pairs a factorization may have (kissfft's MAXFACTORS). */
#define AP_RFFT_MAX_FACTORS 32

static ap_status_t rfft(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_rfft_params_t p;
    int32_t factors[2 * AP_RFFT_MAX_FACTORS];
    if (!io_is(ctx, args, nargs, 4, 1) || args[3].data == NULL || args[3].size < sizeof p) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    memcpy(&p, args[3].data, sizeof p);
    if (p.half < 2 || p.half > (1 << 15) || p.input_length <= 0 || p.input_length > 2 * p.half || p.frames < 0 ||
        p.factors <= 0 || p.factors > AP_RFFT_MAX_FACTORS ||
        args[3].size != sizeof p + 2u * (size_t)p.factors * sizeof(int32_t)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    memcpy(factors, args[3].data + sizeof p, 2u * (size_t)p.factors * sizeof(int32_t));
    /* The factorization must multiply out to half, each radix one this code has. */
    int32_t length = p.half;
    for (int32_t k = 0; k < p.factors; k++) {
        const int32_t radix = factors[2 * k], rest = factors[2 * k + 1];
        if (radix < 2 || radix > 5 || length % radix != 0 || length / radix != rest) {
            return AP_ERR_BAD_ARGUMENTS;
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
        return AP_ERR_BAD_ARGUMENTS;
    }
    fft_t f = {tw->data, factors, p.factors, NULL, frame_in};
    for (size_t frame = 0; frame < (size_t)p.frames; frame++) {
        f.input = in->data + 2u * frame_in * frame;
        /* The half-length complex FFT of the frame's sample pairs, into the output itself
         * (kissfft_r's tmpbuf), then turned in place into the real FFT's half + 1 bins. */
        cpx_t *bins = (cpx_t *)(void *)(out->data + 4u * frame_out * frame);
        fft_work(bins, 0, 1, &f, 0);
        cpx_t dc = cdiv(bins[0], 2);
        bins[0].r = (int16_t)(dc.r + dc.i);
        bins[half].r = (int16_t)(dc.r - dc.i);
        bins[0].i = 0;
        bins[half].i = 0;
        for (size_t k = 1; k <= half / 2u; k++) {
            cpx_t fpk = bins[k], fpnk = {bins[half - k].r, (int16_t)-bins[half - k].i}, st;
            fpk = cdiv(fpk, 2);
            fpnk = cdiv(fpnk, 2);
            const cpx_t f1k = cadd(fpk, fpnk), f2k = csub(fpk, fpnk);
            memcpy(&st, super->data + 4u * (k - 1u), sizeof st);
            const cpx_t t = cmul(f2k, st);
            bins[k].r = (int16_t)((f1k.r + t.r) >> 1);
            bins[k].i = (int16_t)((f1k.i + t.i) >> 1);
            bins[half - k].r = (int16_t)((f1k.r - t.r) >> 1);
            bins[half - k].i = (int16_t)((t.i - f1k.i) >> 1);
        }
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalRfft = {"tflite:SignalRfft", rfft, NULL};

/* ---- SignalEnergy ---- */

static ap_status_t energy(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_energy_params_t p;
    if (!io_is(ctx, args, nargs, 2, 1) || !read_params(&args[1], &p, sizeof p) || p.start < 0 || p.end < p.start ||
        p.count < p.end || !count_ok(p.count)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[2];
    if (out->size != 4u * (size_t)p.count || in->size < 4u * (size_t)p.end) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    memset(out->data, 0, out->size);
    for (size_t i = (size_t)p.start; i < (size_t)p.end; i++) {
        const int32_t re = ld_i16(in->data, 2u * i), im = ld_i16(in->data, 2u * i + 1u);
        st_u32(out->data, i, (uint32_t)(re * re) + (uint32_t)(im * im));
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalEnergy = {"tflite:SignalEnergy", energy, NULL};

/* ---- SignalFilterBank ---- */

static ap_status_t filter_bank(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_filter_bank_params_t p;
    if (!io_is(ctx, args, nargs, 7, 1) || !read_params(&args[6], &p, sizeof p) || p.channels <= 0 ||
        !count_ok(p.channels) || !count_ok(p.input_count) || !count_ok(p.weight_count)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *in = &args[0], *w = &args[1], *u = &args[2], *freq = &args[3], *wstart = &args[4],
                      *width = &args[5];
    ap_buffer_t *out = &args[7];
    const size_t channels = (size_t)p.channels;
    if (in->size != 4u * (size_t)p.input_count || w->size != 2u * (size_t)p.weight_count || u->size != w->size ||
        freq->size < 2u * (channels + 1u) || wstart->size < 2u * (channels + 1u) ||
        width->size < 2u * (channels + 1u) || out->size != 8u * channels) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    /* Channel i's band, weighted, and the band before it unweighted: channel 0 of TFLM's
     * num_channels + 1 is only the first band's unweighted part, which it drops. */
    uint64_t weighted = 0, unweighted = 0;
    for (size_t i = 0; i <= channels; i++) {
        const int32_t f0 = ld_i16(freq->data, i), w0 = ld_i16(wstart->data, i), n = ld_i16(width->data, i);
        if (n > 0 && (f0 < 0 || w0 < 0 || f0 + n > p.input_count || w0 + n > p.weight_count)) {
            return AP_ERR_BAD_ARGUMENTS;
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

/* ---- SignalFilterBankSquareRoot ---- */

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
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *in = &args[0], *bits = &args[1];
    ap_buffer_t *out = &args[3];
    int32_t shift;
    if (in->size != 8u * (size_t)p.count || out->size != 4u * (size_t)p.count || bits->size != sizeof shift) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    memcpy(&shift, bits->data, sizeof shift);
    /* FftAutoScale makes 0..15; a shift C leaves undefined is refused. */
    if (shift < 0 || shift > 31) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    for (size_t i = 0; i < (size_t)p.count; i++) {
        st_u32(out->data, i, sqrt64(ld_u64(in->data, i)) >> shift);
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalFilterBankSquareRoot = {"tflite:SignalFilterBankSquareRoot",
                                                                   filter_bank_square_root, NULL};

/* ---- SignalFilterBankSpectralSubtraction ---- */

static ap_status_t spectral_subtraction(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_spectral_subtraction_params_t p;
    if (!io_is(ctx, args, nargs, 3, 2) || !read_params(&args[2], &p, sizeof p) || !count_ok(p.channels) ||
        p.smoothing_bits < 0 || p.smoothing_bits > 31 || p.spectral_subtraction_bits < 0 ||
        p.spectral_subtraction_bits > 63) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *state = &args[1], *out = &args[3], *noise = &args[4];
    const size_t n = (size_t)p.channels;
    if (in->size != 4u * n || state->size != 4u * n || out->size != 4u * n || noise->size != 4u * n) {
        return AP_ERR_BAD_ARGUMENTS;
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
    memcpy(noise->data, state->data, 4u * n);
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSignalFilterBankSpectralSubtraction = {
    "tflite:SignalFilterBankSpectralSubtraction", spectral_subtraction, NULL};

/* ---- SignalPCAN ---- */

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
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *in = &args[0], *noise = &args[1], *lut = &args[2];
    ap_buffer_t *out = &args[4];
    const size_t n = (size_t)p.count;
    if (in->size != 4u * n || noise->size != 4u * n || out->size != 4u * n || lut->size != 2u * (size_t)p.lut_count) {
        return AP_ERR_BAD_ARGUMENTS;
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

/* ---- SignalFilterBankLog ---- */

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
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *in = &args[0];
    ap_buffer_t *out = &args[2];
    if (in->size != 4u * (size_t)p.count || out->size != 2u * (size_t)p.count) {
        return AP_ERR_BAD_ARGUMENTS;
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
