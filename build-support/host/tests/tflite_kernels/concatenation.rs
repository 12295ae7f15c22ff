//! CONCATENATION: int8 along channels and rows, three inputs, 16x8 (its inputs requantized
//! to the output's scale by a QUANTIZE the converter inserts), int32.

cases! {
    int16,
    int32,
    int8_channels,
    int8_rows,
    int8_three,
}
