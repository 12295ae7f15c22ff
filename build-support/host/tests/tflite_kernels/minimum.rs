//! MINIMUM of int8, 16x8 and int32 tensors, same shape and broadcast, a zero point at the
//! range's end, a size of 1.

cases! {
    int16,
    int16_same_shape,
    int32_broadcast,
    int8,
    int8_broadcast,
    int8_size_1,
    int8_zero_point_min,
}
