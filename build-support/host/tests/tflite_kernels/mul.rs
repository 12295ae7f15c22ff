//! MUL: int8 and 16x8 (CMSIS-NN's elementwise kernels), a fused RELU, extreme scales and
//! zero points, a size of 1, broadcasting in int8 and int32 (TFLM's reference arithmetic).

cases! {
    int16,
    int32_broadcast,
    int8,
    int8_broadcast: refused "CMSIS-NN's kernel takes equal shapes; only TFLM's reference kernel broadcasts int8",
    int8_huge_scale,
    int8_relu,
    int8_size_1,
    int8_tiny_scale,
    int8_zero_point_ends,
}
