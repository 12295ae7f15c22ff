/* A port of kissfft's fixed-point (Q15, FIXED_POINT=16) real FFT, the one TFLite Micro's
 * signal library builds SignalRfft on (kissfft v130): kf_work's mixed-radix recursion with the
 * radix 2, 3, 4 and 5 butterflies, and kiss_fftr's split of a half-length complex FFT into the
 * real FFT's bins. Checked bit for bit against kissfft itself by scripts/check_kissfft_port.sh.
 * Where kissfft relies on two's complement (an int16 sum wrapping, a right shift of a negative
 * number), this code does too, as GCC and Clang define it. */
#include "kissfft.h"

#include <string.h>

#include "common.h"

/* kissfft's sround(a x b): the Q15 product, rounded. */
static int16_t qmul(int16_t a, int16_t b) { return (int16_t)(((int32_t)a * b + (1 << 14)) >> 15); }

static ap_tflite_cpx_t cmul(ap_tflite_cpx_t a, ap_tflite_cpx_t b) {
    ap_tflite_cpx_t m;
    m.r = (int16_t)(((int32_t)a.r * b.r - (int32_t)a.i * b.i + (1 << 14)) >> 15);
    m.i = (int16_t)(((int32_t)a.r * b.i + (int32_t)a.i * b.r + (1 << 14)) >> 15);
    return m;
}

static ap_tflite_cpx_t cadd(ap_tflite_cpx_t a, ap_tflite_cpx_t b) {
    ap_tflite_cpx_t c = {(int16_t)(a.r + b.r), (int16_t)(a.i + b.i)};
    return c;
}

static ap_tflite_cpx_t csub(ap_tflite_cpx_t a, ap_tflite_cpx_t b) {
    ap_tflite_cpx_t c = {(int16_t)(a.r - b.r), (int16_t)(a.i - b.i)};
    return c;
}

/* C_FIXDIV: each part times 32767 / k in Q15, which keeps a radix-k stage in range. */
static ap_tflite_cpx_t cdiv(ap_tflite_cpx_t c, int16_t k) {
    const int16_t q = (int16_t)(32767 / k);
    ap_tflite_cpx_t d = {qmul(c.r, q), qmul(c.i, q)};
    return d;
}

static ap_tflite_cpx_t twiddle(const ap_tflite_fft_t *f, size_t k) {
    ap_tflite_cpx_t t;
    memcpy(&t, f->twiddles + 4u * k, sizeof t);
    return t;
}

/* The frame as complex samples (pairs of reals), zero past its end, as TFLM's zero-padded
 * work area holds them. */
static ap_tflite_cpx_t sample(const ap_tflite_fft_t *f, size_t k) {
    ap_tflite_cpx_t c = {0, 0};
    if (2u * k < f->input_length) {
        c.r = ld_i16(f->input, 2u * k);
    }
    if (2u * k + 1u < f->input_length) {
        c.i = ld_i16(f->input, 2u * k + 1u);
    }
    return c;
}

static void bfly2(ap_tflite_cpx_t *out, size_t fstride, const ap_tflite_fft_t *f, size_t m) {
    for (size_t k = 0; k < m; k++) {
        out[k] = cdiv(out[k], 2);
        out[k + m] = cdiv(out[k + m], 2);
        const ap_tflite_cpx_t t = cmul(out[k + m], twiddle(f, k * fstride));
        out[k + m] = csub(out[k], t);
        out[k] = cadd(out[k], t);
    }
}

