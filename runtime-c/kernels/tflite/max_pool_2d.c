/* MAX_POOL_2D (see arenaplan/tflite.h), int8 and int16 (MAX_POOL_2D_S16): CMSIS-NN's
 * arm_max_pool_s8 and arm_max_pool_s16, through the pooling call both pools share (pooling.c). */
#include "arenaplan/tflite.h"

#include "pooling.h"

static ap_status_t max_pool(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    return ap_tflite_pool(ctx, args, nargs, 0, 1);
}

const ap_kernel_t ap_kernel_tflite_3aMAX__POOL__2D = {"tflite:MAX_POOL_2D", max_pool, NULL};

static ap_status_t max_pool_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    return ap_tflite_pool(ctx, args, nargs, 0, 2);
}

const ap_kernel_t ap_kernel_tflite_3aMAX__POOL__2D__S16 = {"tflite:MAX_POOL_2D_S16", max_pool_s16, NULL};
