//! DEQUANTIZE to float32 from int8 and int16, behind a RESHAPE (a lone DEQUANTIZE is the
//! identity to the converter): an extreme scale, a zero point at the range's end.

cases! {
    int16_to_float,
    int8_to_float,
    int8_to_float_huge_scale,
    int8_to_float_zero_point_min,
}
