/* The argument check CONV_2D and DEPTHWISE_CONV_2D share (conv_2d.c, depthwise_conv_2d.c), for
 * their int8 and 16x8 variants: every buffer against the parameters, before a byte is read,
 * turned into CMSIS-NN's dimensions and per-channel quantization. */
#include "conv_call.h"

#include <string.h>

#include "cmsis_nn_call.h"

/* `wide`: a 16x8 call (int16 input and output, int64 bias). */
int ap_tflite_conv_call(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, int depthwise, int wide,
                        ap_tflite_conv_call_t *c) {
    if (!io_counts(ctx, args, nargs, 4, 4, 1, 0, 1)) { /* then the scratch, when planned */
        return 0;
    }
    const ap_buffer_t *input = &args[0], *filter = &args[1], *bias = &args[2], *params = &args[3];
    ap_buffer_t *output = &args[4];
    ap_tflite_conv_params_t *p = &c->p;
    if (params->data == NULL || params->size < sizeof *p) {
        return 0;
    }
    memcpy(p, params->data, sizeof *p);
    const int32_t dims[] = {p->batches, p->input_h, p->input_w, p->input_c, p->filter_h,
                            p->filter_w, p->output_h, p->output_w, p->output_c, p->ch_mult};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return 0;
        }
    }
    const size_t oc = (size_t)p->output_c;
    const size_t filter_c = depthwise ? 1u : (size_t)p->input_c;
    const int channels_fit =
        depthwise ? (int64_t)p->input_c * p->ch_mult == p->output_c : p->ch_mult == 1;
    /* Strides and dilations positive, paddings not negative, all within CMSIS-NN's 16 bits: the
     * kernels' index arithmetic then stays inside int32. */
    const int32_t geometry[] = {p->stride_w, p->stride_h, p->dilation_w, p->dilation_h};
    for (size_t i = 0; i < sizeof geometry / sizeof geometry[0]; i++) {
        if (geometry[i] <= 0 || geometry[i] > 65535) {
            return 0;
        }
    }
    if (p->pad_w < 0 || p->pad_h < 0 || p->pad_w > 65535 || p->pad_h > 65535) {
        return 0;
    }
    /* The output's height and width follow from the input's (CMSIS-NN's kernels assume it). */
    if (!window_fits(p->input_h, p->filter_h, p->stride_h, p->dilation_h, p->pad_h, p->output_h) ||
        !window_fits(p->input_w, p->filter_w, p->stride_w, p->dilation_w, p->pad_w, p->output_w)) {
        return 0;
    }
    /* The per-channel multipliers and shifts follow the header; CMSIS-NN reads them as int32. */
    const size_t act = wide ? 2u : 1u, bias_width = wide ? 8u : 4u;
    if (!channels_fit || params->size != sizeof *p + 2u * oc * sizeof(int32_t) || !int32_aligned(params) ||
        !aligned_to(bias, bias_width) || !aligned_to(input, act) || !aligned_to(output, act) ||
        input->size !=
            product4(product4((size_t)p->batches, (size_t)p->input_h, (size_t)p->input_w, (size_t)p->input_c), act, 1, 1) ||
        filter->size != product4((size_t)p->filter_h, (size_t)p->filter_w, filter_c, oc) ||
        bias->size != oc * bias_width ||
        output->size != product4(product4((size_t)p->batches, (size_t)p->output_h, (size_t)p->output_w, oc), act, 1, 1)) {
        return 0;
    }
    const int32_t *per_channel = (const int32_t *)(const void *)(params->data + sizeof *p);
    for (size_t o = 0; o < oc; o++) {
        if (!(wide ? shift_s64_ok(per_channel[oc + o]) : shift_ok(per_channel[oc + o]))) {
            return 0;
        }
    }
    c->quant.multiplier = (int32_t *)per_channel;
    c->quant.shift = (int32_t *)per_channel + oc;
    c->input = (const int8_t *)input->data;
    c->filter = (const int8_t *)filter->data;
    c->bias = (const int32_t *)(const void *)bias->data;
    c->output = (int8_t *)output->data;
    c->input16 = (const int16_t *)(const void *)input->data;
    c->output16 = (int16_t *)(void *)output->data;
    c->bias64 = (const int64_t *)(const void *)bias->data;
    c->input_dims = (cmsis_nn_dims){p->batches, p->input_h, p->input_w, p->input_c};
    c->filter_dims = depthwise ? (cmsis_nn_dims){1, p->filter_h, p->filter_w, p->output_c}
                               : (cmsis_nn_dims){p->output_c, p->filter_h, p->filter_w, p->input_c};
    c->bias_dims = (cmsis_nn_dims){1, 1, 1, p->output_c};
    c->output_dims = (cmsis_nn_dims){p->batches, p->output_h, p->output_w, p->output_c};
    return scratch_of(ctx, args, nargs, &c->nn);
}
