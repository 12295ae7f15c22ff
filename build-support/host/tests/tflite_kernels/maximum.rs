//! MAXIMUM of int8, 16x8 and int32 tensors, same shape, broadcast, against a scalar, a size
//! of 1.

cases! {
    int16,
    int32_broadcast,
    int8,
    int8_broadcast,
    int8_scalar,
    int8_size_1,
}
