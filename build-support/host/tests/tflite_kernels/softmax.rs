//! SOFTMAX: int8 in rank 2 and 4, extreme input scales, a size of 1, 16x8.

cases! {
    int16: refused "int16 input: the lowering runs arm_softmax_s8 and arm_softmax_s8_s16 only",
    int8,
    int8_huge_scale,
    int8_rank_4,
    int8_size_1,
    int8_tiny_scale,
}
