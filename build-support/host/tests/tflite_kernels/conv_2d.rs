//! CONV_2D: SAME and VALID padding, strides, dilation, 1x1 filters, fused RELU and RELU6,
//! extreme scales and zero points, a size of 1, 16x8.

cases! {
    int16_same,
    int16_valid_stride_2_relu,
    int8_1x1_relu,
    int8_dilation_2,
    int8_huge_scale,
    int8_relu6,
    int8_same,
    int8_same_stride_2,
    int8_size_1,
    int8_valid_stride_2,
    int8_zero_point_min,
}
