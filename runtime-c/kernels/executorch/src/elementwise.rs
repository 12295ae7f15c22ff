//! Elementwise operators with broadcasting: arithmetic, comparison, selection, activation.
//! Floating-point outputs are computed in the output's own precision (float32 in float32, as
//! ExecuTorch's portable kernels compute), integers in 64 bits and wrapped to the output.

use arenaplan::{Call, Error, Result};

use crate::tensor::{
    broadcast_index, input, is_broadcast_of, output_tensor, scalar, DType, Scalar, Tensor,
};

/// The right operand of a binary operator: a tensor, or a `Scalar` broadcast everywhere.
enum Operand<'a> {
    Tensor(Tensor<'a>),
    Scalar(Scalar),
}

impl Operand<'_> {
    fn f32(&self, out_dims: &[u32], i: usize) -> f32 {
        match self {
            Operand::Tensor(t) => t.f32(broadcast_index(out_dims, t.dims, i)),
            Operand::Scalar(s) => s.f64() as f32,
        }
    }
    fn f64(&self, out_dims: &[u32], i: usize) -> f64 {
        match self {
            Operand::Tensor(t) => t.f64(broadcast_index(out_dims, t.dims, i)),
            Operand::Scalar(s) => s.f64(),
        }
    }
    fn i64(&self, out_dims: &[u32], i: usize) -> i64 {
        match self {
            Operand::Tensor(t) => t.i64(broadcast_index(out_dims, t.dims, i)),
            Operand::Scalar(s) => s.i64(),
        }
    }
    fn is_float(&self) -> bool {
        match self {
            Operand::Tensor(t) => t.dtype.is_float(),
            Operand::Scalar(s) => matches!(s, Scalar::Float(_)),
        }
    }
    fn dims(&self) -> &[u32] {
        match self {
            Operand::Tensor(t) => t.dims,
            Operand::Scalar(_) => &[],
        }
    }
}

/// A binary operator's operands: tensor input 0, and input 1 as a tensor or a `Scalar`.
fn operands<'a>(
    call: &Call<'a>,
    scalar_b: bool,
) -> core::result::Result<(Tensor<'a>, Operand<'a>), Error> {
    let a = input(call, 0)?;
    let b = if scalar_b {
        Operand::Scalar(scalar(call, 1)?)
    } else {
        Operand::Tensor(input(call, 1)?)
    };
    Ok((a, b))
}

/// The functions of one arithmetic operator, per computation type.
struct Arith<F, D, I> {
    f32: F,
    f64: D,
    i64: I,
}

/// `out = op(a, b)`, `b` the tensor or scalar input 1, broadcast to the output's shape, each
/// element computed in the output's type (float32 in float32; integers in 64 bits, or in
/// double when an operand is a float).
fn arith(
    call: &mut Call<'_>,
    scalar_b: bool,
    op: Arith<impl Fn(f32, f32) -> f32, impl Fn(f64, f64) -> f64, impl Fn(i64, i64) -> i64>,
) -> Result {
    let (a, b) = operands(call, scalar_b)?;
    let mut out = output_tensor(call)?;
    let dims = out.dims;
    if !is_broadcast_of(dims, &[a.dims, b.dims()]) {
        return Err(Error::BadArguments);
    }
    for i in 0..out.numel() {
        let ia = broadcast_index(dims, a.dims, i);
        match out.dtype {
            DType::F32 => out.set_f32(i, (op.f32)(a.f32(ia), b.f32(dims, i))),
            DType::F64 => out.set_f64(i, (op.f64)(a.f64(ia), b.f64(dims, i))),
            _ if a.dtype.is_float() || b.is_float() => {
                out.set_f64(i, (op.f64)(a.f64(ia), b.f64(dims, i)))
            }
            _ => out.set_i64(i, (op.i64)(a.i64(ia), b.i64(dims, i))),
        }
    }
    Ok(())
}

/// `alpha` of add and sub, the input after the operands (1 when the program leaves it out).
fn alpha(call: &Call<'_>, at: usize) -> core::result::Result<Scalar, Error> {
    if call.input_count() > at {
        scalar(call, at)
    } else {
        Ok(Scalar::Int(1))
    }
}

