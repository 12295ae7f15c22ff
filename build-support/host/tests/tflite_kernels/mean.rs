//! MEAN of int8 and int16 tensors: over the spatial axes, one axis, all of them, to a size
//! of 1, an extreme scale.

cases! {
    int16,
    int8_all,
    int8_huge_scale,
    int8_one_axis,
    int8_spatial,
    int8_to_size_1,
}
