/* CONCATENATION (see arenaplan/tflite.h): TFLM's reference concatenation as byte copies, each
 * input's slice of every outer index in turn (the build checked the inputs share the output's
 * quantization, so no element is rescaled). */
#include "arenaplan/tflite.h"

#include <string.h>

#include "common.h"

/* Each outer index: every input's slice after it, in order. */
static ap_status_t concatenation(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_counts(ctx, args, nargs, 2, UINT32_MAX, 1, 0, 0)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const uint32_t n = ctx->ninputs - 1; /* the data inputs, before the params */
    const ap_buffer_t *params = &args[n];
    ap_buffer_t *output = &args[n + 1];
    ap_tflite_concat_params_t p;
    if (params->data == NULL || params->size < sizeof p) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    memcpy(&p, params->data, sizeof p);
    if (p.inputs <= 0 || (uint32_t)p.inputs != n || p.outer < 0 ||
        params->size != sizeof p + (size_t)n * sizeof(int32_t)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    size_t row = 0;
    for (uint32_t i = 0; i < n; i++) {
        int32_t inner;
        memcpy(&inner, params->data + sizeof p + i * sizeof inner, sizeof inner);
        if (inner < 0 || args[i].size != (size_t)p.outer * (size_t)inner) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
        row += (size_t)inner;
    }
    if (output->size != (size_t)p.outer * row) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    uint8_t *out = output->data;
    for (size_t k = 0; k < (size_t)p.outer; k++) {
        for (uint32_t i = 0; i < n; i++) {
            int32_t inner;
            memcpy(&inner, params->data + sizeof p + i * sizeof inner, sizeof inner);
            if (inner > 0) { /* an empty input's pointer may be NULL: no arithmetic on it */
                memcpy(out, args[i].data + k * (size_t)inner, (size_t)inner);
                out += inner;
            }
        }
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aCONCATENATION = {"tflite:CONCATENATION", concatenation, NULL};
