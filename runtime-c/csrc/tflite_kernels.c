/* TFLite's builtin operators on CMSIS-NN (see arenaplan/tflite.h): each kernel checks its
 * arguments against its parameters before CMSIS-NN reads or writes a byte. */
#include "arenaplan/tflite.h"

#include <string.h>

#include "arm_nnfunctions.h"

/* The parameters constant, copied (a constant's bytes need not be aligned for int32). */
static int read_params(const ap_buffer_t *b, void *out, size_t size) {
    if (b->data == NULL || b->size != size) {
        return 0;
    }
    memcpy(out, b->data, size);
    return 1;
}

static ap_status_t fully_connected(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->noutputs != 1 || (ctx->ninputs != 3 && ctx->ninputs != 4) ||
        nargs < (size_t)ctx->ninputs + 1u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const uint32_t n = ctx->ninputs;
    const ap_buffer_t *input = &args[0], *filter = &args[1], *bias = n == 4 ? &args[2] : NULL;
    ap_buffer_t *output = &args[n];
    ap_tflite_fc_params_t p;
    if (!read_params(&args[n - 1], &p, sizeof p) || p.output_depth <= 0) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const size_t depth = (size_t)p.output_depth;
    if (output->size == 0 || output->size % depth != 0 || filter->size % depth != 0) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const size_t batches = output->size / depth, accum = filter->size / depth;
    if (accum == 0 || input->size != batches * accum || accum > INT32_MAX || batches > INT32_MAX ||
        (bias != NULL && bias->size != depth * sizeof(int32_t))) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    /* CMSIS-NN reads the bias as int32_t: an unaligned constant is copied first. */
    int32_t aligned_bias[64];
    const int32_t *bias_data = NULL;
    if (bias != NULL) {
        if (((uintptr_t)bias->data & 3u) == 0) {
            bias_data = (const int32_t *)(const void *)bias->data;
        } else if (depth <= sizeof aligned_bias / sizeof aligned_bias[0]) {
            memcpy(aligned_bias, bias->data, bias->size);
            bias_data = aligned_bias;
        } else {
            return AP_ERR_BAD_ARGUMENTS;
        }
    }
    const cmsis_nn_context nn = {NULL, 0};
    const cmsis_nn_fc_params fc = {p.input_offset, p.filter_offset, p.output_offset,
                                   {p.activation_min, p.activation_max}};
    const cmsis_nn_per_tensor_quant_params quant = {p.multiplier, p.shift};
    const cmsis_nn_dims input_dims = {(int32_t)batches, 1, 1, (int32_t)accum};
    const cmsis_nn_dims filter_dims = {(int32_t)accum, 1, 1, p.output_depth};
    const cmsis_nn_dims bias_dims = {1, 1, 1, p.output_depth};
    const cmsis_nn_dims output_dims = {(int32_t)batches, 1, 1, p.output_depth};
    arm_cmsis_nn_status s = arm_fully_connected_s8(&nn, &fc, &quant, &input_dims, (const int8_t *)input->data,
                                                   &filter_dims, (const int8_t *)filter->data, &bias_dims,
                                                   bias_data, &output_dims, (int8_t *)output->data);
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aFULLY__CONNECTED = {"tflite:FULLY_CONNECTED", fully_connected, NULL};

/* The call's scratch: the arguments after its inputs and outputs (one buffer at most). */
static int scratch_of(const ap_context_t *ctx, ap_buffer_t *args, size_t nargs, cmsis_nn_context *nn) {
    const size_t io = (size_t)ctx->ninputs + ctx->noutputs;
    nn->buf = NULL;
    nn->size = 0;
    if (nargs > io + 1u) {
        return 0;
    }
    if (nargs == io + 1u) {
        if (args[io].size > INT32_MAX) {
            return 0;
        }
        nn->buf = args[io].data;
        nn->size = (int32_t)args[io].size;
    }
    return 1;
}

static ap_status_t depthwise_conv(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->ninputs != 4 || ctx->noutputs != 1 || nargs < 5u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *input = &args[0], *filter = &args[1], *bias = &args[2], *params = &args[3];
    ap_buffer_t *output = &args[4];
    ap_tflite_dw_conv_params_t p;
    if (params->data == NULL || params->size < sizeof p) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    memcpy(&p, params->data, sizeof p);
    const int32_t dims[] = {p.batches, p.input_h, p.input_w, p.input_c, p.filter_h, p.filter_w,
                            p.output_h, p.output_w, p.output_c, p.ch_mult};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return AP_ERR_BAD_ARGUMENTS;
        }
    }
    const size_t c = (size_t)p.output_c;
    /* The per-channel multipliers and shifts follow the header; CMSIS-NN reads them as int32. */
    if (params->size != sizeof p + 2u * c * sizeof(int32_t) || ((uintptr_t)params->data & 3u) != 0 ||
        ((uintptr_t)bias->data & 3u) != 0 || p.input_c * p.ch_mult != p.output_c ||
        input->size != (size_t)p.batches * (size_t)p.input_h * (size_t)p.input_w * (size_t)p.input_c ||
        filter->size != (size_t)p.filter_h * (size_t)p.filter_w * c || bias->size != c * sizeof(int32_t) ||
        output->size != (size_t)p.batches * (size_t)p.output_h * (size_t)p.output_w * c) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const int32_t *per_channel = (const int32_t *)(const void *)(params->data + sizeof p);
    const cmsis_nn_dw_conv_params dw = {p.input_offset, p.output_offset, p.ch_mult,
                                        {p.stride_w, p.stride_h}, {p.pad_w, p.pad_h},
                                        {p.dilation_w, p.dilation_h}, {p.activation_min, p.activation_max}};
    const cmsis_nn_per_channel_quant_params quant = {(int32_t *)per_channel, (int32_t *)per_channel + c};
    const cmsis_nn_dims input_dims = {p.batches, p.input_h, p.input_w, p.input_c};
    const cmsis_nn_dims filter_dims = {1, p.filter_h, p.filter_w, p.output_c};
    const cmsis_nn_dims bias_dims = {1, 1, 1, p.output_c};
    const cmsis_nn_dims output_dims = {p.batches, p.output_h, p.output_w, p.output_c};
    cmsis_nn_context nn;
    if (!scratch_of(ctx, args, nargs, &nn)) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    /* The scratch the build planned must be what this CMSIS-NN variant asks for. */
    if (arm_depthwise_conv_wrapper_s8_get_buffer_size(&dw, &input_dims, &filter_dims, &output_dims) > nn.size) {
        return AP_ERR_SCRATCH_TOO_SMALL;
    }
    arm_cmsis_nn_status s = arm_depthwise_conv_wrapper_s8(&nn, &dw, &quant, &input_dims, (const int8_t *)input->data,
                                                          &filter_dims, (const int8_t *)filter->data, &bias_dims,
                                                          (const int32_t *)(const void *)bias->data, &output_dims,
                                                          (int8_t *)output->data);
    return s == ARM_CMSIS_NN_SUCCESS ? AP_OK : AP_ERR_BAD_ARGUMENTS;
}

