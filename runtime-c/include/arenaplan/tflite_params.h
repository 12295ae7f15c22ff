/* The parameter layouts of the runtime's TFLite kernels: the constant each kernel reads
 * last among its inputs, int32 little-endian, field by field, as the build computes it
 * from the model (as TFLite Micro computes it when it prepares the operator).
 * GENERATED from build-support/src/kernels/tflite/layouts.rs; a test fails when the two
 * differ. Refresh them with
 *   ARENAPLAN_WRITE_TFLITE_C=1 cargo test -p arenaplan-build --lib kernels::tflite::c_files */
#ifndef ARENAPLAN_TFLITE_PARAMS_H
#define ARENAPLAN_TFLITE_PARAMS_H

#include <stdint.h>

/* FULLY_CONNECTED, int8: inputs (input, filter, [bias int32,] row sums, params), output. The
 * row sums are output_depth int32, arm_vector_sum_s8's of the constant weights and bias, which
 * CMSIS-NN's Helium kernel reads as its scratch. FULLY_CONNECTED_PER_CHANNEL and its _S16
 * read it too (multiplier and shift unused), then output_depth multipliers, then
 * output_depth shifts. */
typedef struct ap_tflite_fc_params {
    int32_t input_offset;  /* -input zero point */
    int32_t filter_offset; /* -filter zero point (0 for int8) */
    int32_t output_offset; /* output zero point */
    int32_t multiplier;    /* input scale x filter scale / output scale, as Q31 */
    int32_t shift;         /* and its power of two */
    int32_t activation_min;
    int32_t activation_max;
    int32_t output_depth;  /* the filter's rows */
} ap_tflite_fc_params_t;

/* CONV_2D and DEPTHWISE_CONV_2D (and their _S16), int8: inputs (input, filter, bias int32,
 * params), output; the params are this header, then output_c multipliers, then output_c
 * shifts (per channel). The filter is [output_c, filter_h, filter_w, input_c] for CONV_2D,
 * [1, filter_h, filter_w, output_c] for DEPTHWISE_CONV_2D. A call's last argument, when
 * present, is the scratch its CMSIS-NN kernel asks for (arm_*_get_buffer_size), planned by
 * the build. TRANSPOSE_CONV reads it too (ch_mult and dilations 1). */
typedef struct ap_tflite_conv_params {
    int32_t input_offset;  /* -input zero point */
    int32_t output_offset; /* output zero point */
    int32_t ch_mult;       /* DEPTHWISE_CONV_2D: output channels per input channel; CONV_2D: 1 */
    int32_t stride_w;
    int32_t stride_h;
    int32_t pad_w;         /* before the first column */
    int32_t pad_h;         /* before the first row */
    int32_t dilation_w;
    int32_t dilation_h;
    int32_t activation_min;
    int32_t activation_max;
    int32_t batches;
    int32_t input_h;
    int32_t input_w;
    int32_t input_c;
    int32_t filter_h;
    int32_t filter_w;
    int32_t output_h;
    int32_t output_w;
    int32_t output_c;
} ap_tflite_conv_params_t;

/* AVERAGE_POOL_2D and MAX_POOL_2D (and their _S16), int8 (output quantized as the input):
 * inputs (input, params), output, then the kernel's scratch when it needs one
 * (AVERAGE_POOL_2D's DSP build). */
typedef struct ap_tflite_pool_params {
    int32_t stride_w;
    int32_t stride_h;
    int32_t pad_w;
    int32_t pad_h;
    int32_t activation_min;
    int32_t activation_max;
    int32_t batches;
    int32_t input_h;
    int32_t input_w;
    int32_t channels;
    int32_t filter_h;
    int32_t filter_w;
    int32_t output_h;
    int32_t output_w;
} ap_tflite_pool_params_t;

/* ADD (and ADD_S16), int8, inputs of the output's shape: inputs (input1, input2, params),
 * output. */
