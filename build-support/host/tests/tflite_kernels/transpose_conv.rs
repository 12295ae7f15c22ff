//! TRANSPOSE_CONV, int8: SAME and VALID padding, strides 1 to 3, an extreme scale, a zero
//! point at the range's end, a size of 1; 16x8, which the runtime has no kernel for, refused.

cases! {
    int16_same_stride_2: refused "16x8: the runtime's TRANSPOSE_CONV kernel is int8 only",
    int8_huge_scale,
    int8_same_stride_2,
    int8_size_1,
    int8_valid_stride_1,
    int8_valid_stride_2,
    int8_zero_point_min_stride_3,
}
