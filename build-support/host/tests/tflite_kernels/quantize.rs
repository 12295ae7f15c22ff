//! QUANTIZE from float32 to int8 and int16 (behind it a RESHAPE: a lone QUANTIZE is the
//! identity to the converter), with inputs far outside the range and extreme scales; int16
//! requantized to another scale; every input a tie (half away from zero, as TFLM rounds).

cases! {
    float_to_int16,
    float_to_int8,
    float_to_int8_huge_scale,
    float_to_int8_tiny_scale,
    float_to_int8_ties,
    float_to_int8_zero_point_max,
    int16_requantize,
}