/// `a + alpha * b`, or `a - alpha * b` for sub (`sign` -1), computed in the output's type:
/// `-alpha * b` is exactly `-(alpha * b)`, and `alpha * b` exactly `b` when alpha is 1, so
/// this is bit for bit `a + b` and `a - b` then.
fn add_sub(call: &mut Call<'_>, scalar_b: bool, sign: i64) -> Result {
    let alpha = alpha(call, 2)?;
    let out_is_float = call
        .meta(call.input_count())
        .and_then(|m| crate::tensor::DType::from_code(m.dtype))
        .is_some_and(|d| d.is_float());
    if matches!(alpha, Scalar::Float(_)) && !out_is_float {
        return Err(Error::BadArguments); // a float alpha for an integer result, as ExecuTorch refuses
    }
    let (af32, af64) = (
        (sign as f64 * alpha.f64()) as f32,
        sign as f64 * alpha.f64(),
    );
    let ai64 = alpha.i64().wrapping_mul(sign);
    arith(
        call,
        scalar_b,
        Arith {
            f32: move |a: f32, b: f32| a + af32 * b,
            f64: move |a: f64, b: f64| a + af64 * b,
            i64: move |a: i64, b: i64| a.wrapping_add(ai64.wrapping_mul(b)),
        },
    )
}

/// `aten::add.out(Tensor self, Tensor other, *, Scalar alpha, Tensor(a!) out)`.
pub fn add(call: &mut Call<'_>) -> Result {
    add_sub(call, false, 1)
}

/// `aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha, *, Tensor(a!) out)`.
pub fn add_scalar(call: &mut Call<'_>) -> Result {
    add_sub(call, true, 1)
}

/// `aten::sub.out(Tensor self, Tensor other, *, Scalar alpha, Tensor(a!) out)`.
pub fn sub(call: &mut Call<'_>) -> Result {
    add_sub(call, false, -1)
}

/// `aten::sub.Scalar_out(Tensor self, Scalar other, Scalar alpha, *, Tensor(a!) out)`.
pub fn sub_scalar(call: &mut Call<'_>) -> Result {
    add_sub(call, true, -1)
}

/// An operator's functions as plain function pointers.
type Plain = Arith<fn(f32, f32) -> f32, fn(f64, f64) -> f64, fn(i64, i64) -> i64>;

/// Multiplication, per computation type.
const MUL: Plain = Arith {
    f32: |a, b| a * b,
    f64: |a, b| a * b,
    i64: i64::wrapping_mul,
};

/// `aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)`.
pub fn mul(call: &mut Call<'_>) -> Result {
    arith(call, false, MUL)
}

/// `aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)`.
pub fn mul_scalar(call: &mut Call<'_>) -> Result {
    arith(call, true, MUL)
}

/// `aten::relu.out(Tensor self, *, Tensor(a!) out)`: NaN stays NaN, as in ExecuTorch.
pub fn relu(call: &mut Call<'_>) -> Result {
    let a = input(call, 0)?;
    let mut out = output_tensor(call)?;
    if out.numel() != a.numel() {
        return Err(Error::BadArguments);
    }
    for i in 0..out.numel() {
        match out.dtype {
            DType::F32 => {
                let x = a.f32(i);
                out.set_f32(i, if x.is_nan() || x > 0.0 { x } else { 0.0 })
            }
            DType::F64 => {
                let x = a.f64(i);
                out.set_f64(i, if x.is_nan() || x > 0.0 { x } else { 0.0 })
            }
            _ => out.set_i64(i, a.i64(i).max(0)),
        }
    }
    Ok(())
}

/// `a > b` over the operands' common type, into a bool (or numeric) output.
fn greater(call: &mut Call<'_>, scalar_b: bool) -> Result {
    let (a, b) = operands(call, scalar_b)?;
    let mut out = output_tensor(call)?;
    let dims = out.dims;
    if !is_broadcast_of(dims, &[a.dims, b.dims()]) {
        return Err(Error::BadArguments);
    }
    let float = a.dtype.is_float() || b.is_float();
    for i in 0..out.numel() {
        let ia = broadcast_index(dims, a.dims, i);
        let yes = if float {
            a.f64(ia) > b.f64(dims, i)
        } else {
            a.i64(ia) > b.i64(dims, i)
        };
        out.set_i64(i, i64::from(yes));
    }
    Ok(())
}

/// `aten::gt.Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out)`.
pub fn gt(call: &mut Call<'_>) -> Result {
    greater(call, false)
}

/// `aten::gt.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)`.
pub fn gt_scalar(call: &mut Call<'_>) -> Result {
    greater(call, true)
}

/// `aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)`.
pub fn where_self(call: &mut Call<'_>) -> Result {
    let (c, a, b) = (input(call, 0)?, input(call, 1)?, input(call, 2)?);
    let mut out = output_tensor(call)?;
    let dims = out.dims;
    if !is_broadcast_of(dims, &[c.dims, a.dims, b.dims]) {
        return Err(Error::BadArguments);
    }
    for i in 0..out.numel() {
        let (from, j) = if c.truth(broadcast_index(dims, c.dims, i)) {
            (&a, broadcast_index(dims, a.dims, i))
        } else {
            (&b, broadcast_index(dims, b.dims, i))
        };
        out.set_from(i, from, j);
    }
    Ok(())
}
