//! RELU6 of int8 and int16 tensors: extreme scales, a zero point at the range's end.

cases! {
    int16,
    int8,
    int8_huge_scale,
    int8_tiny_scale,
    int8_zero_point_min,
}
