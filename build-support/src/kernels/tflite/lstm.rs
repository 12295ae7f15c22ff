//! UNIDIRECTIONAL_SEQUENCE_LSTM on `arm_lstm_unidirectional_s8`: int8 input, output and hidden
//! state, int8 weights, int32 biases, int16 cell state, no peepholes, projection or layer
//! normalisation — the integer LSTM TFLite's converter makes. The gate parameters are TFLM's
//! `PrepareGateParametersInteger` (each gate's two fully connected layers into Q3.12, the
//! products between gates), the row sums CMSIS-NN's kernel starts from are a build-time
//! constant, and the hidden and cell state are the model's variable tensors, which the call
//! reads and writes: they carry from one invocation to the next, as TFLM's kernels keep them.
//! `ap_tflite_lstm_params_t` is the layout.

use super::layout::Params;
use super::layouts::{LstmGate, LstmParams};
use super::quant::multiplier;
use super::registry::Kernel;
use super::row_sums::row_sums;
use super::tensors::{dims_ok, per_tensor, scale_and_zero};
use super::Lowered;
use crate::import::flatbuf::Table;
use crate::import::ImportError;
use crate::model::{DType, Program, ScratchByIsa, ValueKind};

/// The scale of a gate's pre-activation (Q3.12) and of its activation's output (Q0.15).
const GATE_INPUT_SCALE: f32 = 1.0 / 4096.0;
const GATE_OUTPUT_SCALE: f32 = 1.0 / 32768.0;
/// `kTfLiteActTanh`: the cell gate's activation when the options say so (else sigmoid).
const TANH: i8 = 4;

