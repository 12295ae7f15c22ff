//! No kernel panics, whatever its arguments. Each kernel gets random calls shaped like its
//! operator's schema (the right kinds in the right places, so the arithmetic is reached) with
//! random types, shapes, bytes and extreme scalars, and calls of random kinds altogether:
//! every call gives `Ok` or an error, never a panic, with Rust's overflow checks on (tests
//! build them in). Seeded, so a failure repeats.

use arenaplan::{Call, Kind, Meta};

/// xorshift64*: a small deterministic generator.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len() as u64) as usize]
    }
}

/// Each kernel's inputs by kind: T tensor, S int or double, I int, D double, B bool, L int
/// list, N None, O tensor or None, X a tensor list with its elements; then one output (a
/// tensor, an int, a double or a bool at random).
const SIGNATURES: &[(&str, &str)] = &[
    ("executorch_prim::add.Scalar", "SS"),
    ("executorch_prim::sub.Scalar", "SS"),
    ("executorch_prim::mul.Scalar", "SS"),
    ("executorch_prim::floordiv.Scalar", "SS"),
    ("executorch_prim::floordiv.int", "II"),
    ("executorch_prim::truediv.Scalar", "SS"),
    ("executorch_prim::mod.Scalar", "II"),
    ("executorch_prim::eq.Scalar", "SS"),
    ("executorch_prim::gt.Scalar", "SS"),
    ("executorch_prim::lt.Scalar", "SS"),
    ("executorch_prim::ge.Scalar", "SS"),
    ("executorch_prim::le.Scalar", "SS"),
    ("executorch_prim::neg.Scalar", "S"),
    ("executorch_prim::sym_float.Scalar", "S"),
    ("executorch_prim::sym_int.Scalar", "S"),
    ("executorch_prim::ceil.Scalar", "S"),
    ("executorch_prim::round.Scalar", "S"),
    ("executorch_prim::trunc.Scalar", "S"),
    ("executorch_prim::sym_max.Scalar", "SS"),
    ("executorch_prim::sym_min.Scalar", "SS"),
    ("executorch_prim::sym_not.Scalar", "B"),
    ("executorch_prim::sym_ite.Scalar", "BSS"),
    ("aten::sym_size.int", "TI"),
    ("aten::sym_numel", "T"),
    ("aten::_local_scalar_dense", "T"),
];

const DTYPES: [u8; 9] = [0, 1, 2, 3, 4, 6, 7, 11, 99];
const INTS: [i64; 9] = [0, 1, -1, 2, 3, -128, 127, i64::MAX, i64::MIN];
const DOUBLES: [f64; 8] = [
    0.0,
    1e-3,
    1.0,
    -2.5,
    f64::NAN,
    f64::INFINITY,
    1e300,
    -1e-300,
];

/// One argument: what it is and its bytes.
struct Arg {
    kind: Kind,
    dtype: u8,
    dims: usize,
    bytes: Vec<u8>,
}

fn tensor(rng: &mut Rng, shapes: &[Vec<u32>]) -> Arg {
    let dims = rng.below(shapes.len() as u64) as usize;
    let dtype = rng.pick(&DTYPES);
    let size = match dtype {
        0 | 1 | 11 => 1,
        2 => 2,
        3 | 6 => 4,
        _ => 8,
    };
    let numel: usize = shapes[dims].iter().map(|&d| d as usize).product();
    let len = match rng.below(8) {
        0 => rng.below(40) as usize,
        _ => numel * size,
    };
    let bytes = (0..len)
        .map(|_| match rng.below(6) {
            0 => 0,
            1 => 0xff,
            2 => 0x7f,
            _ => rng.next() as u8,
        })
        .collect();
    Arg {
        kind: Kind::Tensor,
        dtype,
        dims,
        bytes,
    }
}

fn scalar(kind: Kind, bytes: Vec<u8>) -> Arg {
    Arg {
        kind,
        dtype: 0,
        dims: 0,
        bytes,
    }
}

fn int(rng: &mut Rng) -> Arg {
    let v = if rng.below(2) == 0 {
        rng.pick(&INTS)
    } else {
        rng.below(6) as i64 - 2
    };
    scalar(Kind::Int, v.to_le_bytes().to_vec())
}

