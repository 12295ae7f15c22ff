//! PAD and PADV2, ported from TFLM's reference kernel (no arithmetic on the values; an int8
//! tensor keeps its quantization, as TFLM requires): `ap_tflite_pad_params_t`.

use super::layout::Params;
use super::layouts::PadParams;
use super::registry::Kernel;
use super::tensors::{ints, moved_width, scale_and_zero, MAX_DIM, RANK};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program, ValueKind};

/// PAD and PADV2 (paddings constant `[rank, 2]`; PADV2's constant value): `ap_tflite_pad_params_t`.
/// The value padded with is PADV2's, else TFLM's default — an int8 output's zero point, zero
/// otherwise.
pub(super) fn lower(
    program: &Program,
    _options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, paddings, ref rest @ ..], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let rank = v(input).shape.len();
    let Some(w) = moved_width(v(input).dtype) else {
        return Ok(None);
    };
    if rank == 0
        || rank > RANK
        || rest.len() > 1
        || v(output).dtype != v(input).dtype
        || v(output).shape.len() != rank
        || v(paddings).kind != ValueKind::Constant
        || (v(input).dtype == DType::Int8
            && scale_and_zero(program, input) != scale_and_zero(program, output))
    {
        return Ok(None);
    }
    let Some(pads) = ints(program, paddings).filter(|p| p.len() == 2 * rank) else {
        return Ok(None);
    };
    let value: i32 = match rest.first() {
        Some(&c) => {
            let Some(bytes) = v(c).data.as_ref().map(|d| d.bytes()) else {
                return Ok(None);
            };
            if v(c).dtype != v(input).dtype || bytes.len() != w as usize {
                return Ok(None);
            }
            let mut word = [0u8; 4];
            word[..bytes.len()].copy_from_slice(bytes);
            match w {
                1 => i32::from(bytes[0] as i8),
                2 => i32::from(i16::from_le_bytes([bytes[0], bytes[1]])),
                _ => i32::from_le_bytes(word),
            }
        }
        None => match (v(output).dtype, scale_and_zero(program, output)) {
            (DType::Int8, Some((_, zero))) => zero as i32,
            _ => 0,
        },
    };
    // Leading dimensions of 1 up to five, as TFLM pads them.
    let mut dims = [[1, 0, 0]; RANK];
    for (d, extent) in dims.iter_mut().enumerate() {
        let Some(k) = (d + rank).checked_sub(RANK) else {
            continue;
        };
        let (before, after) = (pads[2 * k], pads[2 * k + 1]);
        let dim = v(input).shape[k];
        let fits = |x: i64| (0..=MAX_DIM as i64).contains(&x);
        if !fits(before) || !fits(after) || !(1..=MAX_DIM).contains(&dim) {
            return Ok(None);
        }
        if dim as i64 + before + after != v(output).shape[k] as i64 {
            return Ok(None);
        }
        *extent = [dim as i32, before as i32, after as i32];
    }
    let params = PadParams {
        width: w,
        value,
        dims,
    };
    Ok(Some(Lowered {
        kernel: Kernel::PAD,
        constants: Vec::new(),
        params: Some(params.words()),
        scratch: None,
    }))
}
