//! PAD and PADV2: int8 (padding with the zero point, or PADV2's value), int16, int32.

cases! {
    int16,
    int32,
    int8,
    int8_padv2,
    int8_zero_point_min,
}
