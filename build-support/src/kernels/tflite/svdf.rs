//! SVDF on `arm_svdf_s8` (int8 weights over time and state) and `arm_svdf_state_s16_s8`
//! (int16): the rescaling TFLM's `PrepareSvdf` computes, the state a variable tensor the call
//! reads and writes (`ap_tflite_svdf_params_t`), and the two int32 buffers TFLM asks its arena
//! for as one scratch.

use super::layout::Params;
use super::layouts::SvdfParams;
use super::quant::multiplier;
use super::registry::Kernel;
use super::row_sums::row_sums;
use super::tensors::{dims_ok, per_tensor, scale_and_zero};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program, ScratchByIsa, ValueKind};

/// SVDF (`SVDFOptions`: rank, activation — which TFLM's integer kernels do not apply).
pub(super) fn lower(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let rank = match options {
        Some(t) => t.i32(0, 0)?,
        None => return Ok(None),
    };
    // TFLM takes the bias as given: five inputs.
    let (&[input, features, time, bias, state], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let dims2 = |t: usize| -> Option<(i64, i64)> {
        match v(t).shape[..] {
            [a, b] if dims_ok(&[a, b]) => Some((a as i64, b as i64)),
            _ => None,
        }
    };
    let (
        Some((batches, input_size)),
        Some((filters, feature_cols)),
        Some((time_rows, memory)),
        Some((ob, units)),
    ) = (dims2(input), dims2(features), dims2(time), dims2(output))
    else {
        return Ok(None);
    };
    let state_width = match (v(time).dtype, v(state).dtype) {
        (DType::Int8, DType::Int8) => 1,
        (DType::Int16, DType::Int16) => 2,
        _ => return Ok(None),
    };
    // CMSIS-NN keeps the rank in 16 bits.
    if !(1..=i32::from(i16::MAX)).contains(&rank)
        || !dims_ok(&v(state).shape)
        || filters % i64::from(rank) != 0
        || units != filters / i64::from(rank)
        || feature_cols != input_size
        || time_rows != filters
        || ob != batches
        || v(input).dtype != DType::Int8
        || v(features).dtype != DType::Int8
        || v(output).dtype != DType::Int8
        || v(bias).dtype != DType::Int32
        || v(bias).shape != [units as u64]
        || Some(v(state).shape.as_slice())
            != memory
                .checked_mul(filters)
                .map(|n| [batches as u64, n as u64])
                .as_ref()
                .map(|s| &s[..])
        || v(state).kind != ValueKind::Planned
        || ![features, time, bias]
            .iter()
            .all(|&t| v(t).kind == ValueKind::Constant)
        || !program.state.contains(&state)
    {
        return Ok(None);
    }
    let (
        Some((in_scale, in_zero)),
        Some((f_scale, _)),
        Some((t_scale, _)),
        Some((b_scale, _)),
        Some((s_scale, s_zero)),
        Some((out_scale, out_zero)),
    ) = (
        per_tensor(program, input),
        scale_and_zero(program, features),
        scale_and_zero(program, time),
        scale_and_zero(program, bias),
        scale_and_zero(program, state),
        per_tensor(program, output),
    )
    else {
        return Ok(None);
    };
    let Ok(s_zero) = i32::try_from(s_zero) else {
        return Ok(None);
    };
    // In float, then widened, as TFLM computes them.
    let scale_1 = f64::from(in_scale * f_scale / s_scale);
    let scale_2 = f64::from(s_scale * t_scale / out_scale);
    if (f64::from(b_scale) - f64::from(s_scale * t_scale)).abs() >= 1e-5 {
        return Ok(None); // TFLM's check that the bias is on the product's scale
    }
    let (Some((m1, s1)), Some((m2, s2))) = (multiplier(scale_1), multiplier(scale_2)) else {
        return Ok(None);
    };
    // The state is clamped to its type, as TFLM's reference kernel stores it.
    let (state_min, state_max) = match state_width {
        1 => (i32::from(i8::MIN), i32::from(i8::MAX)),
        _ => (i32::from(i16::MIN), i32::from(i16::MAX)),
    };
    // arm_svdf_s8 starts each filter from its weights' sum times the offsets, which TFLM
    // computes once: here at build time, in flash.
    let mut constants = Vec::new();
    if state_width == 1 {
        let Some(sums) = row_sums(program, features, None, filters as usize, -in_zero, -s_zero)
        else {
            return Ok(None);
        };
        constants.push(("feature_sums", sums));
    }
    // TFLM's two int32 buffers: one per filter, then one per unit, each batch.
    let Some(scratch) = filters
        .checked_add(units)
        .and_then(|n| n.checked_mul(batches))
        .and_then(|n| n.checked_mul(4))
    else {
        return Ok(None);
    };
    Ok(Some(Lowered {
        kernel: Kernel::SVDF,
        constants,
        params: Some(
            SvdfParams {
                rank,
                input_zero_point: in_zero,
                output_zero_point: out_zero,
                multiplier_1: m1,
                shift_1: s1,
                multiplier_2: m2,
                shift_2: s2,
                batches: batches as i32,
                input_size: input_size as i32,
                filters: filters as i32,
                memory_size: memory as i32,
                state_min,
                state_max,
            }
            .words(),
        ),
        scratch: Some(ScratchByIsa {
            plain: scratch as u64,
            dsp: scratch as u64,
            mve: scratch as u64,
            function: "TFLM's SVDF buffers (batches × (filters + units) × 4)",
            optional: false,
        }),
    }))
}
