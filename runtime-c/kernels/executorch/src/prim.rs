//! ExecuTorch's scalar operators (`executorch_prim::*`, and the ATen ones that read a size off
//! a tensor): arithmetic and comparisons on ints, doubles and bools, as its runtime defines
//! them — an int with an int gives an int, anything with a double a double; `floordiv` rounds
//! toward negative infinity, as Python does; `mod` keeps C's sign (the dividend's). The
//! result is written as the kind of value the program gives it (an int, a double or a bool);
//! a result of another kind, or an integer division by zero, is refused.

use arenaplan::{Call, Error, Kind, Result};

use crate::tensor::{input, scalar, Scalar};

/// A scalar value.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(i64),
    Double(f64),
    Bool(bool),
}

fn read(call: &Call<'_>, i: usize) -> core::result::Result<Num, Error> {
    match call.meta(i).map(|m| m.kind) {
        Some(Kind::Bool) => Ok(Num::Bool(crate::tensor::boolean(call, i)?)),
        _ => Ok(match scalar(call, i)? {
            Scalar::Int(v) => Num::Int(v),
            Scalar::Float(v) => Num::Double(v),
        }),
    }
}

/// Writes `value` as the call's one output, of the kind the program gave it.
fn write(call: &mut Call<'_>, value: Num) -> Result {
    let at = call.input_count();
    let kind = call.meta(at).ok_or(Error::BadArguments)?.kind;
    let (_, outputs, _) = call.split();
    let out = outputs.first_mut().ok_or(Error::BadArguments)?;
    let bytes: &[u8] = &match (kind, value) {
        (Kind::Int, Num::Int(v)) => v.to_le_bytes(),
        (Kind::Int, Num::Bool(b)) => i64::from(b).to_le_bytes(),
        (Kind::Double, Num::Double(v)) => v.to_le_bytes(),
        (Kind::Bool, Num::Bool(b)) => {
            let mut one = [0u8; 8];
            one[0] = u8::from(b);
            one
        }
        _ => return Err(Error::BadArguments),
    };
    let width = if kind == Kind::Bool { 1 } else { 8 };
    out.get_mut(..width)
        .ok_or(Error::BadArguments)?
        .copy_from_slice(&bytes[..width]);
    Ok(())
}

/// An arithmetic operator: on two ints (`None`: refused), else on doubles.
fn algebra(
    call: &mut Call<'_>,
    ints: fn(i64, i64) -> Option<i64>,
    doubles: fn(f64, f64) -> f64,
) -> Result {
    let result = match (read(call, 0)?, read(call, 1)?) {
        (Num::Int(a), Num::Int(b)) => Num::Int(ints(a, b).ok_or(Error::BadArguments)?),
        (a, b) => Num::Double(doubles(as_double(a)?, as_double(b)?)),
    };
    write(call, result)
}

fn as_double(n: Num) -> core::result::Result<f64, Error> {
    match n {
        Num::Int(v) => Ok(v as f64),
        Num::Double(v) => Ok(v),
        Num::Bool(_) => Err(Error::BadArguments),
    }
}

/// A comparison: on two ints, on doubles, or on two bools.
fn compare(
    call: &mut Call<'_>,
    ints: fn(&i64, &i64) -> bool,
    doubles: fn(&f64, &f64) -> bool,
) -> Result {
    let yes = match (read(call, 0)?, read(call, 1)?) {
        (Num::Int(a), Num::Int(b)) => ints(&a, &b),
        (Num::Bool(a), Num::Bool(b)) => ints(&i64::from(a), &i64::from(b)),
        (a, b) => doubles(&as_double(a)?, &as_double(b)?),
    };
    write(call, Num::Bool(yes))
}

/// `executorch_prim::add.Scalar(Scalar a, Scalar b) -> Scalar`.
pub fn add(call: &mut Call<'_>) -> Result {
    algebra(call, i64::checked_add, |a, b| a + b)
}

/// `executorch_prim::sub.Scalar(Scalar a, Scalar b) -> Scalar`.
pub fn sub(call: &mut Call<'_>) -> Result {
    algebra(call, i64::checked_sub, |a, b| a - b)
}

/// `executorch_prim::mul.Scalar(Scalar a, Scalar b) -> Scalar`.
pub fn mul(call: &mut Call<'_>) -> Result {
    algebra(call, i64::checked_mul, |a, b| a * b)
}

