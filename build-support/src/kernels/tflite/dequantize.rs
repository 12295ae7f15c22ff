//! DEQUANTIZE to float32: TFLM's `Dequantize`, ported (CMSIS-NN has no kernel for it):
//! `ap_tflite_dequantize_params_t`.

use super::layout::Params;
use super::layouts::DequantizeParams;
use super::quant::fits;
use super::registry::Kernel;
use super::tensors::scale_and_zero;
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program};

/// DEQUANTIZE of an int8 or int16 tensor to float32 (TFLM's `Dequantize`: the scale in double
/// times the value less the zero point, then float): `ap_tflite_dequantize_params_t`.
pub(super) fn lower(
    program: &Program,
    _options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let in_width = match v(input).dtype {
        DType::Int8 => 1,
        DType::Int16 => 2,
        _ => return Ok(None),
    };
    let Some((scale, zero)) = scale_and_zero(program, input) else {
        return Ok(None);
    };
    if v(output).dtype != DType::Float32
        || v(input).shape != v(output).shape
        || !fits(zero, in_width)
    {
        return Ok(None);
    }
    Ok(Some(Lowered {
        kernel: Kernel::DEQUANTIZE,
        constants: Vec::new(),
        params: Some(
            DequantizeParams {
                zero_point: zero as i32,
                scale_bits: scale.to_bits() as i32,
                input_width: in_width as i32,
            }
            .words(),
        ),
        scratch: None,
    }))
}
