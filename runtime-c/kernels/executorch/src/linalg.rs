//! Matrix products: `mm`, `addmm` (what `nn.Linear` becomes) and `linear`. Each output element
//! is a dot product summed in order of the inner index, in the output's precision, as
//! ExecuTorch's portable kernels sum.

use arenaplan::{Call, Error, Result};

use crate::tensor::{
    broadcast_index, broadcasts, input, optional_input, output_tensor, scalar, DType, Scalar,
    Tensor, TensorMut,
};

/// `out[i][j] = sum_k a[i][k] * b(k, j)`; `b_transposed` reads `b` as `[p][n]`.
fn matmul(
    a: &Tensor<'_>,
    b: &Tensor<'_>,
    b_transposed: bool,
    out: &mut TensorMut<'_, '_>,
) -> Result {
    let (&[m, n], &[r, c]) = (a.dims, b.dims) else {
        return Err(Error::BadArguments);
    };
    let (m, n) = (m as usize, n as usize);
    let (bn, p) = if b_transposed {
        (c as usize, r as usize)
    } else {
        (r as usize, c as usize)
    };
    if bn != n || out.dims != [m as u32, p as u32] {
        return Err(Error::BadArguments);
    }
    for i in 0..m {
        for j in 0..p {
            let b_at = |k: usize| if b_transposed { j * n + k } else { k * p + j };
            match out.dtype {
                DType::F32 => {
                    let mut sum = 0f32;
                    for k in 0..n {
                        sum += a.f32(i * n + k) * b.f32(b_at(k));
                    }
                    out.set_f32(i * p + j, sum);
                }
                DType::F64 => {
                    let mut sum = 0f64;
                    for k in 0..n {
                        sum += a.f64(i * n + k) * b.f64(b_at(k));
                    }
                    out.set_f64(i * p + j, sum);
                }
                _ => {
                    let mut sum = 0i64;
                    for k in 0..n {
                        sum = sum.wrapping_add(a.i64(i * n + k).wrapping_mul(b.i64(b_at(k))));
                    }
                    out.set_i64(i * p + j, sum);
                }
            }
        }
    }
    Ok(())
}

/// `out = alpha * out + beta * bias` (bias broadcast), after the product; with both 1, a sum.
fn add_bias(out: &mut TensorMut<'_, '_>, bias: &Tensor<'_>, beta: Scalar, alpha: Scalar) -> Result {
    let dims = out.dims;
    if !broadcasts(dims, bias.dims) {
        return Err(Error::BadArguments);
    }
    for i in 0..out.numel() {
        let at = broadcast_index(dims, bias.dims, i);
        match out.dtype {
            DType::F32 => {
                let product =
                    f32::from_le_bytes(out.data[4 * i..4 * i + 4].try_into().unwrap_or([0; 4]));
                let v = if alpha.f64() == 1.0 && beta.f64() == 1.0 {
                    product + bias.f32(at)
                } else {
                    product * alpha.f64() as f32 + bias.f32(at) * beta.f64() as f32
                };
                out.set_f32(i, v);
            }
            DType::F64 => {
                let product =
                    f64::from_le_bytes(out.data[8 * i..8 * i + 8].try_into().unwrap_or([0; 8]));
                out.set_f64(i, product * alpha.f64() + bias.f64(at) * beta.f64());
            }
            _ => return Err(Error::BadArguments),
        }
    }
    Ok(())
}

/// `aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)`.
pub fn mm(call: &mut Call<'_>) -> Result {
    let (a, b) = (input(call, 0)?, input(call, 1)?);
    let mut out = output_tensor(call)?;
    matmul(&a, &b, false, &mut out)
}

/// `aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta, Scalar alpha,
/// Tensor(a!) out)`: `beta * self + alpha * (mat1 @ mat2)`.
pub fn addmm(call: &mut Call<'_>) -> Result {
    let (bias, a, b) = (input(call, 0)?, input(call, 1)?, input(call, 2)?);
    let beta = if call.input_count() > 3 {
        scalar(call, 3)?
    } else {
        Scalar::Int(1)
    };
    let alpha = if call.input_count() > 4 {
        scalar(call, 4)?
    } else {
        Scalar::Int(1)
    };
    let mut out = output_tensor(call)?;
    matmul(&a, &b, false, &mut out)?;
    add_bias(&mut out, &bias, beta, alpha)
}

/// `aten::linear.out(Tensor input, Tensor weight, Tensor? bias, *, Tensor(a!) out)`:
/// `input @ weight.T + bias`, over a 2-D input.
pub fn linear(call: &mut Call<'_>) -> Result {
    let (a, w) = (input(call, 0)?, input(call, 1)?);
    let bias = if call.input_count() > 2 {
        optional_input(call, 2)?
    } else {
        None
    };
    let mut out = output_tensor(call)?;
    matmul(&a, &w, true, &mut out)?;
    match bias {
        Some(bias) => add_bias(&mut out, &bias, Scalar::Int(1), Scalar::Int(1)),
        None => Ok(()),
    }
}