/// The inputs of the integer LSTM, as the call lists them with the absent optional ones left
/// out: the input, the four input and four recurrent weights (input, forget, cell, output
/// gates), the four biases, the hidden and the cell state.
struct Inputs {
    input: usize,
    input_weights: [usize; 4],
    recurrent_weights: [usize; 4],
    biases: [usize; 4],
    hidden: usize,
    cell: usize,
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM (`UnidirectionalSequenceLSTMOptions`: activation, cell clip,
/// projection clip, time major, ...).
pub(super) fn lower(
    program: &Program,
    options: Option<Table<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let Some(t) = options else {
        return Ok(None);
    };
    let activation = t.i8(0, 0)?;
    let cell_clip = f32::from_bits(t.u32(1, 0)?);
    let time_major = t.bool(3, false)?;
    // Of the 24 inputs, the 15 this variant has; any optional one present makes more.
    let (&[input, ii, if_, ic, io, ri, rf, rc, ro, bi, bf, bc, bo, hidden, cell], &[output]) =
        (inputs, outputs)
    else {
        return Ok(None);
    };
    let x = Inputs {
        input,
        input_weights: [ii, if_, ic, io],
        recurrent_weights: [ri, rf, rc, ro],
        biases: [bi, bf, bc, bo],
        hidden,
        cell,
    };
    Ok(integer_lstm(
        program, &x, output, activation, cell_clip, time_major,
    ))
}

/// The integer LSTM of inputs `x`, when CMSIS-NN's kernel runs it.
fn integer_lstm(
    program: &Program,
    x: &Inputs,
    output: usize,
    activation: i8,
    cell_clip: f32,
    time_major: bool,
) -> Option<Lowered> {
    let v = |t: usize| &program.values[t];
    let [d0, d1, input_size] = dims(program, x.input)?;
    let (batches, steps) = if time_major { (d1, d0) } else { (d0, d1) };
    let [hb, hidden_size] = dims(program, x.hidden)?;
    let constants_ok = x
        .input_weights
        .iter()
        .chain(&x.recurrent_weights)
        .chain(&x.biases)
        .all(|&t| v(t).kind == ValueKind::Constant && v(t).data.is_some());
    let shapes_ok = x
        .input_weights
        .iter()
        .all(|&w| v(w).shape == [hidden_size, input_size])
        && x.recurrent_weights
            .iter()
            .all(|&w| v(w).shape == [hidden_size, hidden_size])
        && x.biases
            .iter()
            .all(|&b| v(b).shape == [hidden_size] && v(b).dtype == DType::Int32)
        && hb == batches
        && v(x.cell).shape == [batches, hidden_size]
        && v(output).shape == [d0, d1, hidden_size];
    let types_ok = [x.input, x.hidden, output]
        .iter()
        .all(|&t| v(t).dtype == DType::Int8)
        && x.input_weights
            .iter()
            .chain(&x.recurrent_weights)
            .all(|&w| v(w).dtype == DType::Int8)
        && v(x.cell).dtype == DType::Int16;
    let state_ok = program.state.contains(&x.hidden) && program.state.contains(&x.cell);
    if !constants_ok || !shapes_ok || !types_ok || !state_ok {
        return None;
    }
    let (in_scale, in_zero) = per_tensor(program, x.input)?;
    let (hidden_scale, hidden_zero) = per_tensor(program, x.hidden)?;
    let (cell_scale, _) = scale_and_zero(program, x.cell)?;
    let weight_scale = |w: usize| scale_and_zero(program, w).map(|(s, _)| s);
    // Each gate's two fully connected layers into the gate's Q3.12 input (TFLM's
    // CreateGateParams: GetQuantizedConvolutionMultipler, in double).
    let to_gate = |from_scale: f32, w: usize| {
        weight_scale(w).and_then(|ws| {
            multiplier(f64::from(from_scale) * f64::from(ws) / f64::from(GATE_INPUT_SCALE))
        })
    };
    // The products between gates (CreateInterGateMulParams).
    let product =
        |a: f32, b: f32, out: f32| multiplier(f64::from(a) * f64::from(b) / f64::from(out));
    let forget_cell = product(GATE_OUTPUT_SCALE, cell_scale, cell_scale)?;
    let input_cell = product(GATE_OUTPUT_SCALE, GATE_OUTPUT_SCALE, cell_scale)?;
    let to_hidden = product(GATE_OUTPUT_SCALE, GATE_OUTPUT_SCALE, hidden_scale)?;
    // CreateLstmCellStateInfo: the cell scale's power of two, the clip in its units.
    // A cell scale no kernel can take (zero, negative, not finite, far from 1) is refused.
    if !(cell_scale.is_finite() && cell_scale > 0.0) {
        return None;
    }
    let cell_power = (cell_scale.ln() * (1.0 / 2f32.ln())).round() as i32;
    if !(-31..=31).contains(&cell_power) {
        return None;
    }
    let quantized_clip =
        (f64::from(cell_clip) / f64::from(cell_scale)).clamp(-32768.0, 32767.0) as i16;
    let hidden_n = hidden_size as usize;
    // CMSIS-NN's gate order: forget, input, cell, output (the model's is input, forget, cell,
    // output).
    let mut sums = Vec::with_capacity(8 * hidden_n);
    let mut hidden_sums = Vec::with_capacity(4 * hidden_n);
    let mut gates = Vec::with_capacity(4);
    for gate in [1usize, 0, 2, 3] {
        let (input_multiplier, input_shift) = to_gate(in_scale, x.input_weights[gate])?;
        let (hidden_multiplier, hidden_shift) = to_gate(hidden_scale, x.recurrent_weights[gate])?;
        let kind = if gate == 2 && activation == TANH {
            1
        } else {
            0
        };
        gates.push(LstmGate {
            input_multiplier,
            input_shift,
            hidden_multiplier,
            hidden_shift,
            activation: kind,
        });
        // The input layer's rows summed times the input offset, plus the bias; the recurrent
        // layer's times the hidden state's offset.
        sums.extend(row_sums(
            program,
            x.input_weights[gate],
            Some(x.biases[gate]),
            hidden_n,
            -in_zero,
            0,
        )?);
        hidden_sums.extend(row_sums(
            program,
            x.recurrent_weights[gate],
            None,
            hidden_n,
            -hidden_zero,
            0,
        )?);
    }
    let &[forget_gate, input_gate, cell_gate, output_gate] = &gates[..] else {
        return None;
    };
    let params = LstmParams {
        time_major: i32::from(time_major),
        batches: batches as i32,
        time_steps: steps as i32,
        input_size: input_size as i32,
        hidden_size: hidden_size as i32,
        input_offset: -in_zero,
        forget_to_cell_multiplier: forget_cell.0,
        forget_to_cell_shift: forget_cell.1,
        input_to_cell_multiplier: input_cell.0,
        input_to_cell_shift: input_cell.1,
        cell_clip: i32::from(quantized_clip),
        cell_scale_power: cell_power,
        output_multiplier: to_hidden.0,
        output_shift: to_hidden.1,
        output_offset: hidden_zero,
        forget_gate,
        input_gate,
        cell_gate,
        output_gate,
    };
    sums.extend(hidden_sums);
    // TFLM's two int16 buffers of one step's gates.
    let scratch = batches.checked_mul(hidden_size)?.checked_mul(4)?;
    Some(Lowered {
        kernel: Kernel::UNIDIRECTIONAL_SEQUENCE_LSTM,
        constants: vec![("row_sums", sums)],
        params: Some(params.words()),
        scratch: Some(ScratchByIsa {
            plain: scratch,
            dsp: scratch,
            mve: scratch,
            function: "TFLM's LSTM buffers (2 × batches × hidden × 2)",
            optional: false,
        }),
    })
}

/// A tensor's dimensions, each positive and within int32, when it has `N`.
fn dims<const N: usize>(program: &Program, t: usize) -> Option<[u64; N]> {
    let s: [u64; N] = program.values[t].shape.as_slice().try_into().ok()?;
    dims_ok(&s).then_some(s)
}
