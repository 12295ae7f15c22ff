//! AVERAGE_POOL_2D: VALID and SAME padding, strides, fused RELU and RELU6, 8 channels, an
//! extreme scale, a zero point at the range's end, a size of 1, 16x8.

cases! {
    int16_same,
    int16_valid_relu6,
    int8_huge_scale_channels_8,
    int8_relu,
    int8_same_3x3_stride_2,
    int8_size_1,
    int8_valid_2x2,
    int8_zero_point_max,
}