typedef struct ap_tflite_add_params {
    int32_t input1_offset;     /* -zero point */
    int32_t input1_multiplier; /* scale / (2 x max) */
    int32_t input1_shift;
    int32_t input2_offset;
    int32_t input2_multiplier;
    int32_t input2_shift;
    int32_t left_shift;        /* 20 (int8), 15 (int16) */
    int32_t output_offset;
    int32_t output_multiplier;
    int32_t output_shift;
    int32_t activation_min;
    int32_t activation_max;
} ap_tflite_add_params_t;

/* SOFTMAX, int8 in, int8 out (scale 1/256, zero point -128) or int16 out (scale 1/65536, zero
 * point -32768; the output is twice the input's bytes): inputs (input, params), output, over
 * rows of row_size. */
typedef struct ap_tflite_softmax_params {
    int32_t multiplier; /* beta x input scale, scaled to 5 integer bits, as Q31 */
    int32_t shift;      /* and its left shift */
    int32_t diff_min;   /* differences below it count as zero */
    int32_t row_size;
} ap_tflite_softmax_params_t;

/* MUL (and MUL_S16), int8, inputs of the output's shape: inputs (input1, input2, params),
 * output. */
typedef struct ap_tflite_mul_params {
    int32_t input1_offset; /* -zero point */
    int32_t input2_offset; /* -zero point */
    int32_t output_offset; /* output zero point */
    int32_t multiplier;    /* input1 scale x input2 scale / output scale */
    int32_t shift;
    int32_t activation_min;
    int32_t activation_max;
} ap_tflite_mul_params_t;

/* QUANTIZE between int8, int16 and int32 (TFLM's Requantize), or from float32 (AffineQuantize:
 * input_float 1, multiplier the output scale's float bits): inputs (input, params), output. */
typedef struct ap_tflite_quantize_params {
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t multiplier;  /* input scale / output scale */
    int32_t shift;
    int32_t input_width; /* bytes per element: 1, 2 or 4 */
    int32_t output_width;
    int32_t input_float;
} ap_tflite_quantize_params_t;

/* DEQUANTIZE int8 or int16 to float32: inputs (input, params), output. */
typedef struct ap_tflite_dequantize_params {
    int32_t zero_point;
    int32_t scale_bits; /* the float scale's bits */
    int32_t input_width;
} ap_tflite_dequantize_params_t;

/* PAD and PADV2 (TFLM's Pad over up to five dimensions, leading ones 1): inputs (input,
 * paddings, [value,] params), output. */
typedef struct ap_tflite_pad_params {
    int32_t width;      /* bytes per element */
    int32_t value;      /* padded with: an int8 output's zero point, PADV2's value, or 0 */
    int32_t dims[5][3]; /* per dimension: input extent, before, after */
} ap_tflite_pad_params_t;

/* CONCATENATION: inputs (input0..inputN-1, params), output; the params are this header, then
 * each input's bytes per outer index. */
typedef struct ap_tflite_concat_params {
    int32_t inputs;
    int32_t outer; /* the product of the dimensions before the axis */
} ap_tflite_concat_params_t;

/* SVDF, int8 input and output, weights over time and state both int8 or both int16: inputs
 * (input, weights_feature, weights_time, bias, state, [feature sums,] params), output, then a
 * scratch of batches x (filters + units) int32. The state is a variable tensor the call reads
 * and writes; the feature sums (int8 state only) are arm_vector_sum_s8's of weights_feature. */
typedef struct ap_tflite_svdf_params {
    int32_t rank;
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t multiplier_1; /* input x weights_feature / state scale */
    int32_t shift_1;
    int32_t multiplier_2; /* state x weights_time / output scale */
    int32_t shift_2;
    int32_t batches;
    int32_t input_size;
    int32_t filters;
    int32_t memory_size;
    int32_t state_min;    /* the state type's range */
    int32_t state_max;
} ap_tflite_svdf_params_t;

