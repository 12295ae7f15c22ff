//! ADD: int8 and 16x8 on CMSIS-NN's elementwise kernels, fused RELU and RELU6, extreme and
//! far-apart scales, zero points at the range's ends, a size of 1; broadcasting runs in int32
//! (TFLM's reference arithmetic, INT_BINARY) and is refused in int8 and 16x8, whose CMSIS-NN
//! kernels take equal shapes.

cases! {
    int16,
    int16_broadcast: refused "CMSIS-NN's kernel takes equal shapes; only TFLM's reference kernel broadcasts",
    int16_huge_scale,
    int16_relu,
    int32_broadcast,
    int8,
    int8_broadcast: refused "CMSIS-NN's kernel takes equal shapes; only TFLM's reference kernel broadcasts",
    int8_huge_scale,
    int8_relu,
    int8_relu6,
    int8_scales_apart,
    int8_size_1,
    int8_tiny_scale,
    int8_zero_point_max,
    int8_zero_point_min,
}
