//! STRIDED_SLICE: steps, negative steps, begin and end masks, shrunk axes, in int8, int16
//! and int32.

cases! {
    int16,
    int32,
    int8_masks,
    int8_reverse,
    int8_shrink,
    int8_steps,
}