/* UNIDIRECTIONAL_SEQUENCE_LSTM, int8 input, output and hidden state, int16 cell state, no
 * peepholes, projection or layer normalisation: inputs (input, 4 input weights, 4 recurrent
 * weights, 4 biases -- gates input, forget, cell, output --, hidden state, cell state, row
 * sums, params), output, then a scratch of 2 x batches x hidden int16. The states are variable
 * tensors the call reads and writes. The row sums are 8 x hidden int32: the input layers'
 * (with their biases) of the forget, input, cell and output gates, then the recurrent
 * layers'. One gate's parameters: */
typedef struct ap_tflite_lstm_gate {
    int32_t input_multiplier;  /* input x weights into Q3.12 */
    int32_t input_shift;
    int32_t hidden_multiplier; /* hidden state x recurrent weights into Q3.12 */
    int32_t hidden_shift;
    int32_t activation;        /* 0 sigmoid, 1 tanh */
} ap_tflite_lstm_gate_t;

/* UNIDIRECTIONAL_SEQUENCE_LSTM's parameters (the gates in CMSIS-NN's order). */
typedef struct ap_tflite_lstm_params {
    int32_t time_major;
    int32_t batches;
    int32_t time_steps;
    int32_t input_size;
    int32_t hidden_size;
    int32_t input_offset;      /* -input zero point */
    int32_t forget_to_cell_multiplier;
    int32_t forget_to_cell_shift;
    int32_t input_to_cell_multiplier;
    int32_t input_to_cell_shift;
    int32_t cell_clip;
    int32_t cell_scale_power;
    int32_t output_multiplier; /* into the hidden state */
    int32_t output_shift;
    int32_t output_offset;
    ap_tflite_lstm_gate_t forget_gate;
    ap_tflite_lstm_gate_t input_gate;
    ap_tflite_lstm_gate_t cell_gate;
    ap_tflite_lstm_gate_t output_gate;
} ap_tflite_lstm_params_t;

/* INT_BINARY: ADD, MUL, DIV (int32), MAXIMUM, MINIMUM (int8, int16, int32) of unquantized
 * tensors, TFLM's reference kernels: inputs (a, b, params), output. Five dimensions, outermost
 * first; an input's stride is 0 along a dimension it broadcasts. */
typedef struct ap_tflite_int_binary_params {
    int32_t op;          /* 0 ADD, 1 MUL, 2 DIV, 3 MAXIMUM, 4 MINIMUM */
    int32_t width;       /* bytes per element: 1, 2 or 4 */
    int32_t activation_min;
    int32_t activation_max;
    int32_t extent[5];   /* the output's */
    int32_t a_stride[5]; /* in elements */
    int32_t b_stride[5]; /* in elements */
} ap_tflite_int_binary_params_t;

/* CAST: inputs (input, params), output. Types: 1 int8, 2 int16, 3 int32, 4 uint32, 5 bool
 * (input only), 6 float32 (output only); each element converted as C converts it. */
typedef struct ap_tflite_cast_params {
    int32_t from;
    int32_t to;
    int32_t count;
} ap_tflite_cast_params_t;

/* STRIDED_SLICE: inputs (input, begin, end, strides, params), output. Five dimensions,
 * outermost first, resolved at build time: each dimension's first index, how many indices and
 * the step between them, and the input's extent. */
typedef struct ap_tflite_strided_slice_params {
    int32_t width; /* bytes per element */
    int32_t first[5];
    int32_t count[5];
    int32_t step[5];
    int32_t extent[5];
} ap_tflite_strided_slice_params_t;

/* MEAN, int8 or int16: inputs (input, axes, params), output. Five dimensions, outermost first;
 * the multiplier and shift include 1 / (the reduced elements' count), as TFLM folds it in. */
typedef struct ap_tflite_mean_params {
    int32_t width;      /* 1 or 2 */
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t multiplier;
    int32_t shift;
    int32_t extent[5];  /* the input's */
    int32_t reduced[5]; /* 1 where the mean runs along the dimension */
} ap_tflite_mean_params_t;

/* RELU and RELU6, int8 or int16: inputs (input, params), output. RELU requantizes into the
 * output's scale, RELU6 keeps the input's; both then clamp. */
