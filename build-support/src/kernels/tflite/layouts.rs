//! The parameter layouts of the runtime's TFLite kernels: the one definition of each constant
//! of parameters a kernel reads last among its inputs (int32 little-endian, field by field).
//! The lowerings fill these structs by field name; `arenaplan/tflite_params.h` is rendered
//! from them (`c_files.rs`; a test compares the committed header byte for byte). A doc
//! comment here is the header's comment: keep them about the C side (inputs, what follows
//! the fixed fields).
//!
//! Append a field only with its kernel: the order is the ABI between the build and the C.

use super::layout::layouts;

layouts! {
    /// FULLY_CONNECTED, int8: inputs (input, filter, [bias int32,] row sums, params), output. The
    /// row sums are output_depth int32, arm_vector_sum_s8's of the constant weights and bias, which
    /// CMSIS-NN's Helium kernel reads as its scratch. FULLY_CONNECTED_PER_CHANNEL and its _S16
    /// read it too (multiplier and shift unused), then output_depth multipliers, then
    /// output_depth shifts.
    FcParams = "ap_tflite_fc_params" {
        /// -input zero point
        input_offset: i32,
        /// -filter zero point (0 for int8)
        filter_offset: i32,
        /// output zero point
        output_offset: i32,
        /// input scale x filter scale / output scale, as Q31
        multiplier: i32,
        /// and its power of two
        shift: i32,
        activation_min: i32,
        activation_max: i32,
        /// the filter's rows
        output_depth: i32,
    }

    /// CONV_2D and DEPTHWISE_CONV_2D (and their _S16), int8: inputs (input, filter, bias int32,
    /// params), output; the params are this header, then output_c multipliers, then output_c
    /// shifts (per channel). The filter is [output_c, filter_h, filter_w, input_c] for CONV_2D,
    /// [1, filter_h, filter_w, output_c] for DEPTHWISE_CONV_2D. A call's last argument, when
    /// present, is the scratch its CMSIS-NN kernel asks for (arm_*_get_buffer_size), planned by
    /// the build. TRANSPOSE_CONV reads it too (ch_mult and dilations 1).
    ConvParams = "ap_tflite_conv_params" {
        /// -input zero point
        input_offset: i32,
        /// output zero point
        output_offset: i32,
        /// DEPTHWISE_CONV_2D: output channels per input channel; CONV_2D: 1
        ch_mult: i32,
        stride_w: i32,
        stride_h: i32,
        /// before the first column
        pad_w: i32,
        /// before the first row
        pad_h: i32,
        dilation_w: i32,
        dilation_h: i32,
        activation_min: i32,
        activation_max: i32,
        batches: i32,
        input_h: i32,
        input_w: i32,
        input_c: i32,
        filter_h: i32,
        filter_w: i32,
        output_h: i32,
        output_w: i32,
        output_c: i32,
    }

    /// AVERAGE_POOL_2D and MAX_POOL_2D (and their _S16), int8 (output quantized as the input):
    /// inputs (input, params), output, then the kernel's scratch when it needs one
    /// (AVERAGE_POOL_2D's DSP build).
    PoolParams = "ap_tflite_pool_params" {
        stride_w: i32,
        stride_h: i32,
        pad_w: i32,
        pad_h: i32,
        activation_min: i32,
        activation_max: i32,
        batches: i32,
        input_h: i32,
        input_w: i32,
        channels: i32,
        filter_h: i32,
        filter_w: i32,
        output_h: i32,
        output_w: i32,
    }

    /// ADD (and ADD_S16), int8, inputs of the output's shape: inputs (input1, input2, params),
    /// output.
    AddParams = "ap_tflite_add_params" {
        /// -zero point
        input1_offset: i32,
        /// scale / (2 x max)
        input1_multiplier: i32,
        input1_shift: i32,
        input2_offset: i32,
        input2_multiplier: i32,
        input2_shift: i32,
        /// 20 (int8), 15 (int16)
        left_shift: i32,
        output_offset: i32,
        output_multiplier: i32,
        output_shift: i32,
        activation_min: i32,
        activation_max: i32,
    }

    /// SOFTMAX, int8 in, int8 out (scale 1/256, zero point -128) or int16 out (scale 1/65536, zero
    /// point -32768; the output is twice the input's bytes): inputs (input, params), output, over
    /// rows of row_size.
    SoftmaxParams = "ap_tflite_softmax_params" {
        /// beta x input scale, scaled to 5 integer bits, as Q31
        multiplier: i32,
        /// and its left shift
        shift: i32,
        /// differences below it count as zero
        diff_min: i32,
        row_size: i32,
    }

    /// MUL (and MUL_S16), int8, inputs of the output's shape: inputs (input1, input2, params),
    /// output.
    MulParams = "ap_tflite_mul_params" {
        /// -zero point
        input1_offset: i32,
        /// -zero point
        input2_offset: i32,
        /// output zero point
        output_offset: i32,
        /// input1 scale x input2 scale / output scale
        multiplier: i32,
        shift: i32,
        activation_min: i32,
        activation_max: i32,
    }

    /// QUANTIZE between int8, int16 and int32 (TFLM's Requantize), or from float32 (AffineQuantize:
    /// input_float 1, multiplier the output scale's float bits): inputs (input, params), output.
    QuantizeParams = "ap_tflite_quantize_params" {
        input_zero_point: i32,
        output_zero_point: i32,
        /// input scale / output scale
        multiplier: i32,
        shift: i32,
        /// bytes per element: 1, 2 or 4
        input_width: i32,
        output_width: i32,
        input_float: i32,
    }

    /// DEQUANTIZE int8 or int16 to float32: inputs (input, params), output.
    DequantizeParams = "ap_tflite_dequantize_params" {
        zero_point: i32,
        /// the float scale's bits
        scale_bits: i32,
        input_width: i32,
    }

    /// PAD and PADV2 (TFLM's Pad over up to five dimensions, leading ones 1): inputs (input,
    /// paddings, [value,] params), output.
    PadParams = "ap_tflite_pad_params" {
        /// bytes per element
        width: i32,
        /// padded with: an int8 output's zero point, PADV2's value, or 0
        value: i32,
        /// per dimension: input extent, before, after
        dims: [[i32; 3]; 5],
    }

    /// CONCATENATION: inputs (input0..inputN-1, params), output; the params are this header, then
    /// each input's bytes per outer index.
    ConcatParams = "ap_tflite_concat_params" {
        inputs: i32,
        /// the product of the dimensions before the axis
        outer: i32,
    }

    /// SVDF, int8 input and output, weights over time and state both int8 or both int16: inputs
    /// (input, weights_feature, weights_time, bias, state, [feature sums,] params), output, then a
    /// scratch of batches x (filters + units) int32. The state is a variable tensor the call reads
    /// and writes; the feature sums (int8 state only) are arm_vector_sum_s8's of weights_feature.
    SvdfParams = "ap_tflite_svdf_params" {
        rank: i32,
        input_zero_point: i32,
        output_zero_point: i32,
        /// input x weights_feature / state scale
        multiplier_1: i32,
        shift_1: i32,
        /// state x weights_time / output scale
        multiplier_2: i32,
        shift_2: i32,
        batches: i32,
        input_size: i32,
        filters: i32,
        memory_size: i32,
        /// the state type's range
        state_min: i32,
        state_max: i32,
    }

    /// UNIDIRECTIONAL_SEQUENCE_LSTM, int8 input, output and hidden state, int16 cell state, no
    /// peepholes, projection or layer normalisation: inputs (input, 4 input weights, 4 recurrent
    /// weights, 4 biases -- gates input, forget, cell, output --, hidden state, cell state, row
    /// sums, params), output, then a scratch of 2 x batches x hidden int16. The states are variable
    /// tensors the call reads and writes. The row sums are 8 x hidden int32: the input layers'
    /// (with their biases) of the forget, input, cell and output gates, then the recurrent
    /// layers'. One gate's parameters:
    LstmGate = "ap_tflite_lstm_gate" {
        /// input x weights into Q3.12
        input_multiplier: i32,
        input_shift: i32,
        /// hidden state x recurrent weights into Q3.12
        hidden_multiplier: i32,
        hidden_shift: i32,
        /// 0 sigmoid, 1 tanh
        activation: i32,
    }

    /// UNIDIRECTIONAL_SEQUENCE_LSTM's parameters (the gates in CMSIS-NN's order).
    LstmParams = "ap_tflite_lstm_params" {
        time_major: i32,
        batches: i32,
        time_steps: i32,
        input_size: i32,
        hidden_size: i32,
        /// -input zero point
        input_offset: i32,
        forget_to_cell_multiplier: i32,
        forget_to_cell_shift: i32,
        input_to_cell_multiplier: i32,
        input_to_cell_shift: i32,
        cell_clip: i32,
        cell_scale_power: i32,
        /// into the hidden state
        output_multiplier: i32,
        output_shift: i32,
        output_offset: i32,
        forget_gate: LstmGate,
        input_gate: LstmGate,
        cell_gate: LstmGate,
        output_gate: LstmGate,
    }

    /// INT_BINARY: ADD, MUL, DIV (int32), MAXIMUM, MINIMUM (int8, int16, int32) of unquantized
    /// tensors, TFLM's reference kernels: inputs (a, b, params), output. Five dimensions, outermost
    /// first; an input's stride is 0 along a dimension it broadcasts.
    IntBinaryParams = "ap_tflite_int_binary_params" {
        /// 0 ADD, 1 MUL, 2 DIV, 3 MAXIMUM, 4 MINIMUM
        op: i32,
        /// bytes per element: 1, 2 or 4
        width: i32,
        activation_min: i32,
        activation_max: i32,
        /// the output's
        extent: [i32; 5],
        /// in elements
        a_stride: [i32; 5],
        /// in elements
        b_stride: [i32; 5],
    }

    /// CAST: inputs (input, params), output. Types: 1 int8, 2 int16, 3 int32, 4 uint32, 5 bool
    /// (input only), 6 float32 (output only); each element converted as C converts it.
    CastParams = "ap_tflite_cast_params" {
        from: i32,
        to: i32,
        count: i32,
    }

    /// STRIDED_SLICE: inputs (input, begin, end, strides, params), output. Five dimensions,
    /// outermost first, resolved at build time: each dimension's first index, how many indices and
    /// the step between them, and the input's extent.
    StridedSliceParams = "ap_tflite_strided_slice_params" {
        /// bytes per element
        width: i32,
        first: [i32; 5],
        count: [i32; 5],
        step: [i32; 5],
        extent: [i32; 5],
    }

    /// MEAN, int8 or int16: inputs (input, axes, params), output. Five dimensions, outermost first;
    /// the multiplier and shift include 1 / (the reduced elements' count), as TFLM folds it in.
    MeanParams = "ap_tflite_mean_params" {
        /// 1 or 2
        width: i32,
        input_zero_point: i32,
        output_zero_point: i32,
        multiplier: i32,
        shift: i32,
        /// the input's
        extent: [i32; 5],
        /// 1 where the mean runs along the dimension
        reduced: [i32; 5],
    }

    /// RELU and RELU6, int8 or int16: inputs (input, params), output. RELU requantizes into the
    /// output's scale, RELU6 keeps the input's; both then clamp.
    ReluParams = "ap_tflite_relu_params" {
        /// 1 or 2
        width: i32,
        /// 1: (x - input zero) x multiplier + output zero
        requantize: i32,
        input_zero_point: i32,
        output_zero_point: i32,
        multiplier: i32,
        shift: i32,
        activation_min: i32,
        activation_max: i32,
        count: i32,
    }

    /// TFLM's signal library (its audio front end's custom operators), ported. SignalWindow,
    /// int16: inputs (input, weights of one frame, params), output.
    WindowParams = "ap_tflite_window_params" {
        /// right shift of each product, 0..31
        shift: i32,
        /// the weights' length
        frame: i32,
        /// the input's elements, a multiple of frame
        count: i32,
    }

    /// SignalFftAutoScale: inputs (input int16, params), outputs (output int16, bits int32);
    /// SignalFilterBankSquareRoot: inputs (input uint64, bits int32, params), output uint32.
    CountParams = "ap_tflite_count_params" {
        count: i32,
    }

    /// SignalRfft, int16: inputs (input, twiddles, super twiddles, params), output. Each frame of
    /// input_length samples, zero-padded to 2 x half, becomes half + 1 complex int16 values (real
    /// first) as kissfft's fixed-point real FFT computes them; the params are this header, then the
    /// (radix, remaining length) pairs of kissfft's factorization of half. The twiddles are half
    /// complex int16, the super twiddles half / 2.
    RfftParams = "ap_tflite_rfft_params" {
        /// fft_length / 2: the complex FFT's length
        half: i32,
        /// samples per frame, at most fft_length
        input_length: i32,
        frames: i32,
        /// how many (radix, length) pairs follow
        factors: i32,
    }

    /// SignalEnergy: inputs (complex int16 spectrum, params), output uint32; bins start..end-1
    /// get their squared magnitude, the output's other elements 0.
    EnergyParams = "ap_tflite_energy_params" {
        start: i32,
        end: i32,
        /// the output's elements
        count: i32,
    }

    /// SignalFilterBank: inputs (spectrum uint32, weights int16, unweights int16, channel
    /// frequency starts, weight starts and widths int16, params), output uint64 per channel.
    FilterBankParams = "ap_tflite_filter_bank_params" {
        channels: i32,
        /// the spectrum's elements
        input_count: i32,
        /// the weights' and the unweights'
        weight_count: i32,
    }

    /// SignalFilterBankSpectralSubtraction, uint32: inputs (input, noise estimate state, params),
    /// outputs (output, noise estimate). The state, one uint32 per channel, starts at zero.
    SpectralSubtractionParams = "ap_tflite_spectral_subtraction_params" {
        channels: i32,
        /// even channels
        smoothing: u32,
        /// even channels
        one_minus_smoothing: u32,
        /// odd channels
        alternate_smoothing: u32,
        /// odd channels
        alternate_one_minus_smoothing: u32,
        min_signal_remaining: u32,
        /// 0..31
        smoothing_bits: i32,
        /// 0..63
        spectral_subtraction_bits: i32,
        /// 1: the estimate never exceeds the signal
        clamping: i32,
    }

    /// SignalPCAN: inputs (input uint32, noise estimate uint32, gain table int16, params),
    /// output uint32.
    PcanParams = "ap_tflite_pcan_params" {
        count: i32,
        /// 0..63
        snr_shift: i32,
        /// the gain table's entries, at least 125
        lut_count: i32,
    }

    /// SignalFilterBankLog: inputs (input uint32, params), output int16.
    FilterBankLogParams = "ap_tflite_filter_bank_log_params" {
        count: i32,
        /// left shift of each input, 0..31
        correction_bits: i32,
        output_scale: u32,
    }
}
