//! arenaplan-kernels' scalar operators against ExecuTorch's own (`kernels/prim_ops`, compiled
//! here with `tests/prim_oracle/prim_oracle.cpp`): every operator of `RUST_KERNELS`, on a grid
//! of ints, doubles (-0.0, NaN, infinities) and bools in every kind combination, and the tensor
//! ones on tensors of several dtypes and ranks. Where ExecuTorch computes a value, the Rust
//! kernel computes the same value of the same kind, bit for bit; where ExecuTorch fails the
//! call, the Rust kernel fails it too.
//!
//! Left out: integer division and remainder by zero, integer overflow and a double cast to an
//! int beyond its range (NaN, infinities), which are undefined behaviour in ExecuTorch's C++ (a
//! trap or INT64_MIN on x86); the Rust kernels fail such a call
//! (`runtime-c/kernels/executorch/tests/prim.rs`).

#[path = "../../tests/common/skip.rs"]
mod skip;

use std::ffi::{c_char, CString};

use arenaplan::{Call, Kind, Meta};
use arenaplan_syntax::kernels::RUST_KERNELS;

#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct OracleValue {
    kind: i32,
    dtype: i32,
    i: i64,
    d: f64,
    rank: i32,
    sizes: [i32; 8],
    data: *mut u8,
}

/// A scalar, or a tensor (dtype code, dims, bytes).
#[derive(Clone, Debug, PartialEq)]
enum V {
    I(i64),
    D(f64),
    B(bool),
    T(u8, Vec<u32>, Vec<u8>),
}