typedef struct ap_tflite_relu_params {
    int32_t width;      /* 1 or 2 */
    int32_t requantize; /* 1: (x - input zero) x multiplier + output zero */
    int32_t input_zero_point;
    int32_t output_zero_point;
    int32_t multiplier;
    int32_t shift;
    int32_t activation_min;
    int32_t activation_max;
    int32_t count;
} ap_tflite_relu_params_t;

/* TFLM's signal library (its audio front end's custom operators), ported. SignalWindow,
 * int16: inputs (input, weights of one frame, params), output. */
typedef struct ap_tflite_window_params {
    int32_t shift; /* right shift of each product, 0..31 */
    int32_t frame; /* the weights' length */
    int32_t count; /* the input's elements, a multiple of frame */
} ap_tflite_window_params_t;

/* SignalFftAutoScale: inputs (input int16, params), outputs (output int16, bits int32);
 * SignalFilterBankSquareRoot: inputs (input uint64, bits int32, params), output uint32. */
typedef struct ap_tflite_count_params {
    int32_t count;
} ap_tflite_count_params_t;

/* SignalRfft, int16: inputs (input, twiddles, super twiddles, params), output. Each frame of
 * input_length samples, zero-padded to 2 x half, becomes half + 1 complex int16 values (real
 * first) as kissfft's fixed-point real FFT computes them; the params are this header, then the
 * (radix, remaining length) pairs of kissfft's factorization of half. The twiddles are half
 * complex int16, the super twiddles half / 2. */
typedef struct ap_tflite_rfft_params {
    int32_t half;         /* fft_length / 2: the complex FFT's length */
    int32_t input_length; /* samples per frame, at most fft_length */
    int32_t frames;
    int32_t factors;      /* how many (radix, length) pairs follow */
} ap_tflite_rfft_params_t;

/* SignalEnergy: inputs (complex int16 spectrum, params), output uint32; bins start..end-1
 * get their squared magnitude, the output's other elements 0. */
typedef struct ap_tflite_energy_params {
    int32_t start;
    int32_t end;
    int32_t count; /* the output's elements */
} ap_tflite_energy_params_t;

/* SignalFilterBank: inputs (spectrum uint32, weights int16, unweights int16, channel
 * frequency starts, weight starts and widths int16, params), output uint64 per channel. */
typedef struct ap_tflite_filter_bank_params {
    int32_t channels;
    int32_t input_count;  /* the spectrum's elements */
    int32_t weight_count; /* the weights' and the unweights' */
} ap_tflite_filter_bank_params_t;

/* SignalFilterBankSpectralSubtraction, uint32: inputs (input, noise estimate state, params),
 * outputs (output, noise estimate). The state, one uint32 per channel, starts at zero. */
typedef struct ap_tflite_spectral_subtraction_params {
    int32_t channels;
    uint32_t smoothing;                     /* even channels */
    uint32_t one_minus_smoothing;           /* even channels */
    uint32_t alternate_smoothing;           /* odd channels */
    uint32_t alternate_one_minus_smoothing; /* odd channels */
    uint32_t min_signal_remaining;
    int32_t smoothing_bits;                 /* 0..31 */
    int32_t spectral_subtraction_bits;      /* 0..63 */
    int32_t clamping;                       /* 1: the estimate never exceeds the signal */
} ap_tflite_spectral_subtraction_params_t;

/* SignalPCAN: inputs (input uint32, noise estimate uint32, gain table int16, params),
 * output uint32. */
typedef struct ap_tflite_pcan_params {
    int32_t count;
    int32_t snr_shift; /* 0..63 */
    int32_t lut_count; /* the gain table's entries, at least 125 */
} ap_tflite_pcan_params_t;

/* SignalFilterBankLog: inputs (input uint32, params), output int16. */
typedef struct ap_tflite_filter_bank_log_params {
    int32_t count;
    int32_t correction_bits; /* left shift of each input, 0..31 */
    uint32_t output_scale;
} ap_tflite_filter_bank_log_params_t;

#endif /* ARENAPLAN_TFLITE_PARAMS_H */
