//! CAST: between the integer types, from bool and uint32, to float32.

cases! {
    bool_to_int32,
    int16_to_int8,
    int32_to_float32,
    int32_to_int16,
    int8_to_float32,
    int8_to_int32,
    uint32_to_int32,
}
