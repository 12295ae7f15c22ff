/* The pooling call AVERAGE_POOL_2D and MAX_POOL_2D share (average_pool_2d.c, max_pool_2d.c),
 * for int8 and int16: the arguments checked against the parameters, the planned scratch against
 * what CMSIS-NN's average pool asks for, then CMSIS-NN's kernel. */
#include "pooling.h"

#include "cmsis_nn_call.h"

/* Pooling of int8 (width 1) or int16 (width 2) values. */
ap_status_t ap_tflite_pool(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, int average, size_t width) {
    if (!io_counts(ctx, args, nargs, 2, 2, 1, 0, 1)) { /* then the scratch, when planned */
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *input = &args[0];
    ap_buffer_t *output = &args[2];
    ap_tflite_pool_params_t p;
    if (!read_params(&args[1], &p, sizeof p)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const int32_t dims[] = {p.batches, p.input_h, p.input_w, p.channels, p.filter_h, p.filter_w,
                            p.output_h, p.output_w, p.stride_w, p.stride_h};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
    }
    if (p.pad_w < 0 || p.pad_h < 0 || p.pad_w > 65535 || p.pad_h > 65535 ||
        !window_fits(p.input_h, p.filter_h, p.stride_h, 1, p.pad_h, p.output_h) ||
        !window_fits(p.input_w, p.filter_w, p.stride_w, 1, p.pad_w, p.output_w) ||
        input->size !=
            product4(product4((size_t)p.batches, (size_t)p.channels, (size_t)p.input_h, (size_t)p.input_w), width, 1, 1) ||
        output->size !=
            product4(product4((size_t)p.batches, (size_t)p.channels, (size_t)p.output_h, (size_t)p.output_w), width, 1, 1) ||
        !aligned_to(input, width) || !aligned_to(output, width)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    cmsis_nn_context nn;
    if (!scratch_of(ctx, args, nargs, &nn)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const int32_t needed = !average     ? 0
                           : width == 1 ? arm_avgpool_s8_get_buffer_size(p.output_w, p.channels)
                                        : arm_avgpool_s16_get_buffer_size(p.output_w, p.channels);
    ap_status_t enough = enough_scratch(needed, &nn);
    if (enough != AP_OK) {
        return enough;
    }
    const cmsis_nn_pool_params pp = {{p.stride_w, p.stride_h}, {p.pad_w, p.pad_h},
                                       {p.activation_min, p.activation_max}};
    const cmsis_nn_dims input_dims = {p.batches, p.input_h, p.input_w, p.channels};
    const cmsis_nn_dims filter_dims = {1, p.filter_h, p.filter_w, 1};
    const cmsis_nn_dims output_dims = {p.batches, p.output_h, p.output_w, p.channels};
    arm_cmsis_nn_status s;
    if (width == 2) {
        const int16_t *in = (const int16_t *)(const void *)input->data;
        int16_t *out = (int16_t *)(void *)output->data;
        s = average ? arm_avgpool_s16(&nn, &pp, &input_dims, in, &filter_dims, &output_dims, out)
                    : arm_max_pool_s16(&nn, &pp, &input_dims, in, &filter_dims, &output_dims, out);
    } else {
        s = average ? arm_avgpool_s8(&nn, &pp, &input_dims, (const int8_t *)input->data, &filter_dims, &output_dims,
                                     (int8_t *)output->data)
                    : arm_max_pool_s8(&nn, &pp, &input_dims, (const int8_t *)input->data, &filter_dims, &output_dims,
                                      (int8_t *)output->data);
    }
    return from_cmsis_nn(s);
}
