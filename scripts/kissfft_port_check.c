/* Checks the runtime's port of kissfft's fixed-point real FFT (SignalRfft in
 * runtime-c/kernels/tflite/signal_rfft.c and kissfft.c) against kissfft v130 itself, the version
 * TFLite Micro builds its signal library with: for FFT lengths whose half factors into radices
 * 2, 3, 4 and 5, inputs shorter than the FFT, several frames, and full-range, small and
 * alternating-extreme samples, every output byte must be kissfft's. Run by
 * scripts/check_kissfft_port.sh, which fetches kissfft; not part of the tests (kissfft's source
 * stays outside the repository). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include "arenaplan/tflite.h"
#include "kiss_fft.h"
#include "tools/kiss_fftr.h"
/* kissfft's internals, for the twiddles and factors it made. */
struct kiss_fft_state{ int nfft; int inverse; int factors[64]; kiss_fft_cpx twiddles[1]; };
struct kiss_fftr_state{ kiss_fft_cfg substate; kiss_fft_cpx * tmpbuf; kiss_fft_cpx * super_twiddles; };
static unsigned rnd = 12345;
static int16_t r16(void){ rnd = rnd*1103515245u + 12345u; return (int16_t)(rnd >> 16); }
int main(void){
  int sizes[] = {4,6,8,10,12,18,20,24,30,36,40,60,100,120,128,160,200,240,256,360,480,500,512,640,1000,1024};
  int bad = 0;
  for (unsigned s = 0; s < sizeof sizes/sizeof *sizes; s++) {
    int n = sizes[s], half = n/2;
    kiss_fftr_cfg cfg = kiss_fftr_alloc(n, 0, NULL, NULL);
    struct kiss_fft_state *sub = cfg->substate;
    int nf = 0; int ok = 1;
    for (int k = 0, len = half; len > 1; k++) { nf++; len = sub->factors[2*k+1]; if (sub->factors[2*k] > 5) ok = 0; }
    if (!ok) { printf("%d: radix > 5, skipped\n", n); continue; }
    size_t psize = sizeof(ap_tflite_rfft_params_t) + 8u*nf;
    uint8_t *params = malloc(psize);
    for (int inlen = n; inlen >= n - 3 && inlen > 0; inlen -= 3) {
      ap_tflite_rfft_params_t p = {half, inlen, 3, nf};
      memcpy(params, &p, sizeof p);
      for (int k = 0; k < 2*nf; k++) { int32_t v = sub->factors[k]; memcpy(params + sizeof p + 4*k, &v, 4); }
      int16_t *in = malloc(2*inlen*3), *padded = calloc(n, 2);
      int16_t *out = malloc(4*(half+1)*3); kiss_fft_cpx *ref = malloc(4*(half+1));
      for (int trial = 0; trial < 20; trial++) {
        int amp = trial % 4 == 0 ? 32767 : (trial % 4 == 1 ? 300 : (trial%4==2 ? 5 : 32767));
        for (int i = 0; i < inlen*3; i++) { int v = r16(); in[i] = trial%4==3 ? (i%2? -32768: 32767) : (int16_t)(v % (amp+1)); }
        ap_buffer_t args[5] = {{(uint8_t*)in, 2u*inlen*3}, {(uint8_t*)sub->twiddles, 4u*half}, {(uint8_t*)cfg->super_twiddles, 4u*(half/2)}, {params, psize}, {(uint8_t*)out, 4u*(half+1)*3}};
        ap_context_t ctx = {0}; ctx.ninputs = 4; ctx.noutputs = 1;
        if (ap_kernel_tflite_3aSignalRfft.fn(&ctx, args, 5, NULL) != AP_OK) { printf("%d: kernel refused\n", n); bad++; break; }
        for (int f = 0; f < 3; f++) {
          memset(padded, 0, 2*n); memcpy(padded, in + f*inlen, 2*inlen);
          kiss_fftr(cfg, padded, ref);
          if (memcmp(ref, out + f*2*(half+1), 4*(half+1)) != 0) { printf("%d (input %d): differs, trial %d frame %d\n", n, inlen, trial, f); bad++; break; }
        }
      }
      free(in); free(padded); free(out); free(ref);
    }
    printf("%d: factors %d checked\n", n, nf);
    free(params); free(cfg);
  }
  printf(bad ? "MISMATCH %d\n" : "all bit-exact\n", bad);
  return bad != 0;
}
