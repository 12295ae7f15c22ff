//! The quantization of a method's inputs and outputs, read from the constant methods ExecuTorch
//! adds when a program takes or returns integers.
//!
//! A `.pte` tensor carries no scale or zero point. When an export removes the quantize of an
//! input or the dequantize of an output (`QuantizeInputs`/`QuantizeOutputs`, or
//! `extract_io_quant_params`), ExecuTorch records the parameters as *constant methods*, methods
//! without instructions that return one value each, named `[<method>_]<side><index>_<key>`:
//! `forward_input0_scale` (a double), `forward_input0_zp` (an int), and `_dtype` (the integer
//! type's ExecuTorch code), `_quant_min`, `_quant_max`. Without the method's prefix, the names
//! belong to the program's only method that is not a constant method.
//!
//! The parameters reach the value only when they agree with it: a double scale that is a finite,
//! positive `f32`, an int zero point, an integer tensor, and the `_dtype` method, when there is
//! one, naming that tensor's type. Anything else is some other constant of the program and is
//! left alone: the names are a convention, not a format.

use super::values::scalar_type;
use crate::model::{EValue, Program, Quantization};

/// Gives each method's inputs and outputs the quantization its constant methods record.
pub(super) fn attach(methods: &mut [(String, Program)]) {
    let constants: Vec<(String, Scalar)> = methods
        .iter()
        .filter_map(|(name, p)| Some((name.clone(), constant_result(p)?)))
        .collect();
    let lookup = |name: &str| constants.iter().find(|(n, _)| n == name).map(|(_, s)| *s);
    let computing = methods.len() - constants.len();
    for (method, program) in methods.iter_mut() {
        if constant_result(program).is_some() {
            continue;
        }
        let prefixes: Vec<String> = if computing == 1 {
            vec![format!("{method}_"), String::new()]
        } else {
            vec![format!("{method}_")]
        };
        for (side, ids) in [
            ("input", program.inputs.clone()),
            ("output", program.outputs.clone()),
        ] {
            for (index, v) in ids.into_iter().enumerate() {
                let found = prefixes.iter().find_map(|prefix| {
                    let key = |k: &str| lookup(&format!("{prefix}{side}{index}_{k}"));
                    Some((key("scale")?, key("zp")?, key("dtype")))
                });
                let Some((scale, zero, dtype)) = found else {
                    continue;
                };
                let value = &mut program.values[v];
                if let Some(quant) = quantization(value.dtype, scale, zero, dtype) {
                    value.quant = Some(quant);
                }
            }
        }
    }
}

/// A constant method's one result.
#[derive(Clone, Copy)]
enum Scalar {
    Int(i64),
    Double(f64),
}

/// What a method returns when it is a constant method: no inputs, no instructions, one result
/// that is an int or a double the program holds.
fn constant_result(program: &Program) -> Option<Scalar> {
    if !program.body.is_empty() || !program.inputs.is_empty() {
        return None;
    }
    let [out] = program.outputs.as_slice() else {
        return None;
    };
    let value = program.values.get(*out)?;
    let bytes: [u8; 8] = value.data.as_ref()?.bytes().try_into().ok()?;
    match value.evalue {
        EValue::Int => Some(Scalar::Int(i64::from_le_bytes(bytes))),
        EValue::Double => Some(Scalar::Double(f64::from_le_bytes(bytes))),
        _ => None,
    }
}

/// The parameters, when they fit the value: an integer tensor, a finite positive scale, an int
/// zero point within the type's range, and the recorded type (if any) the tensor's own.
fn quantization(
    tensor: crate::model::DType,
    scale: Scalar,
    zero: Scalar,
    recorded: Option<Scalar>,
) -> Option<Quantization> {
    use crate::model::DType;
    let range = match tensor {
        DType::Int8 => -128..=127,
        DType::UInt8 => 0..=255,
        DType::Int16 => -32768..=32767,
        DType::UInt16 => 0..=65535,
        DType::Int32 => i64::from(i32::MIN)..=i64::from(i32::MAX),
        _ => return None,
    };
    let (Scalar::Double(scale), Scalar::Int(zero)) = (scale, zero) else {
        return None;
    };
    let scale = scale as f32;
    if !(scale.is_finite() && scale > 0.0 && range.contains(&zero)) {
        return None;
    }
    match recorded {
        None => {}
        Some(Scalar::Int(code)) => {
            let code = i8::try_from(code).ok()?;
            if scalar_type(code).map(|(d, _)| d) != Some(tensor) {
                return None;
            }
        }
        Some(Scalar::Double(_)) => return None,
    }
    Some(Quantization {
        scale_bits: vec![scale.to_bits()],
        zero_point: vec![zero],
        axis: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DType;

    #[test]
    fn parameters_that_fit_the_tensor_are_kept() {
        let q = quantization(
            DType::Int8,
            Scalar::Double(0.25),
            Scalar::Int(-3),
            Some(Scalar::Int(1)),
        )
        .unwrap();
        assert_eq!(q.per_tensor(), Some((0.25, -3)));
    }

    #[test]
    fn parameters_that_do_not_fit_are_left_alone() {
        let d = |x| Scalar::Double(x);
        let i = |x| Scalar::Int(x);
        // A float tensor, a scale that is not positive or not an f32, a zero point out of
        // range, a recorded type that is another (uint8 = 0), types swapped.
        assert!(quantization(DType::Float32, d(0.5), i(0), None).is_none());
        assert!(quantization(DType::Int8, d(0.0), i(0), None).is_none());
        assert!(quantization(DType::Int8, d(-1.0), i(0), None).is_none());
        assert!(quantization(DType::Int8, d(1e300), i(0), None).is_none());
        assert!(quantization(DType::Int8, d(f64::NAN), i(0), None).is_none());
        assert!(quantization(DType::Int8, d(0.5), i(128), None).is_none());
        assert!(quantization(DType::Int8, d(0.5), i(0), Some(i(0))).is_none());
        assert!(quantization(DType::Int8, i(1), d(0.5), None).is_none());
        assert!(quantization(DType::UInt8, d(0.5), i(255), Some(i(0))).is_some());
    }
}
