//! The kernels index memory in the order of a tensor's dimensions: a tensor the program lays
//! out in another dim order (channels-last) is refused, never read or written in the wrong
//! order; the identity order is contiguous and runs.

use arenaplan::{Call, Error, Kind, Meta};

const DIMS: [u32; 4] = [1, 2, 2, 2];
const NHWC: [u8; 4] = [0, 2, 3, 1];
const IDENTITY: [u8; 4] = [0, 1, 2, 3];

/// `aten::add.out(a, b, alpha=1, out)` on float32 [1, 2, 2, 2], with the given dim orders of
/// `a` and `out`.
fn add(a_order: &'static [u8], out_order: &'static [u8]) -> Result<Vec<f32>, Error> {
    let kernel = arenaplan_kernels::find("aten::add.out").unwrap();
    let tensor = |order: &'static [u8]| Meta {
        kind: Kind::Tensor,
        dtype: 6,
        dims: &DIMS,
        dim_order: order,
    };
    let int = Meta {
        kind: Kind::Int,
        dtype: 0,
        dims: &[],
        dim_order: &[],
    };
    let metas = [tensor(a_order), tensor(&[]), int, tensor(out_order)];
    let a: Vec<u8> = (0..8).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let b: Vec<u8> = (0..8).flat_map(|_| 10f32.to_le_bytes()).collect();
    let alpha = 1i64.to_le_bytes();
    let mut out = vec![0u8; 32];
    let inputs: [&[u8]; 3] = [&a, &b, &alpha];
    let mut rest: [&mut [u8]; 1] = [&mut out];
    let mut call = Call::new(&inputs, &mut rest, 1)
        .unwrap()
        .with_meta(&metas)
        .unwrap();
    (kernel.run)(&mut call)?;
    Ok(out
        .chunks(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect())
}

#[test]
fn contiguous_tensors_run() {
    let expected: Vec<f32> = (0..8).map(|i| i as f32 + 10.0).collect();
    assert_eq!(add(&[], &[]), Ok(expected.clone()));
    assert_eq!(add(&IDENTITY, &IDENTITY), Ok(expected));
}

#[test]
fn a_channels_last_input_or_output_is_refused() {
    assert_eq!(add(&NHWC, &[]), Err(Error::BadArguments));
    assert_eq!(add(&[], &NHWC), Err(Error::BadArguments));
}
