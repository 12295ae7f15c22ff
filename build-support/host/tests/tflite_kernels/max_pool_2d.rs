//! MAX_POOL_2D: VALID and SAME padding, strides, a fused RELU6, a size of 1, 16x8.

cases! {
    int16_same,
    int8_relu6,
    int8_same_3x3_stride_2,
    int8_size_1,
    int8_valid_2x2,
}
