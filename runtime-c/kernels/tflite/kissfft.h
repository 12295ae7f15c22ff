/* The port of kissfft's fixed-point real FFT (kissfft.c) SignalRfft runs on. */
#ifndef ARENAPLAN_TFLITE_KISSFFT_H
#define ARENAPLAN_TFLITE_KISSFFT_H

#include <stddef.h>
#include <stdint.h>

/* A complex Q15 value, as kissfft's kiss_fft_cpx with FIXED_POINT=16 (and the bins' layout). */
typedef struct ap_tflite_cpx {
    int16_t r, i;
} ap_tflite_cpx_t;

/* One frame's FFT: the tables the build made and the frame's samples. */
typedef struct ap_tflite_fft {
    const uint8_t *twiddles; /* half complex int16 */
    const int32_t *factors;  /* (radix, length) pairs, copied out of the params */
    int32_t nfactors;
    const uint8_t *input;    /* this frame's samples */
    size_t input_length;
} ap_tflite_fft_t;

/* kissfft's kiss_fftr: the real FFT of `f`'s frame (zero past its input_length) of length
 * 2 x `half`, into `bins`' half + 1 complex values, with the `super_twiddles` (half / 2 complex
 * int16). The factorization must multiply out to `half`, each radix 2, 3, 4 or 5: the caller
 * checks. */
void ap_tflite_kiss_fftr(const ap_tflite_fft_t *f, const uint8_t *super_twiddles, size_t half, ap_tflite_cpx_t *bins);

#endif /* ARENAPLAN_TFLITE_KISSFFT_H */
