//! SOFTMAX, int8: ranks 2 to 4, extreme input scales, a size of 1; an int16 input, which the
//! lowering does not take, refused.

cases! {
    int16: refused "int16 input: the lowering runs arm_softmax_s8 and arm_softmax_s8_s16 only",
    int8,
    int8_huge_scale,
    int8_rank_3,
    int8_rank_4,
    int8_size_1,
    int8_tiny_scale,
}
