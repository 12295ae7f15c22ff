//! DIV of int32 tensors (TFLM's reference arithmetic), same shape and broadcast; the
//! divisors are never 0 or -1, on which TFLM's interpreter traps.

cases! {
    int32,
    int32_broadcast,
}
