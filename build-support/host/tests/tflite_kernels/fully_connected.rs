//! FULLY_CONNECTED, per-tensor and per-channel: int8 with and without bias, batches, 40
//! inputs, fused RELU and RELU6, extreme scales and zero points, a size of 1, 16x8.

cases! {
    int16,
    int16_batch_2_relu,
    int16_huge_scale,
    int16_no_bias,
    int8,
    int8_batch_3_relu,
    int8_huge_scale,
    int8_no_bias,
    int8_relu6,
    int8_size_1,
    int8_tiny_scale,
    int8_wide,
    int8_zero_point_max,
}
