/* UNIDIRECTIONAL_SEQUENCE_LSTM (see arenaplan/tflite.h), int8 with int16 cell state, on
 * CMSIS-NN's arm_lstm_unidirectional_s8, with the gates' row sums the build computed. */
#include "arenaplan/tflite.h"

#include "cmsis_nn_call.h"
#include "common.h"

#include "arm_nnfunctions.h"

static cmsis_nn_lstm_gate lstm_gate(const ap_tflite_lstm_gate_t *g, const ap_buffer_t *input_weights,
                                    const ap_buffer_t *recurrent_weights, const ap_buffer_t *bias,
                                    const int32_t *input_sums, const int32_t *hidden_sums) {
    const cmsis_nn_lstm_gate gate = {g->input_multiplier, g->input_shift, input_weights->data, input_sums,
                                     g->hidden_multiplier, g->hidden_shift, recurrent_weights->data, hidden_sums,
                                     bias->data, g->activation == 1 ? ARM_TANH : ARM_SIGMOID};
    return gate;
}

static ap_status_t lstm(ap_context_t *ctx, ap_buffer_t *args, size_t nargs, void *user) {
    (void)user;
    if (!io_counts(ctx, args, nargs, 17, 17, 1, 1, 1)) { /* then its scratch */
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const ap_buffer_t *input = &args[0], *sums = &args[15];
    ap_buffer_t *hidden = &args[13], *cell = &args[14], *output = &args[17], *scratch = &args[18];
    ap_tflite_lstm_params_t p;
    if (!read_params(&args[16], &p, sizeof p)) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    const int32_t dims[] = {p.batches, p.time_steps, p.input_size, p.hidden_size};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        if (dims[i] <= 0 || dims[i] > 65535) {
            return AP_ERR_ARGUMENT_MISMATCH;
        }
    }
    const size_t b = (size_t)p.batches, h = (size_t)p.hidden_size, in = (size_t)p.input_size;
    const size_t steps = (size_t)p.time_steps;
    const size_t in_bytes = product4(b, steps, in, 1), out_bytes = product4(b, steps, h, 1);
    int ok = in_bytes != 0 && out_bytes != 0 && input->size == in_bytes && output->size == out_bytes &&
             hidden->size == b * h && cell->size == product4(b, h, sizeof(int16_t), 1) &&
             sums->size == 8u * h * sizeof(int32_t) && scratch->size >= product4(2u, b, h, sizeof(int16_t)) && int32_aligned(sums) && int32_aligned(scratch) &&
             ((uintptr_t)cell->data & 1u) == 0;
    for (size_t g = 0; ok && g < 4; g++) {
        ok = args[1 + g].size == h * in && args[5 + g].size == h * h && args[9 + g].size == h * sizeof(int32_t) &&
             int32_aligned(&args[9 + g]);
    }
    if (!ok) {
        return AP_ERR_ARGUMENT_MISMATCH;
    }
    /* The model's gates are input, forget, cell, output; CMSIS-NN's and the sums', forget,
     * input, cell, output. */
    const int32_t *s = (const int32_t *)(const void *)sums->data;
    static const size_t model_gate[4] = {1, 0, 2, 3};
    const ap_tflite_lstm_gate_t *gates[4] = {&p.forget_gate, &p.input_gate, &p.cell_gate, &p.output_gate};
    cmsis_nn_lstm_gate g[4];
    for (size_t k = 0; k < 4; k++) {
        const size_t m = model_gate[k];
        g[k] = lstm_gate(gates[k], &args[1 + m], &args[5 + m], &args[9 + m], s + k * h, s + (4 + k) * h);
    }
    const cmsis_nn_lstm_params lp = {p.time_major, p.batches, p.time_steps, p.input_size, p.hidden_size,
                                     p.input_offset, p.forget_to_cell_multiplier, p.forget_to_cell_shift,
                                     p.input_to_cell_multiplier, p.input_to_cell_shift, p.cell_clip,
                                     p.cell_scale_power, p.output_multiplier, p.output_shift, p.output_offset,
                                     g[0], g[1], g[2], g[3]};
    /* The states are the model's variable tensors: CMSIS-NN starts from them and leaves the
     * last step's in them, so they carry into the next invocation as under TFLM. */
    int16_t *temp = (int16_t *)(void *)scratch->data;
    cmsis_nn_lstm_context buffers = {temp, temp + b * h, cell->data, hidden->data};
    arm_cmsis_nn_status st = arm_lstm_unidirectional_s8((const int8_t *)input->data, (int8_t *)output->data, &lp,
                                                        &buffers);
    return from_cmsis_nn(st);
}

const ap_kernel_t ap_kernel_tflite_3aUNIDIRECTIONAL__SEQUENCE__LSTM = {"tflite:UNIDIRECTIONAL_SEQUENCE_LSTM", lstm,
                                                                      NULL};
