//! CONCATENATION: int8 along channels, rows and batches, three inputs, 16x8 (one input
//! requantized to the output's scale by a QUANTIZE the converter inserts), int32.

cases! {
    int16,
    int32,
    int8_batch,
    int8_channels,
    int8_rows,
    int8_three,
}