fn arguments(rng: &mut Rng, signature: &str, shapes: &[Vec<u32>]) -> Vec<Arg> {
    let mut args = Vec::new();
    for c in signature.chars() {
        match c {
            'T' => args.push(tensor(rng, shapes)),
            'I' => args.push(int(rng)),
            'D' => args.push(scalar(
                Kind::Double,
                rng.pick(&DOUBLES).to_le_bytes().to_vec(),
            )),
            'S' if rng.below(2) == 0 => args.push(int(rng)),
            'S' => args.push(scalar(
                Kind::Double,
                rng.pick(&DOUBLES).to_le_bytes().to_vec(),
            )),
            'B' => args.push(scalar(Kind::Bool, vec![rng.below(2) as u8])),
            'N' => args.push(scalar(Kind::None, Vec::new())),
            'O' if rng.below(3) == 0 => args.push(scalar(Kind::None, Vec::new())),
            'O' => args.push(tensor(rng, shapes)),
            'L' => {
                let n = rng.below(5);
                let items: Vec<u8> = (0..n)
                    .flat_map(|_| (rng.below(8) as i64 - 3).to_le_bytes())
                    .collect();
                args.push(scalar(Kind::IntList, items));
            }
            'X' => {
                let n = rng.below(4);
                args.push(scalar(Kind::TensorList, n.to_le_bytes().to_vec()));
                for _ in 0..n {
                    if rng.below(4) == 0 {
                        args.push(scalar(Kind::None, Vec::new()));
                    } else {
                        args.push(tensor(rng, shapes));
                    }
                }
            }
            _ => unreachable!("signature letter {c}"),
        }
    }
    // Now and then a kind at random, in place of one.
    if rng.below(10) == 0 && !args.is_empty() {
        let at = rng.below(args.len() as u64) as usize;
        args[at].kind = rng.pick(&[
            Kind::Int,
            Kind::Double,
            Kind::None,
            Kind::Tensor,
            Kind::BoolList,
        ]);
    }
    args
}

/// Runs `kernel` on `inputs` and one output; whether it ran.
fn call(
    kernel: &arenaplan_kernels::Kernel,
    inputs: Vec<Arg>,
    output: Arg,
    shapes: &[Vec<u32>],
) -> bool {
    let mut metas: Vec<Meta<'_>> = inputs
        .iter()
        .chain(std::iter::once(&output))
        .map(|a| Meta {
            kind: a.kind,
            dtype: a.dtype,
            dims: &shapes[a.dims],
            dim_order: &[],
        })
        .collect();
    if metas.len() > 32 {
        metas.truncate(32);
    }
    let views: Vec<&[u8]> = inputs.iter().map(|a| a.bytes.as_slice()).collect();
    let mut out = output.bytes;
    let mut rest: [&mut [u8]; 1] = [&mut out];
    let call = Call::new(&views, &mut rest, 1).unwrap();
    let Some(mut call) = call.with_meta(&metas) else {
        return false;
    };
    (kernel.run)(&mut call).is_ok()
}

#[test]
fn no_kernel_panics_on_any_arguments() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let shapes: Vec<Vec<u32>> = (0..48)
        .map(|_| {
            let rank = rng.below(5) as usize;
            (0..rank)
                .map(|_| rng.below(4) as u32 + u32::from(rng.below(3) == 0))
                .collect()
        })
        .collect();
    assert_eq!(
        SIGNATURES.len(),
        arenaplan_kernels::KERNELS.len(),
        "a signature per kernel"
    );
    let mut ran = 0;
    for &(op, signature) in SIGNATURES {
        let kernel = arenaplan_kernels::find(op).unwrap_or_else(|| panic!("{op}"));
        for _ in 0..4000 {
            let inputs = arguments(&mut rng, signature, &shapes);
            // A tensor, or (for the scalar operators) an int, a double or a bool.
            let output = match rng.below(4) {
                0 => int(&mut rng),
                1 => scalar(Kind::Double, vec![0; 8]),
                2 => scalar(Kind::Bool, vec![0]),
                _ => tensor(&mut rng, &shapes),
            };
            ran += usize::from(call(kernel, inputs, output, &shapes));
        }
    }
    // Well-formed calls were among them: the arguments reach the kernels' arithmetic.
    assert!(ran > 2000, "only {ran} calls ran");
}
