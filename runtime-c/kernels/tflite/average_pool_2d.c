/* AVERAGE_POOL_2D (see arenaplan/tflite.h), int8 and int16 (AVERAGE_POOL_2D_S16): CMSIS-NN's
 * arm_avgpool_s8 and arm_avgpool_s16, through the pooling call both pools share (pooling.c). */
#include "arenaplan/tflite.h"

#include "pooling.h"

static ap_status_t average_pool(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    return ap_tflite_pool(ctx, args, nargs, 1, 1);
}

static ap_status_t average_pool_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    return ap_tflite_pool(ctx, args, nargs, 1, 2);
}

const ap_kernel_t ap_kernel_tflite_3aAVERAGE__POOL__2D__S16 = {"tflite:AVERAGE_POOL_2D_S16", average_pool_s16, NULL};

const ap_kernel_t ap_kernel_tflite_3aAVERAGE__POOL__2D = {"tflite:AVERAGE_POOL_2D", average_pool, NULL};