impl V {
    fn same(&self, other: &V) -> bool {
        match (self, other) {
            (V::D(a), V::D(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            _ => self == other,
        }
    }
}

type Oracle = unsafe extern "C" fn(*const c_char, *mut OracleValue, usize) -> i32;

struct ExecuTorch {
    _library: libloading::Library,
    run: Oracle,
}

impl ExecuTorch {
    fn load() -> Option<ExecuTorch> {
        let sources = arenaplan_host::executorch_sources()?.expect("EXECUTORCH_PATH");
        let root = sources.root();
        let files = [
            "kernels/prim_ops/register_prim_ops.cpp",
            "kernels/prim_ops/et_copy_index.cpp",
            "kernels/prim_ops/et_view.cpp",
            "runtime/core/evalue.cpp",
            "runtime/core/tag.cpp",
            "runtime/core/portable_type/tensor_impl.cpp",
            "runtime/core/exec_aten/util/tensor_util_portable.cpp",
            "runtime/core/exec_aten/util/tensor_shape_to_c_string.cpp",
        ];
        let mut paths: Vec<_> = files.iter().map(|f| root.join(f)).collect();
        paths.push(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/prim_oracle/prim_oracle.cpp"),
        );
        let library = arenaplan_host::executorch_library(&sources, &paths).unwrap();
        // SAFETY: our own library of ExecuTorch's sources and the harness.
        let library = unsafe { libloading::Library::new(&library) }.unwrap();
        // SAFETY: the harness defines it with this signature.
        let run = unsafe { *library.get::<Oracle>(b"ap_prim_oracle").unwrap() };
        Some(ExecuTorch {
            _library: library,
            run,
        })
    }

    /// ExecuTorch's result of `op` on `args`, the output starting as `out`: `None` when the
    /// kernel fails the call.
    fn call(&self, op: &str, args: &[V], out: &V) -> Option<V> {
        let mut datas: Vec<Vec<u8>> = Vec::new();
        let mut values: Vec<OracleValue> = Vec::new();
        for a in args.iter().chain(std::iter::once(out)) {
            let mut v = OracleValue {
                kind: 0,
                dtype: 0,
                i: 0,
                d: 0.0,
                rank: 0,
                sizes: [0; 8],
                data: std::ptr::null_mut(),
            };
            match a {
                V::I(x) => (v.kind, v.i) = (2, *x),
                V::D(x) => (v.kind, v.d) = (3, *x),
                V::B(x) => (v.kind, v.i) = (4, i64::from(*x)),
                V::T(dtype, dims, bytes) => {
                    v.dtype = i32::from(*dtype);
                    v.rank = dims.len() as i32;
                    for (s, &d) in v.sizes.iter_mut().zip(dims) {
                        *s = d as i32;
                    }
                    datas.push(bytes.clone());
                    v.data = datas.last_mut().unwrap().as_mut_ptr();
                }
            }
            values.push(v);
        }
        let name = CString::new(op).unwrap();
        // SAFETY: `values` and the tensors' bytes outlive the call, which reads at most
        // `values.len()` entries.
        let status = unsafe { (self.run)(name.as_ptr(), values.as_mut_ptr(), values.len()) };
        assert!(status >= 0, "ExecuTorch has no kernel {op}");
        if status != 0 {
            return None;
        }
        let r = values.last().unwrap();
        Some(match r.kind {
            2 => V::I(r.i),
            3 => V::D(r.d),
            4 => V::B(r.i != 0),
            k => panic!("{op}: result of kind {k}"),
        })
    }
}

/// arenaplan-kernels' result of `op` on `args`, written into a value of `out`'s kind.
fn rust(op: &str, args: &[V], out: &V) -> Option<V> {
    let kernel = arenaplan_kernels::find(op).unwrap_or_else(|| panic!("{op}"));
    let bytes = |v: &V| -> (Kind, u8, Vec<u32>, Vec<u8>) {
        match v {
            V::I(x) => (Kind::Int, 0, Vec::new(), x.to_le_bytes().to_vec()),
            V::D(x) => (Kind::Double, 0, Vec::new(), x.to_le_bytes().to_vec()),
            V::B(x) => (Kind::Bool, 0, Vec::new(), vec![u8::from(*x)]),
            V::T(dtype, dims, data) => (Kind::Tensor, *dtype, dims.clone(), data.clone()),
        }
    };
    let inputs: Vec<_> = args.iter().map(bytes).collect();
    let (kind, _, _, mut result) = bytes(out);
    let mut metas: Vec<Meta<'_>> = inputs
        .iter()
        .map(|(k, dtype, dims, _)| Meta {
            kind: *k,
            dtype: *dtype,
            dims,
            dim_order: &[],
        })
        .collect();
    metas.push(Meta {
        kind,
        dtype: 0,
        dims: &[],
        dim_order: &[],
    });
    let views: Vec<&[u8]> = inputs.iter().map(|(_, _, _, b)| b.as_slice()).collect();
    let mut rest: [&mut [u8]; 1] = [&mut result];
    let mut call = Call::new(&views, &mut rest, 1)?.with_meta(&metas)?;
    (kernel.run)(&mut call).ok()?;
    Some(match out {
        V::I(_) => V::I(i64::from_le_bytes(result[..8].try_into().unwrap())),
        V::D(_) => V::D(f64::from_le_bytes(result[..8].try_into().unwrap())),
        V::B(_) => V::B(result[0] != 0),
        V::T(..) => unreachable!(),
    })
}

/// Whether ExecuTorch's C++ is undefined for these arguments (integer division by zero or
/// overflow), so there is nothing to compare.
fn undefined_in_cxx(op: &str, args: &[V]) -> bool {
    let ints: Vec<i64> = args
        .iter()
        .filter_map(|a| match a {
            V::I(x) => Some(*x),
            _ => None,
        })
        .collect();
    let divides = ["floordiv", "mod", "truediv"]
        .iter()
        .any(|d| op.contains(d));
    if ints.len() == 2 {
        let (a, b) = (ints[0], ints[1]);
        let all_ints = args.iter().all(|a| matches!(a, V::I(_)));
        if divides && all_ints && (b == 0 || (a == i64::MIN && b == -1)) {
            return true;
        }
        if op.contains("add") && a.checked_add(b).is_none()
            || op.contains("sub") && a.checked_sub(b).is_none()
            || op.contains("mul") && a.checked_mul(b).is_none()
        {
            return true;
        }
    }
    if op.contains("neg") && ints == [i64::MIN] {
        return true;
    }
    // A double cast to an int beyond its range (or NaN).
    let to_int = ["ceil", "round", "trunc", "sym_int"]
        .iter()
        .any(|r| op.contains(r));
    to_int
        && args
            .iter()
            .any(|a| matches!(a, V::D(x) if x.is_nan() || x.abs() >= 9.2e18))
}

fn scalars() -> Vec<V> {
    let mut v: Vec<V> = [-7i64, -1, 0, 1, 3, 1 << 40, i64::MIN, i64::MAX]
        .into_iter()
        .map(V::I)
        .collect();
    v.extend(
        [
            -2.5f64,
            -0.0,
            0.0,
            0.5,
            1.5,
            2.5,
            3.0,
            -7.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
        ]
        .into_iter()
        .map(V::D),
    );
    v.extend([V::B(false), V::B(true)]);
    v
}

fn tensors() -> Vec<V> {
    let mut v = Vec::new();
    for (dtype, bytes) in [
        (6u8, 1.5f32.to_le_bytes().to_vec()),
        (6, (-0.0f32).to_le_bytes().to_vec()),
        (3, (-5i32).to_le_bytes().to_vec()),
        (4, i64::MAX.to_le_bytes().to_vec()),
        (1, vec![0x80]),
        (0, vec![0xff]),
        (11, vec![1]),
        (7, f64::NAN.to_le_bytes().to_vec()),
    ] {
        v.push(V::T(dtype, Vec::new(), bytes.clone()));
        v.push(V::T(dtype, vec![1], bytes.clone()));
        v.push(V::T(dtype, vec![1, 1, 1], bytes));
    }
    v.push(V::T(6, vec![2, 3, 4], vec![0; 96]));
    v.push(V::T(1, vec![5, 0], Vec::new()));
    v
}

#[test]
fn every_rust_scalar_operator_computes_as_executorchs_own() {
    let Some(et) = ExecuTorch::load() else {
        skip::skip("EXECUTORCH_PATH is not set (ExecuTorch's sources)");
        return;
    };
    let scalars = scalars();
    let tensors = tensors();
    let outs = [V::I(0), V::D(0.0), V::B(false)];
    let mut compared = 0usize;
    let mut disagreements = Vec::new();
    for &op in RUST_KERNELS {
        let arity = match op {
            "executorch_prim::neg.Scalar"
            | "executorch_prim::sym_float.Scalar"
            | "executorch_prim::sym_int.Scalar"
            | "executorch_prim::ceil.Scalar"
            | "executorch_prim::round.Scalar"
            | "executorch_prim::trunc.Scalar"
            | "executorch_prim::sym_not.Scalar"
            | "aten::sym_numel"
            | "aten::_local_scalar_dense" => 1,
            "executorch_prim::sym_ite.Scalar" => 3,
            _ => 2,
        };
        let first: &[V] = if op.starts_with("aten::") {
            &tensors
        } else {
            &scalars
        };
        let mut cases: Vec<Vec<V>> = first.iter().map(|a| vec![a.clone()]).collect();
        for _ in 1..arity {
            let rest: Vec<V> = if op == "aten::sym_size.int" {
                [-4i64, -1, 0, 1, 2, 3].into_iter().map(V::I).collect()
            } else {
                scalars.clone()
            };
            cases = cases
                .into_iter()
                .flat_map(|c| {
                    rest.iter().map(move |r| {
                        let mut c = c.clone();
                        c.push(r.clone());
                        c
                    })
                })
                .collect();
        }
        for args in cases {
            if undefined_in_cxx(op, &args) {
                continue;
            }
            for out in &outs {
                let theirs = et.call(op, &args, out);
                // ExecuTorch writes the kind it computes; the Rust kernel writes the kind the
                // program gives the output, and refuses one it cannot hold. Compare where the
                // program's kind is ExecuTorch's.
                if let Some(t) = &theirs {
                    if std::mem::discriminant(t) != std::mem::discriminant(out) {
                        continue;
                    }
                }
                let ours = rust(op, &args, out);
                compared += 1;
                let agree = match (&theirs, &ours) {
                    (Some(t), Some(o)) => t.same(o),
                    (None, None) => true,
                    _ => false,
                };
                if !agree {
                    disagreements.push(format!(
                        "{op}{args:?} -> {out:?}: ExecuTorch {theirs:?}, arenaplan {ours:?}"
                    ));
                }
            }
        }
    }
    assert!(compared > 1000, "{compared} cases compared");
    assert!(
        disagreements.is_empty(),
        "{} of {compared} cases differ:\n{}",
        disagreements.len(),
        disagreements
            .iter()
            .take(std::env::var("PRIM_SHOW").map_or(40, |v| v.parse().unwrap_or(40)))
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
