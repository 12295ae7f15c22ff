/* DEPTHWISE_CONV_2D (see arenaplan/tflite.h) on CMSIS-NN: int8 through
 * arm_depthwise_conv_wrapper_s8 where the build planned its scratch, else CMSIS-NN's generic
 * arm_depthwise_conv_s8, which needs none; 16x8 (DEPTHWISE_CONV_2D_S16) through
 * arm_depthwise_conv_s16. The arguments are checked by ap_tflite_conv_call (conv_call.c) before
 * a byte is read. */
#include "arenaplan/tflite.h"

#include "cmsis_nn_call.h"
#include "conv_call.h"

static ap_status_t depthwise_conv(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_conv_call_t c;
    if (!ap_tflite_conv_call(ctx, args, nargs, 1, 0, &c)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const cmsis_nn_dw_conv_params dw = {c.p.input_offset, c.p.output_offset, c.p.ch_mult,
                                        {c.p.stride_w, c.p.stride_h}, {c.p.pad_w, c.p.pad_h},
                                        {c.p.dilation_w, c.p.dilation_h}, {c.p.activation_min, c.p.activation_max}};
    const int32_t needed =
        arm_depthwise_conv_wrapper_s8_get_buffer_size(&dw, &c.input_dims, &c.filter_dims, &c.output_dims);
    if (needed > 0 && without_scratch(ctx, nargs)) {
        /* CMSIS-NN's generic depthwise kernel, which needs no buffer. */
        arm_cmsis_nn_status s = arm_depthwise_conv_s8(&c.nn, &dw, &c.quant, &c.input_dims, c.input, &c.filter_dims,
                                                      c.filter, &c.bias_dims, c.bias, &c.output_dims, c.output);
        return from_cmsis_nn(s);
    }
    ap_status_t enough = enough_scratch(needed, &c.nn);
    if (enough != AP_OK) {
        return enough;
    }
    arm_cmsis_nn_status s = arm_depthwise_conv_wrapper_s8(&c.nn, &dw, &c.quant, &c.input_dims, c.input,
                                                          &c.filter_dims, c.filter, &c.bias_dims, c.bias,
                                                          &c.output_dims, c.output);
    return from_cmsis_nn(s);
}

const ap_kernel_t ap_kernel_tflite_3aDEPTHWISE__CONV__2D = {"tflite:DEPTHWISE_CONV_2D", depthwise_conv, NULL};

/* DEPTHWISE_CONV_2D, 16x8: CMSIS-NN's generic kernel, which needs no buffer. */
static ap_status_t depthwise_conv_s16(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    ap_tflite_conv_call_t c;
    if (!ap_tflite_conv_call(ctx, args, nargs, 1, 1, &c) || !without_scratch(ctx, nargs)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const cmsis_nn_dw_conv_params dw = {c.p.input_offset, c.p.output_offset, c.p.ch_mult,
                                        {c.p.stride_w, c.p.stride_h}, {c.p.pad_w, c.p.pad_h},
                                        {c.p.dilation_w, c.p.dilation_h}, {c.p.activation_min, c.p.activation_max}};
    arm_cmsis_nn_status s = arm_depthwise_conv_s16(&c.nn, &dw, &c.quant, &c.input_dims, c.input16, &c.filter_dims,
                                                   c.filter, &c.bias_dims, c.bias64, &c.output_dims, c.output16);
    return from_cmsis_nn(s);
}

const ap_kernel_t ap_kernel_tflite_3aDEPTHWISE__CONV__2D__S16 = {"tflite:DEPTHWISE_CONV_2D_S16", depthwise_conv_s16,
                                                                 NULL};
