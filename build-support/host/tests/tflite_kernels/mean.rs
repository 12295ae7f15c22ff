//! MEAN of int8 and int16 tensors: over the spatial axes, one axis, all of them, to a size
//! of 1, extreme scales and a zero point at the range's end.

cases! {
    int16,
    int16_one_axis,
    int8_all,
    int8_huge_scale,
    int8_one_axis,
    int8_spatial,
    int8_tiny_scale_zero_point_min,
    int8_to_size_1,
}
