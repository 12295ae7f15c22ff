//! TRANSPOSE_CONV (int8): SAME and VALID padding, strides 1 and 2, an extreme scale, a size
//! of 1.

cases! {
    int8_huge_scale,
    int8_same_stride_2,
    int8_size_1,
    int8_valid_stride_1,
    int8_valid_stride_2,
}
