//! Per-tensor affine quantization, as `quantized_decomposed`'s operators define it:
//! `q = clamp(round_half_even(x / scale) + zero_point, qmin, qmax)` and
//! `x = (q - zero_point) * scale`, the division by a float32 inverse scale and the product in
//! double.

use arenaplan::{Call, Error, Result};

use crate::tensor::{input, int, output_tensor, scalar, DType};

/// `quantized_decomposed::quantize_per_tensor.out(Tensor input, float scale, int zero_point,
/// int quant_min, int quant_max, ScalarType dtype, *, Tensor(a!) out)`.
pub fn quantize_per_tensor(call: &mut Call<'_>) -> Result {
    let x = input(call, 0)?;
    let scale = scalar(call, 1)?.f64();
    let zero_point = int(call, 2)?;
    let (qmin, qmax) = (int(call, 3)?, int(call, 4)?);
    let mut out = output_tensor(call)?;
    if out.numel() != x.numel() || out.dtype.is_float() || qmin > qmax {
        return Err(Error::BadArguments);
    }
    let inverse = 1.0f32 / scale as f32;
    for i in 0..x.numel() {
        let q = (round_half_even(x.f32(i) * inverse) as i64).saturating_add(zero_point);
        out.set_i64(i, q.clamp(qmin, qmax));
    }
    Ok(())
}

/// `quantized_decomposed::dequantize_per_tensor.out(Tensor input, float scale, int
/// zero_point, int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype,
/// Tensor(a!) out)`.
pub fn dequantize_per_tensor(call: &mut Call<'_>) -> Result {
    let q = input(call, 0)?;
    let scale = scalar(call, 1)?.f64();
    let zero_point = int(call, 2)?;
    let mut out = output_tensor(call)?;
    if out.numel() != q.numel() || !matches!(out.dtype, DType::F32 | DType::F64) {
        return Err(Error::BadArguments);
    }
    for i in 0..q.numel() {
        // In double, then rounded once to the output, as the operator's reference computes.
        out.set_f64(i, q.i64(i).wrapping_sub(zero_point) as f64 * scale);
    }
    Ok(())
}

/// `x` rounded to the nearest integer, a tie to the even one (C's `nearbyint` in the default
/// rounding mode); `core` has no float rounding without `std`.
fn round_half_even(x: f32) -> f32 {
    if x.is_nan() || x.abs() >= 8_388_608.0 {
        return x; // 2^23 and beyond are integers already (and NaN stays NaN)
    }
    let whole = x as i32 as f32; // toward zero, exact below 2^23
    let rest = x - whole;
    let away = if x < 0.0 { -1.0 } else { 1.0 };
    let half = rest.abs();
    if half > 0.5 || (half == 0.5 && (whole as i32) % 2 != 0) {
        whole + away
    } else {
        whole
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ties_go_to_even() {
        let cases = [
            (0.5, 0.0),
            (1.5, 2.0),
            (2.5, 2.0),
            (-0.5, 0.0),
            (-1.5, -2.0),
            (2.4, 2.0),
            (-2.6, -3.0),
        ];
        for (x, want) in cases {
            assert_eq!(super::round_half_even(x), want, "{x}");
        }
    }
}
