/* The registry of the runtime's TFLite kernels (declared in arenaplan/tflite_kernels.h).
 * GENERATED from build-support/src/kernels/tflite/registry.rs; a test fails when the two
 * differ. Refresh them with
 *   ARENAPLAN_WRITE_TFLITE_C=1 cargo test -p arenaplan-build --lib kernels::tflite::c_files */

#include "arenaplan/tflite.h"

const ap_kernel_t *const ap_tflite_kernels[AP_TFLITE_KERNEL_COUNT] = {
    &ap_kernel_tflite_3aADD,
    &ap_kernel_tflite_3aCONCATENATION,
    &ap_kernel_tflite_3aDEQUANTIZE,
    &ap_kernel_tflite_3aMAX__POOL__2D,
    &ap_kernel_tflite_3aMUL,
    &ap_kernel_tflite_3aPAD,
    &ap_kernel_tflite_3aAVERAGE__POOL__2D,
    &ap_kernel_tflite_3aCONV__2D,
    &ap_kernel_tflite_3aDEPTHWISE__CONV__2D,
    &ap_kernel_tflite_3aFULLY__CONNECTED,
    &ap_kernel_tflite_3aQUANTIZE,
    &ap_kernel_tflite_3aSOFTMAX,
    &ap_kernel_tflite_3aSVDF,
    &ap_kernel_tflite_3aUNIDIRECTIONAL__SEQUENCE__LSTM,
    &ap_kernel_tflite_3aRESHAPE,
    &ap_kernel_tflite_3aCONV__2D__S16,
    &ap_kernel_tflite_3aDEPTHWISE__CONV__2D__S16,
    &ap_kernel_tflite_3aFULLY__CONNECTED__PER__CHANNEL,
    &ap_kernel_tflite_3aFULLY__CONNECTED__PER__CHANNEL__S16,
    &ap_kernel_tflite_3aADD__S16,
    &ap_kernel_tflite_3aMUL__S16,
    &ap_kernel_tflite_3aAVERAGE__POOL__2D__S16,
    &ap_kernel_tflite_3aMAX__POOL__2D__S16,
    &ap_kernel_tflite_3aINT__BINARY,
    &ap_kernel_tflite_3aCAST,
    &ap_kernel_tflite_3aTRANSPOSE__CONV,
    &ap_kernel_tflite_3aMEAN,
    &ap_kernel_tflite_3aRELU,
    &ap_kernel_tflite_3aSTRIDED__SLICE,
    &ap_kernel_tflite_3aSignalWindow,
    &ap_kernel_tflite_3aSignalFftAutoScale,
    &ap_kernel_tflite_3aSignalRfft,
    &ap_kernel_tflite_3aSignalEnergy,
    &ap_kernel_tflite_3aSignalFilterBank,
    &ap_kernel_tflite_3aSignalFilterBankSquareRoot,
    &ap_kernel_tflite_3aSignalFilterBankSpectralSubtraction,
    &ap_kernel_tflite_3aSignalPCAN,
    &ap_kernel_tflite_3aSignalFilterBankLog,
};
