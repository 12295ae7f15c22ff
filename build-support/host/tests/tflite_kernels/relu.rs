//! RELU of int8 and int16 tensors: extreme scales, a zero point at the range's end, a size
//! of 1.

cases! {
    int16,
    int16_tiny_scale,
    int8,
    int8_huge_scale,
    int8_size_1,
    int8_tiny_scale,
    int8_zero_point_max,
}
