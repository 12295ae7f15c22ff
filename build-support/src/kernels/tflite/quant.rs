//! TFLite's quantization arithmetic, as TFLite Micro's kernels compute it when they prepare
//! an operator: multipliers as Q31 fractions and shifts, fused activations as clamps.

/// `x = m × 2^e` with `0.5 ≤ |m| < 1` (C's `frexp`), for finite `x`; `(0, 0)` for zero.
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7FF) as i32;
    if exponent == 0 {
        // Subnormal: scale into the normal range first.
        let (m, e) = frexp(x * f64::from_bits(0x43F0_0000_0000_0000)); // 2^64
        return (m, e - 64);
    }
    let m = f64::from_bits((bits & !(0x7FF << 52)) | (1022 << 52));
    (m, exponent - 1022)
}

/// A real multiplier as TFLite's `QuantizeMultiplier` makes it: a Q31 fraction and a power of
/// two, the fraction rounded half away from zero.
pub(super) fn quantize_multiplier(real: f64) -> (i32, i32) {
    if real == 0.0 {
        return (0, 0);
    }
    let (q, mut shift) = frexp(real);
    let mut fixed = (q * (1u64 << 31) as f64).round() as i64;
    if fixed == 1 << 31 {
        fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        shift = 0;
        fixed = 0;
    }
    (fixed as i32, shift)
}

/// [`quantize_multiplier`] for a kernel: `None` for a scale no kernel can take — negative,
/// not finite, or a power of two beyond what CMSIS-NN's requantization shifts (−31 to 30),
/// where its arithmetic is undefined.
pub(super) fn multiplier(real: f64) -> Option<(i32, i32)> {
    if !real.is_finite() || real < 0.0 {
        return None;
    }
    let (m, shift) = quantize_multiplier(real);
    (-31..=30).contains(&shift).then_some((m, shift))
}

/// TFLM's `PopulateConvolutionQuantizationParams`: each output channel's multiplier, then each
/// one's shift, in double, from one filter scale or one per channel.
pub(super) fn per_channel(
    scales: &[f32],
    in_scale: f32,
    out_scale: f32,
    channels: usize,
) -> Option<Vec<i32>> {
    let pairs: Vec<(i32, i32)> = (0..channels)
        .map(|c| {
            let filter_scale = scales[if scales.len() == 1 { 0 } else { c }];
            multiplier(f64::from(in_scale) * f64::from(filter_scale) / f64::from(out_scale))
        })
        .collect::<Option<_>>()?;
    Some(
        pairs
            .iter()
            .map(|&(m, _)| m)
            .chain(pairs.iter().map(|&(_, s)| s))
            .collect(),
    )
}

/// Whether a type `bytes` wide can hold zero point `zero`.
pub(super) fn fits(zero: i64, bytes: u32) -> bool {
    let bits = 8 * bytes - 1;
    (-(1i64 << bits)..(1i64 << bits)).contains(&zero)
}

/// TFLite's fused activation on an int8 output of scale `scale` and zero point `zero`
/// (`CalculateActivationRangeQuantized`): NONE, RELU, RELU_N1_TO_1, RELU6; `None` for the
/// others.
pub(super) fn activation_range(activation: i8, scale: f32, zero: i32) -> Option<(i32, i32)> {
    activation_range_in(
        activation,
        scale,
        zero,
        (i32::from(i8::MIN), i32::from(i8::MAX)),
    )
}

/// [`activation_range`] on an output of type range `(qmin, qmax)` (int16's for 16x8 kernels).
pub(super) fn activation_range_in(
    activation: i8,
    scale: f32,
    zero: i32,
    (qmin, qmax): (i32, i32),
) -> Option<(i32, i32)> {
    // In float, as TFLM divides, rounded half away from zero.
    let quantize = |f: f32| zero.saturating_add((f / scale).round() as i32);
    match activation {
        0 => Some((qmin, qmax)),
        1 => Some((qmin.max(quantize(0.0)), qmax)),
        2 => Some((qmin.max(quantize(-1.0)), qmax.min(quantize(1.0)))),
        3 => Some((qmin.max(quantize(0.0)), qmax.min(quantize(6.0)))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multipliers_are_q31_fractions_and_shifts_as_tflite_makes_them() {
        assert_eq!(quantize_multiplier(0.5), (1 << 30, 0));
        assert_eq!(quantize_multiplier(1.0), (1 << 30, 1));
        assert_eq!(quantize_multiplier(0.25), (1 << 30, -1));
        assert_eq!(quantize_multiplier(0.0), (0, 0));
        // A fraction that rounds up to 1 becomes 0.5 one power higher.
        assert_eq!(quantize_multiplier(0.999_999_999_9), (1 << 30, 1));
        // Below 2^-32 the multiplier is 0.
        assert_eq!(quantize_multiplier(1e-12), (0, 0));
        let (m, s) = quantize_multiplier(0.003_921_568_627);
        assert!(
            (f64::from(m) / (1u64 << 31) as f64 * 2f64.powi(s) - 0.003_921_568_627).abs() < 1e-12
        );
    }

    #[test]
    fn kernels_get_only_multipliers_their_shifts_can_apply() {
        assert_eq!(multiplier(0.5), Some((1 << 30, 0)));
        assert_eq!(multiplier(0.0), Some((0, 0)));
        // Negative, not finite, or beyond a 30-bit left shift: refused, not wrapped.
        assert_eq!(multiplier(-0.5), None);
        assert_eq!(multiplier(f64::NAN), None);
        assert_eq!(multiplier(f64::INFINITY), None);
        assert_eq!(multiplier(2f64.powi(40)), None);
        assert!(multiplier(2f64.powi(29)).is_some());
    }

    #[test]
    fn frexp_splits_normal_and_subnormal_numbers() {
        assert_eq!(frexp(8.0), (0.5, 4));
        assert_eq!(frexp(0.75), (0.75, 0));
        let tiny = f64::from_bits(1); // the smallest subnormal, 2^-1074
        assert_eq!(frexp(tiny), (0.5, -1073));
    }

    #[test]
    fn fused_activations_clamp_in_the_outputs_quantization() {
        assert_eq!(activation_range(0, 0.1, -5), Some((-128, 127)));
        assert_eq!(activation_range(1, 0.1, -5), Some((-5, 127)));
        assert_eq!(activation_range(3, 0.1, -5), Some((-5, 55)));
        assert_eq!(activation_range(2, 0.1, -5), Some((-15, 5)));
        assert_eq!(activation_range(4, 0.1, -5), None); // TANH is an operator of its own
    }
}
