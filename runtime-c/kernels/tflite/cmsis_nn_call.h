/* What the kernels on CMSIS-NN share beyond common.h: the call's scratch as CMSIS-NN's context,
 * checked against what the kernel's CMSIS-NN variant asks for (each kernel checks its arguments
 * against its parameters before CMSIS-NN reads or writes a byte), and the argument check of
 * the int16 elementwise kernels (add.c, mul.c). */
#ifndef ARENAPLAN_TFLITE_CMSIS_NN_CALL_H
#define ARENAPLAN_TFLITE_CMSIS_NN_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "arenaplan/runtime.h"
#include "common.h"

#include "arm_nnfunctions.h"

/* The call's scratch: the arguments after its inputs and outputs (one buffer at most, none
 * where the kernel needs none on this build). */
static inline int scratch_of(const ap_context_t *ctx, const ap_buffer_t *args, size_t nargs, cmsis_nn_context *nn) {
    const size_t io = (size_t)ctx->ninputs + ctx->noutputs;
    nn->buf = NULL;
    nn->size = 0;
    if (nargs < io || nargs > io + 1u) {
        return 0;
    }
    if (nargs == io + 1u) {
        if (args[io].size > INT32_MAX) {
            return 0;
        }
        /* CMSIS-NN reads its buffers as int16 and int32: planned at least 4-byte aligned. */
        if (((uintptr_t)args[io].data & 3u) != 0) {
            return 0;
        }
        nn->buf = args[io].data;
        nn->size = (int32_t)args[io].size;
    }
    return 1;
}

/* CMSIS-NN's status as the runtime's: each kernel checks its arguments against its tables
 * before it calls CMSIS-NN, so a refusal left is the library's own (a parameter its variant
 * does not take, or no implementation for it), not a table mismatch. */
static inline ap_status_t from_cmsis_nn(arm_cmsis_nn_status s) {
    switch (s) {
    case ARM_CMSIS_NN_SUCCESS: return AP_OK;
    case ARM_CMSIS_NN_NO_IMPL_ERROR: return AP_ERR_UNSUPPORTED;
    default: return AP_ERR_KERNEL_FAILED;
    }
}

/* The status a kernel returns when CMSIS-NN asks for more scratch than was planned: the
 * build planned for another instruction set than this library was compiled for. */
static inline ap_status_t enough_scratch(int32_t needed, const cmsis_nn_context *nn) {
    return needed > nn->size ? AP_ERR_SCRATCH_TOO_SMALL : AP_OK;
}

/* Whether the build gave the call no scratch at all: it chose the kernel's variant that needs
 * none (where the library's scratch would have made the arena larger, or its target's variant
 * needs none). A scratch that is there but too small is a plan for another instruction set. */
static inline int without_scratch(const ap_context_t *ctx, size_t nargs) {
    return nargs == (size_t)ctx->ninputs + ctx->noutputs;
}

/* ADD and MUL of int16 (16x8 models): the same parameters, CMSIS-NN's _s16 kernels. */
static inline int elementwise_s16_args(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *params, size_t size) {
    return io_is(ctx, args, nargs, 3, 1) && read_params(&args[2], params, size) && args[0].size == args[3].size && args[1].size == args[3].size &&
           args[3].size % 2 == 0 && args[3].size / 2 <= INT32_MAX && aligned_to(&args[0], 2) &&
           aligned_to(&args[1], 2) && aligned_to(&args[3], 2);
}

#endif /* ARENAPLAN_TFLITE_CMSIS_NN_CALL_H */