const ap_kernel_t ap_kernel_tflite_3aDEPTHWISE__CONV__2D = {"tflite:DEPTHWISE_CONV_2D", depthwise_conv, NULL};

static ap_status_t softmax(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->ninputs != 2 || ctx->noutputs != 1 || nargs < 3u) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[2];
    ap_tflite_softmax_params_t p;
    if (!read_params(&args[1], &p, sizeof p) || p.row_size <= 0 || input->size != output->size ||
        input->size == 0 || input->size % (size_t)p.row_size != 0 || input->size / (size_t)p.row_size > INT32_MAX) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    arm_softmax_s8((const int8_t *)input->data, (int32_t)(input->size / (size_t)p.row_size), p.row_size,
                   p.multiplier, p.shift, p.diff_min, (int8_t *)output->data);
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aSOFTMAX = {"tflite:SOFTMAX", softmax, NULL};

static ap_status_t reshape(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (ctx == NULL || args == NULL || ctx->ninputs != 1 || ctx->noutputs != 1 || nargs < 2u ||
        args[0].size != args[1].size) {
        return AP_ERR_BAD_ARGUMENTS;
    }
    if (args[0].size > 0 && args[0].data != args[1].data) {
        memmove(args[1].data, args[0].data, args[0].size);
    }
    return AP_OK;
}

const ap_kernel_t ap_kernel_tflite_3aRESHAPE = {"tflite:RESHAPE", reshape, NULL};