/// Floor division of doubles: `(a - fmod(a, b)) / b`, one less when the remainder's sign is
/// not the divisor's; a division by zero is an infinity of the dividend's sign.
fn floor_div(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return if a.is_sign_negative() {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    let rem = a % b;
    let div = (a - rem) / b;
    if rem != 0.0 && b.is_sign_negative() != rem.is_sign_negative() {
        div - 1.0
    } else {
        div
    }
}

/// `executorch_prim::floordiv.Scalar(Scalar a, Scalar b) -> Scalar`.
pub fn floordiv(call: &mut Call<'_>) -> Result {
    algebra(
        call,
        |a, b| {
            let quotient = a.checked_div(b)?;
            let remainder = a.checked_rem(b)?;
            Some(if remainder != 0 && (a < 0) != (b < 0) {
                quotient - 1
            } else {
                quotient
            })
        },
        floor_div,
    )
}

/// `executorch_prim::floordiv.int(int a, int b) -> int`: C's division, toward zero.
pub fn floordiv_int(call: &mut Call<'_>) -> Result {
    match (read(call, 0)?, read(call, 1)?) {
        (Num::Int(a), Num::Int(b)) => {
            write(call, Num::Int(a.checked_div(b).ok_or(Error::BadArguments)?))
        }
        _ => Err(Error::BadArguments),
    }
}

/// `executorch_prim::truediv.Scalar(Scalar a, Scalar b) -> Scalar`: always a double.
pub fn truediv(call: &mut Call<'_>) -> Result {
    let (a, b) = (as_double(read(call, 0)?)?, as_double(read(call, 1)?)?);
    write(call, Num::Double(a / b))
}

/// `executorch_prim::mod.Scalar(SymInt a, SymInt b) -> SymInt`.
pub fn modulo(call: &mut Call<'_>) -> Result {
    match (read(call, 0)?, read(call, 1)?) {
        (Num::Int(a), Num::Int(b)) => {
            write(call, Num::Int(a.checked_rem(b).ok_or(Error::BadArguments)?))
        }
        _ => Err(Error::BadArguments),
    }
}

/// `executorch_prim::eq.Scalar(Scalar a, Scalar b) -> bool`.
pub fn eq(call: &mut Call<'_>) -> Result {
    compare(call, i64::eq, f64::eq)
}

/// `executorch_prim::gt.Scalar(Scalar a, Scalar b) -> bool`.
pub fn gt(call: &mut Call<'_>) -> Result {
    compare(call, i64::gt, f64::gt)
}

/// `executorch_prim::lt.Scalar(Scalar a, Scalar b) -> bool`.
pub fn lt(call: &mut Call<'_>) -> Result {
    compare(call, i64::lt, f64::lt)
}

/// `executorch_prim::ge.Scalar(Scalar a, Scalar b) -> bool`.
pub fn ge(call: &mut Call<'_>) -> Result {
    compare(call, i64::ge, f64::ge)
}

/// `executorch_prim::le.Scalar(Scalar a, Scalar b) -> bool`.
pub fn le(call: &mut Call<'_>) -> Result {
    compare(call, i64::le, f64::le)
}

/// `executorch_prim::neg.Scalar(Scalar a) -> Scalar`.
pub fn neg(call: &mut Call<'_>) -> Result {
    let result = match read(call, 0)? {
        Num::Int(a) => Num::Int(a.checked_neg().ok_or(Error::BadArguments)?),
        Num::Double(a) => Num::Double(-a),
        Num::Bool(_) => return Err(Error::BadArguments),
    };
    write(call, result)
}

/// `executorch_prim::sym_float.Scalar(Scalar a) -> Scalar`: a double (of a bool too).
pub fn sym_float(call: &mut Call<'_>) -> Result {
    let a = match read(call, 0)? {
        Num::Bool(b) => f64::from(u8::from(b)),
        n => as_double(n)?,
    };
    write(call, Num::Double(a))
}

/// A double rounded by `round` to an int: refused beyond the int range and for NaN (where
/// ExecuTorch's C++ cast is undefined).
fn rounded(a: f64, round: fn(f64) -> f64) -> core::result::Result<i64, Error> {
    let r = round(a);
    if !(-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&r) {
        return Err(Error::BadArguments);
    }
    Ok(r as i64)
}

/// `ceil`, `round`, `trunc`: an int from a double; ExecuTorch takes no other kind.
fn double_to_int(call: &mut Call<'_>, round: fn(f64) -> f64) -> Result {
    let Num::Double(a) = read(call, 0)? else {
        return Err(Error::BadArguments);
    };
    write(call, Num::Int(rounded(a, round)?))
}

/// `floor` without `std`: toward negative infinity, for values below 2^63.
fn floor(x: f64) -> f64 {
    let t = trunc(x);
    if t > x {
        t - 1.0
    } else {
        t
    }
}

/// `trunc` without `std`: toward zero (values of 2^52 and beyond are integers already).
fn trunc(x: f64) -> f64 {
    if x.is_nan() || x.abs() >= 4_503_599_627_370_496.0 {
        x
    } else {
        x as i64 as f64
    }
}

/// `executorch_prim::sym_int.Scalar(Scalar a) -> Scalar`: an int, a bool as 0 or 1, a double
/// toward zero.
pub fn sym_int(call: &mut Call<'_>) -> Result {
    let result = match read(call, 0)? {
        Num::Int(a) => a,
        Num::Double(a) => rounded(a, trunc)?,
        Num::Bool(b) => i64::from(b),
    };
    write(call, Num::Int(result))
}

/// `executorch_prim::trunc.Scalar(Scalar a) -> Scalar`.
pub fn trunc_scalar(call: &mut Call<'_>) -> Result {
    double_to_int(call, trunc)
}

/// `executorch_prim::ceil.Scalar(Scalar a) -> Scalar`.
pub fn ceil(call: &mut Call<'_>) -> Result {
    double_to_int(call, |x| -floor(-x))
}

/// `executorch_prim::round.Scalar(Scalar a) -> Scalar`: Python's `round`, ties to even.
pub fn round(call: &mut Call<'_>) -> Result {
    double_to_int(call, |x| {
        let down = floor(x);
        let rest = x - down;
        if rest > 0.5 || (rest == 0.5 && down % 2.0 != 0.0) {
            down + 1.0
        } else {
            down
        }
    })
}

/// Two ints, else refused (`sym_max`, `sym_min` take SymInts only).
fn two_ints(call: &Call<'_>) -> core::result::Result<(i64, i64), Error> {
    match (read(call, 0)?, read(call, 1)?) {
        (Num::Int(a), Num::Int(b)) => Ok((a, b)),
        _ => Err(Error::BadArguments),
    }
}

/// `executorch_prim::sym_max.Scalar(SymInt a, SymInt b) -> SymInt`.
pub fn sym_max(call: &mut Call<'_>) -> Result {
    let (a, b) = two_ints(call)?;
    write(call, Num::Int(a.max(b)))
}

/// `executorch_prim::sym_min.Scalar(SymInt a, SymInt b) -> SymInt`.
pub fn sym_min(call: &mut Call<'_>) -> Result {
    let (a, b) = two_ints(call)?;
    write(call, Num::Int(a.min(b)))
}

/// `executorch_prim::sym_not.Scalar(SymBool a) -> SymBool`: a bool only.
pub fn sym_not(call: &mut Call<'_>) -> Result {
    let Num::Bool(b) = read(call, 0)? else {
        return Err(Error::BadArguments);
    };
    write(call, Num::Bool(!b))
}

/// `executorch_prim::sym_ite.Scalar(SymBool b, Scalar t, Scalar f) -> Scalar`: the condition
/// a bool only.
pub fn sym_ite(call: &mut Call<'_>) -> Result {
    let Num::Bool(choose) = read(call, 0)? else {
        return Err(Error::BadArguments);
    };
    let value = read(call, if choose { 1 } else { 2 })?;
    write(call, value)
}

/// `aten::sym_size.int(Tensor self, int dim) -> SymInt`: a dimension, from the value table.
/// As ExecuTorch's, `dim` counts from the first dimension only (a negative one is refused).
pub fn sym_size(call: &mut Call<'_>) -> Result {
    let t = input(call, 0)?;
    let Num::Int(d) = read(call, 1)? else {
        return Err(Error::BadArguments);
    };
    let size = usize::try_from(d)
        .ok()
        .and_then(|d| t.dims.get(d))
        .ok_or(Error::BadArguments)?;
    write(call, Num::Int(i64::from(*size)))
}

/// `aten::sym_numel(Tensor self) -> SymInt`.
pub fn sym_numel(call: &mut Call<'_>) -> Result {
    let t = input(call, 0)?;
    write(call, Num::Int(t.numel() as i64))
}

/// `aten::_local_scalar_dense(Tensor self) -> Scalar`: a tensor's first element, an int or a
/// double (or a bool) by the tensor's type.
pub fn local_scalar_dense(call: &mut Call<'_>) -> Result {
    let t = input(call, 0)?;
    if t.numel() == 0 {
        return Err(Error::BadArguments);
    }
    let value = match t.dtype {
        d if d.is_float() => Num::Double(t.f64(0)),
        crate::tensor::DType::Bool => Num::Bool(t.truth(0)),
        _ => Num::Int(t.i64(0)),
    };
    write(call, value)
}
