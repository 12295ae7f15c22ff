//! STRIDED_SLICE: steps, negative steps, shrunk axes, in int8, int16 and int32.

cases! {
    int16,
    int32,
    int8_reverse,
    int8_shrink,
    int8_steps,
}
