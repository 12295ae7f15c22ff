//! The CMSIS-NN buffer the Cortex-M backend's operators take as their `scratch` argument,
//! sized for the core the build runs them on.
//!
//! ExecuTorch's exporter plans each such buffer as a tensor of the program, sized for the core
//! it lowered for (`passes/scratch_buffer_sizes.py`: Helium on a Cortex-M55). CMSIS-NN's buffer
//! differs by instruction set (an im2col row on plain C and DSP, another on Helium), and its
//! kernels trust the size they are given. So the build resizes each buffer to what the
//! variant it links needs, by the same rules as the TFLite kernels' ([`cmsis_nn`]): a host run
//! of a Cortex-M55 program gets the plain-C figure, the firmware the Helium one. The kernels
//! are compiled with `CORTEX_M_ENABLE_RUNTIME_CHECKS`, so a size that still disagrees fails the
//! call rather than overrun the buffer.
//!
//! [`cmsis_nn`]: crate::kernels::tflite::cmsis_nn

use crate::kernels::tflite::cmsis_nn::{
    avgpool_s8, convolve_wrapper_s8, depthwise_conv_wrapper_s8, Conv, Dims,
};
use crate::model::{EValue, Instruction, Isa, KernelCall, Program, ScratchByIsa, ValueId};

use super::signature;

/// Resizes the `scratch` argument of every Cortex-M operator call whose CMSIS-NN buffer
/// arenaplan can compute (convolution, depthwise convolution, average pool) to what `isa`'s
/// kernels need. A call whose shapes or parameters are not what the kernel reads is left as
/// the exporter made it (the kernel refuses it at run time).
pub fn size_scratch_for(program: &mut Program, isa: Isa) {
    let mut sizes: Vec<(ValueId, u64)> = Vec::new();
    for (_, instruction) in program.flat_instructions() {
        let Instruction::Kernel(call) = instruction else {
            continue;
        };
        if let Some((scratch, need)) = need(program, call) {
            let bytes = need.bytes(isa);
            match sizes.iter_mut().find(|(v, _)| *v == scratch) {
                Some((_, b)) => *b = (*b).max(bytes),
                None => sizes.push((scratch, bytes)),
            }
        }
    }
    for (v, bytes) in sizes {
        let value = &mut program.values[v];
        value.shape = vec![bytes];
        value.bytes = bytes;
    }
}

/// The instruction set `program`'s Cortex-M operators were lowered for: the one whose buffers
/// are every one of them the exporter's size (the exporter sizes them for its core). `None`
/// when the program has no such buffer or no instruction set fits them all.
///
/// ```
/// let program = arenaplan_build::model::Program::new("no_cortex_m_calls");
/// assert_eq!(arenaplan_build::executorch::cortex_m_scratch::lowered_for(&program), None);
/// ```
pub fn lowered_for(program: &Program) -> Option<Isa> {
    let needs: Vec<(u64, ScratchByIsa)> = program
        .flat_instructions()
        .into_iter()
        .filter_map(|(_, i)| match i {
            Instruction::Kernel(call) => need(program, call),
            _ => None,
        })
        .map(|(v, need)| (program.values[v].bytes, need))
        .collect();
    if needs.is_empty() {
        return None;
    }
    [Isa::Mve, Isa::Dsp, Isa::Plain]
        .into_iter()
        .find(|&isa| needs.iter().all(|(bytes, need)| need.bytes(isa) == *bytes))
}

/// The scratch argument of `call` and the buffer its CMSIS-NN kernel needs, if it is a
/// Cortex-M operator with one arenaplan computes.
fn need(program: &Program, call: &KernelCall) -> Option<(ValueId, ScratchByIsa)> {
    let sig = signature(&call.op)?;
    let arg = |name: &str| -> Option<ValueId> {
        let at = sig.args.iter().position(|(_, n)| *n == name)?;
        call.inputs.get(at).copied()
    };
    let scratch = arg("scratch")?;
    let value = &program.values[scratch];
    if value.evalue != EValue::Tensor || value.data.is_some() {
        return None;
    }
    let nchw = |v: ValueId| -> Option<Dims> {
        let value = &program.values[v];
        let s: Vec<i64> = value
            .shape
            .iter()
            .map(|&d| i64::try_from(d).ok())
            .collect::<Option<_>>()?;
        let [n, c, h, w] = s[..] else { return None };
        Some(Dims { n, h, w, c })
    };
    let ints = |name: &str| -> Option<(i64, i64)> {
        let list = int_list(program, arg(name)?)?;
        let [h, w] = list[..] else { return None };
        Some((h, w))
    };
    let input = nchw(arg("input")?)?;
    let output = nchw(*call.outputs.first()?)?;
    let need = match call.op.as_str() {
        "cortex_m::quantized_conv2d.out" | "cortex_m::quantized_depthwise_conv2d.out" => {
            let conv = Conv {
                stride: ints("stride")?,
                padding: ints("padding")?,
                dilation: ints("dilation")?,
            };
            // Weights are [out, kh, kw, in] (depthwise: [1, kh, kw, out]).
            let weight = &program.values[arg("weight")?].shape;
            let [o, kh, kw, i] = weight[..] else {
                return None;
            };
            let d = |x: u64| i64::try_from(x).ok();
            if call.op.ends_with("quantized_conv2d.out") {
                let filter = Dims {
                    n: d(o)?,
                    h: d(kh)?,
                    w: d(kw)?,
                    c: d(i)?,
                };
                convolve_wrapper_s8(&conv, input, filter, output)
            } else {
                let filter = Dims {
                    n: 1,
                    h: d(kh)?,
                    w: d(kw)?,
                    c: output.c,
                };
                depthwise_conv_wrapper_s8(&conv, input, filter, output)
            }
        }
        "cortex_m::quantized_avg_pool2d.out" => avgpool_s8(input.c),
        _ => return None,
    };
    Some((scratch, need))
}

/// A constant int list's elements.
fn int_list(program: &Program, v: ValueId) -> Option<Vec<i64>> {
    let value = &program.values[v];
    if value.evalue != EValue::IntList {
        return None;
    }
    let bytes = value.data.as_ref()?.bytes();
    Some(
        bytes
            .chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
    )
}
