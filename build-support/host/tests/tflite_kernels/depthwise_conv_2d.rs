//! DEPTHWISE_CONV_2D: SAME and VALID padding, strides, dilation, depth multipliers 1 to 3, 4
//! and 8 channels, fused RELU and RELU6, an extreme scale and zero point, a size of 1, 16x8.

cases! {
    int16_multiplier_2_relu,
    int16_same,
    int8_3x3_channels_8,
    int8_channels_4_zero_point_min,
    int8_dilation_2,
    int8_dilation_2_multiplier_2,
    int8_huge_scale,
    int8_multiplier_2,
    int8_relu6_multiplier_3,
    int8_same,
    int8_size_1,
    int8_valid_stride_2,
}
