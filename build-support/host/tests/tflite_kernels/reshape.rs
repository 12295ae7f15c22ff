//! RESHAPE of int8, int16 and int32 tensors.

cases! {
    int16,
    int32,
    int8,
}