static void bfly3(ap_tflite_cpx_t *out, size_t fstride, const ap_tflite_fft_t *f, size_t m) {
    const ap_tflite_cpx_t epi3 = twiddle(f, fstride * m);
    for (size_t k = 0; k < m; k++) {
        ap_tflite_cpx_t *a = &out[k], *b = &out[k + m], *c = &out[k + 2u * m];
        *a = cdiv(*a, 3);
        *b = cdiv(*b, 3);
        *c = cdiv(*c, 3);
        const ap_tflite_cpx_t s1 = cmul(*b, twiddle(f, k * fstride));
        const ap_tflite_cpx_t s2 = cmul(*c, twiddle(f, 2u * k * fstride));
        const ap_tflite_cpx_t s3 = cadd(s1, s2);
        ap_tflite_cpx_t s0 = csub(s1, s2);
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

static void bfly4(ap_tflite_cpx_t *out, size_t fstride, const ap_tflite_fft_t *f, size_t m) {
    for (size_t k = 0; k < m; k++) {
        ap_tflite_cpx_t *a = &out[k], *b = &out[k + m], *c = &out[k + 2u * m], *d = &out[k + 3u * m];
        *a = cdiv(*a, 4);
        *b = cdiv(*b, 4);
        *c = cdiv(*c, 4);
        *d = cdiv(*d, 4);
        const ap_tflite_cpx_t s0 = cmul(*b, twiddle(f, k * fstride));
        const ap_tflite_cpx_t s1 = cmul(*c, twiddle(f, 2u * k * fstride));
        const ap_tflite_cpx_t s2 = cmul(*d, twiddle(f, 3u * k * fstride));
        const ap_tflite_cpx_t s5 = csub(*a, s1);
        *a = cadd(*a, s1);
        const ap_tflite_cpx_t s3 = cadd(s0, s2);
        const ap_tflite_cpx_t s4 = csub(s0, s2);
        *c = csub(*a, s3);
        *a = cadd(*a, s3);
        b->r = (int16_t)(s5.r + s4.i);
        b->i = (int16_t)(s5.i - s4.r);
        d->r = (int16_t)(s5.r - s4.i);
        d->i = (int16_t)(s5.i + s4.r);
    }
}

static void bfly5(ap_tflite_cpx_t *out, size_t fstride, const ap_tflite_fft_t *f, size_t m) {
    const ap_tflite_cpx_t ya = twiddle(f, fstride * m), yb = twiddle(f, fstride * 2u * m);
    for (size_t u = 0; u < m; u++) {
        ap_tflite_cpx_t *f0 = &out[u], *f1 = &out[u + m], *f2 = &out[u + 2u * m], *f3 = &out[u + 3u * m],
              *f4 = &out[u + 4u * m];
        *f0 = cdiv(*f0, 5);
        *f1 = cdiv(*f1, 5);
        *f2 = cdiv(*f2, 5);
        *f3 = cdiv(*f3, 5);
        *f4 = cdiv(*f4, 5);
        const ap_tflite_cpx_t s0 = *f0;
        const ap_tflite_cpx_t s1 = cmul(*f1, twiddle(f, u * fstride));
        const ap_tflite_cpx_t s2 = cmul(*f2, twiddle(f, 2u * u * fstride));
        const ap_tflite_cpx_t s3 = cmul(*f3, twiddle(f, 3u * u * fstride));
        const ap_tflite_cpx_t s4 = cmul(*f4, twiddle(f, 4u * u * fstride));
        const ap_tflite_cpx_t s7 = cadd(s1, s4), s10 = csub(s1, s4), s8 = cadd(s2, s3), s9 = csub(s2, s3);
        f0->r = (int16_t)(f0->r + (s7.r + s8.r));
        f0->i = (int16_t)(f0->i + (s7.i + s8.i));
        ap_tflite_cpx_t s5, s6, s11, s12;
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
static void fft_work(ap_tflite_cpx_t *out, size_t in, size_t fstride, const ap_tflite_fft_t *f, int32_t level) {
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

void ap_tflite_kiss_fftr(const ap_tflite_fft_t *f, const uint8_t *super_twiddles, size_t half,
                         ap_tflite_cpx_t *bins) {
    /* The half-length complex FFT of the frame's sample pairs, into the output itself
     * (kissfft_r's tmpbuf), then turned in place into the real FFT's half + 1 bins. */
    fft_work(bins, 0, 1, f, 0);
    ap_tflite_cpx_t dc = cdiv(bins[0], 2);
    bins[0].r = (int16_t)(dc.r + dc.i);
    bins[half].r = (int16_t)(dc.r - dc.i);
    bins[0].i = 0;
    bins[half].i = 0;
    for (size_t k = 1; k <= half / 2u; k++) {
        ap_tflite_cpx_t fpk = bins[k], fpnk = {bins[half - k].r, (int16_t)-bins[half - k].i}, st;
        fpk = cdiv(fpk, 2);
        fpnk = cdiv(fpnk, 2);
        const ap_tflite_cpx_t f1k = cadd(fpk, fpnk), f2k = csub(fpk, fpnk);
        memcpy(&st, super_twiddles + 4u * (k - 1u), sizeof st);
        const ap_tflite_cpx_t t = cmul(f2k, st);
        bins[k].r = (int16_t)((f1k.r + t.r) >> 1);
        bins[k].i = (int16_t)((f1k.i + t.i) >> 1);
        bins[half - k].r = (int16_t)((f1k.r - t.r) >> 1);
        bins[half - k].i = (int16_t)((t.i - f1k.i) >> 1);
    }
}
