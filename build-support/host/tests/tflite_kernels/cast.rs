//! CAST between the integer types (narrowing wraps), from bool and uint32, to uint32 and
//! float32.

cases! {
    bool_to_float32,
    bool_to_int32,
    int16_to_int8,
    int32_to_float32,
    int32_to_int16,
    int32_to_int8,
    int32_to_uint32,
    int8_to_float32,
    int8_to_int16,
    int8_to_int32,
    uint32_to_int32,
}
