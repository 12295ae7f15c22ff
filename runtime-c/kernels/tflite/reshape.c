/* RESHAPE (see arenaplan/tflite.h): the bytes unchanged, copied unless the plan put the output
 * over the input. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

static ap_status_t reshape(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_is(ctx, args, nargs, 1, 1) || args[0].size != args[1].size) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    if (args[0].size > 0 && args[0].data != args[1].data) {
        memmove(args[1].data, args[0].data, args[0].size);
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aRESHAPE = {"tflite:RESHAPE", reshape, NULL};
