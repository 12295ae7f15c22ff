//! RELU of int8 and int16 tensors: extreme scales and zero points, a size of 1.

cases! {
    int16,
    int8,
    int8_size_1,
    int8_tiny_scale,
    int8_zero_point_max,
}
