//! CONV_2D: SAME and VALID padding, strides, dilation, 1x1 and 1xN filters, 8 channels, fused
//! RELU and RELU6, extreme scales and zero points, tiny weights, a size of 1, 16x8.

cases! {
    int16_huge_scale,
    int16_same,
    int16_valid_stride_2_relu,
    int8_1_x_n,
    int8_1x1_relu,
    int8_1x1_stride_2,
    int8_channels_8,
    int8_dilation_2,
    int8_huge_scale,
    int8_relu6,
    int8_same,
    int8_same_stride_2,
    int8_size_1,
    int8_tiny_weights,
    int8_valid_stride_2,
    int8_zero_point_min,
}
