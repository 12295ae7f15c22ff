/* The runtime's TFLite kernels, under the names programs use (`tflite:FULLY_CONNECTED`:
 * the symbol rule makes `:` `_3a` and `_` `__`), and their registry.
 * GENERATED from build-support/src/kernels/tflite/registry.rs; a test fails when the two
 * differ. Refresh them with
 *   ARENAPLAN_WRITE_TFLITE_C=1 cargo test -p arenaplan-build --lib kernels::tflite::c_files */
#ifndef ARENAPLAN_TFLITE_KERNELS_H
#define ARENAPLAN_TFLITE_KERNELS_H

#include "arenaplan/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const ap_kernel_t ap_kernel_tflite_3aADD;
extern const ap_kernel_t ap_kernel_tflite_3aCONCATENATION;
extern const ap_kernel_t ap_kernel_tflite_3aDEQUANTIZE;
extern const ap_kernel_t ap_kernel_tflite_3aMAX__POOL__2D;
extern const ap_kernel_t ap_kernel_tflite_3aMUL;
extern const ap_kernel_t ap_kernel_tflite_3aPAD;
extern const ap_kernel_t ap_kernel_tflite_3aAVERAGE__POOL__2D;
extern const ap_kernel_t ap_kernel_tflite_3aCONV__2D;
extern const ap_kernel_t ap_kernel_tflite_3aDEPTHWISE__CONV__2D;
extern const ap_kernel_t ap_kernel_tflite_3aFULLY__CONNECTED;
extern const ap_kernel_t ap_kernel_tflite_3aQUANTIZE;
extern const ap_kernel_t ap_kernel_tflite_3aSOFTMAX;
extern const ap_kernel_t ap_kernel_tflite_3aSVDF;
extern const ap_kernel_t ap_kernel_tflite_3aUNIDIRECTIONAL__SEQUENCE__LSTM;
/* RESHAPE: inputs (input), output of the same bytes: a copy (none when they share memory). */
extern const ap_kernel_t ap_kernel_tflite_3aRESHAPE;
/* The 16x8 variants (int16 activations, zero point 0; int8 weights; int64 biases): the same
 * parameters and inputs as their int8 operators', no scratch but AVERAGE_POOL_2D_S16's on DSP
 * builds (a 16x8 FULLY_CONNECTED runs on FULLY_CONNECTED_PER_CHANNEL_S16). */
extern const ap_kernel_t ap_kernel_tflite_3aCONV__2D__S16;
extern const ap_kernel_t ap_kernel_tflite_3aDEPTHWISE__CONV__2D__S16;
/* FULLY_CONNECTED with per-channel weights, int8 and 16x8: inputs (input, filter, [bias,]
 * params), output; the params are ap_tflite_fc_params_t (multiplier and shift unused), then
 * output_depth multipliers, then output_depth shifts. */
extern const ap_kernel_t ap_kernel_tflite_3aFULLY__CONNECTED__PER__CHANNEL;
extern const ap_kernel_t ap_kernel_tflite_3aFULLY__CONNECTED__PER__CHANNEL__S16;
extern const ap_kernel_t ap_kernel_tflite_3aADD__S16;
extern const ap_kernel_t ap_kernel_tflite_3aMUL__S16;
extern const ap_kernel_t ap_kernel_tflite_3aAVERAGE__POOL__2D__S16;
extern const ap_kernel_t ap_kernel_tflite_3aMAX__POOL__2D__S16;
extern const ap_kernel_t ap_kernel_tflite_3aINT__BINARY;
extern const ap_kernel_t ap_kernel_tflite_3aCAST;
/* TRANSPOSE_CONV, int8: inputs (output shape, filter [output_c, filter_h, filter_w, input_c],
 * input, [bias int32,] params), output; the params are ap_tflite_conv_params_t (ch_mult and
 * dilations 1), then output_c multipliers, then output_c shifts. Each output is gathered from
 * the inputs the filter carries to it: no scratch. */
extern const ap_kernel_t ap_kernel_tflite_3aTRANSPOSE__CONV;
extern const ap_kernel_t ap_kernel_tflite_3aMEAN;
extern const ap_kernel_t ap_kernel_tflite_3aRELU;
extern const ap_kernel_t ap_kernel_tflite_3aSTRIDED__SLICE;
extern const ap_kernel_t ap_kernel_tflite_3aSignalWindow;
extern const ap_kernel_t ap_kernel_tflite_3aSignalFftAutoScale;
extern const ap_kernel_t ap_kernel_tflite_3aSignalRfft;
extern const ap_kernel_t ap_kernel_tflite_3aSignalEnergy;
extern const ap_kernel_t ap_kernel_tflite_3aSignalFilterBank;
extern const ap_kernel_t ap_kernel_tflite_3aSignalFilterBankSquareRoot;
extern const ap_kernel_t ap_kernel_tflite_3aSignalFilterBankSpectralSubtraction;
extern const ap_kernel_t ap_kernel_tflite_3aSignalPCAN;
extern const ap_kernel_t ap_kernel_tflite_3aSignalFilterBankLog;

/* Every kernel above, in this order: what a runner adds to its kernel list
 * (arenaplan::tflite_kernels() reads it). Defined only in builds with CMSIS-NN. */
#define AP_TFLITE_KERNEL_COUNT 38u
extern const ap_kernel_t *const ap_tflite_kernels[AP_TFLITE_KERNEL_COUNT];

#ifdef __cplusplus
}
#endif

#endif /* ARENAPLAN_TFLITE_KERNELS_H */
