//! The scalar operators as ExecuTorch's runtime computes them: Python's floor division, C's
//! remainder, Python's rounding, ints kept ints and doubles doubles, and the result written as
//! the kind the program gives it.

use arenaplan::{Call, Kind, Meta};

/// A scalar argument or result.
#[derive(Clone, Copy, Debug, PartialEq)]
enum V {
    I(i64),
    D(f64),
    B(bool),
}

fn bytes(v: V) -> (Kind, Vec<u8>) {
    match v {
        V::I(x) => (Kind::Int, x.to_le_bytes().to_vec()),
        V::D(x) => (Kind::Double, x.to_le_bytes().to_vec()),
        V::B(x) => (Kind::Bool, vec![u8::from(x)]),
    }
}

/// Runs `op` on `args`, its result written into a value of `out`'s kind.
fn run(op: &str, args: &[V], out: V) -> Option<V> {
    let kernel = arenaplan_kernels::find(op).unwrap_or_else(|| panic!("{op}"));
    let inputs: Vec<(Kind, Vec<u8>)> = args.iter().map(|&a| bytes(a)).collect();
    let (kind, mut result) = bytes(out);
    let mut metas: Vec<Meta<'_>> = inputs
        .iter()
        .map(|(k, _)| Meta {
            kind: *k,
            dtype: 0,
            dims: &[],
            dim_order: &[],
        })
        .collect();
    metas.push(Meta {
        kind,
        dtype: 0,
        dims: &[],
        dim_order: &[],
    });
    let views: Vec<&[u8]> = inputs.iter().map(|(_, b)| b.as_slice()).collect();
    let mut rest: [&mut [u8]; 1] = [&mut result];
    let mut call = Call::new(&views, &mut rest, 1)
        .unwrap()
        .with_meta(&metas)
        .unwrap();
    (kernel.run)(&mut call).ok()?;
    Some(match out {
        V::I(_) => V::I(i64::from_le_bytes(result[..8].try_into().unwrap())),
        V::D(_) => V::D(f64::from_le_bytes(result[..8].try_into().unwrap())),
        V::B(_) => V::B(result[0] != 0),
    })
}

#[test]
fn scalar_operators_compute_as_executorch() {
    use V::*;
    let cases: &[(&str, &[V], V, Option<V>)] = &[
        (
            "executorch_prim::add.Scalar",
            &[I(2), I(3)],
            I(0),
            Some(I(5)),
        ),
        (
            "executorch_prim::add.Scalar",
            &[I(2), D(0.5)],
            D(0.0),
            Some(D(2.5)),
        ),
        (
            "executorch_prim::mul.Scalar",
            &[D(1.5), I(4)],
            D(0.0),
            Some(D(6.0)),
        ),
        (
            "executorch_prim::sub.Scalar",
            &[I(i64::MIN), I(1)],
            I(0),
            None,
        ),
        (
            "executorch_prim::floordiv.Scalar",
            &[I(-7), I(2)],
            I(0),
            Some(I(-4)),
        ),
        (
            "executorch_prim::floordiv.Scalar",
            &[I(7), I(2)],
            I(0),
            Some(I(3)),
        ),
        (
            "executorch_prim::floordiv.Scalar",
            &[D(7.5), D(-2.0)],
            D(0.0),
            Some(D(-4.0)),
        ),
        (
            "executorch_prim::floordiv.Scalar",
            &[D(-1.0), I(0)],
            D(0.0),
            Some(D(f64::NEG_INFINITY)),
        ),
        (
            "executorch_prim::floordiv.Scalar",
            &[I(1), I(0)],
            I(0),
            None,
        ),
        (
            "executorch_prim::floordiv.int",
            &[I(-7), I(2)],
            I(0),
            Some(I(-3)),
        ),
        (
            "executorch_prim::truediv.Scalar",
            &[I(7), I(2)],
            D(0.0),
            Some(D(3.5)),
        ),
        (
            "executorch_prim::mod.Scalar",
            &[I(-7), I(2)],
            I(0),
            Some(I(-1)),
        ),
        (
            "executorch_prim::eq.Scalar",
            &[I(2), D(2.0)],
            B(false),
            Some(B(true)),
        ),
        (
            "executorch_prim::gt.Scalar",
            &[B(true), B(false)],
            B(false),
            Some(B(true)),
        ),
        (
            "executorch_prim::le.Scalar",
            &[I(3), I(2)],
            B(true),
            Some(B(false)),
        ),
        (
            "executorch_prim::neg.Scalar",
            &[D(2.0)],
            D(0.0),
            Some(D(-2.0)),
        ),
        ("executorch_prim::round.Scalar", &[D(2.5)], I(0), Some(I(2))),
        (
            "executorch_prim::round.Scalar",
            &[D(-2.5)],
            I(0),
            Some(I(-2)),
        ),
        ("executorch_prim::round.Scalar", &[D(3.5)], I(0), Some(I(4))),
        (
            "executorch_prim::ceil.Scalar",
            &[D(-1.5)],
            I(0),
            Some(I(-1)),
        ),
        (
            "executorch_prim::trunc.Scalar",
            &[D(-1.5)],
            I(0),
            Some(I(-1)),
        ),
        (
            "executorch_prim::sym_float.Scalar",
            &[I(3)],
            D(0.0),
            Some(D(3.0)),
        ),
        (
            "executorch_prim::sym_int.Scalar",
            &[D(f64::NAN)],
            I(0),
            None,
        ),
        (
            "executorch_prim::sym_max.Scalar",
            &[I(3), I(9)],
            I(0),
            Some(I(9)),
        ),
        (
            "executorch_prim::sym_not.Scalar",
            &[B(false)],
            B(false),
            Some(B(true)),
        ),
        (
            "executorch_prim::sym_ite.Scalar",
            &[B(false), I(1), I(2)],
            I(0),
            Some(I(2)),
        ),
        // A double result where the program keeps an int: refused, not truncated.
        ("executorch_prim::add.Scalar", &[I(2), D(0.5)], I(0), None),
    ];
    for (op, args, out, want) in cases {
        assert_eq!(run(op, args, *out), *want, "{op} {args:?}");
    }
}

#[test]
fn sizes_come_from_the_value_table() {
    let kernel = arenaplan_kernels::find("aten::sym_size.int").unwrap();
    let x = [0u8; 24];
    // ExecuTorch's sym_size counts from the first dimension; a negative one fails the call
    // (tests in arenaplan-host compare every case with ExecuTorch's C++).
    let dim = 1i64.to_le_bytes();
    let mut out = [0u8; 8];
    let metas = [
        Meta {
            kind: Kind::Tensor,
            dtype: 6,
            dims: &[2, 3],
            dim_order: &[],
        },
        Meta {
            kind: Kind::Int,
            dtype: 0,
            dims: &[],
            dim_order: &[],
        },
        Meta {
            kind: Kind::Int,
            dtype: 0,
            dims: &[],
            dim_order: &[],
        },
    ];
    let inputs: [&[u8]; 2] = [&x, &dim];
    let mut rest: [&mut [u8]; 1] = [&mut out];
    let mut call = Call::new(&inputs, &mut rest, 1)
        .unwrap()
        .with_meta(&metas)
        .unwrap();
    (kernel.run)(&mut call).unwrap();
    assert_eq!(i64::from_le_bytes(out), 3);
}
