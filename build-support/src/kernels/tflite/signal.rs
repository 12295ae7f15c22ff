//! TFLite Micro's signal library: the custom operators of its audio front end (`SignalWindow`,
//! `SignalFftAutoScale`, `SignalRfft`, `SignalEnergy`, `SignalFilterBank`,
//! `SignalFilterBankSquareRoot`, `SignalFilterBankSpectralSubtraction`, `SignalPCAN`,
//! `SignalFilterBankLog`), on the runtime's ports of their fixed-point code
//! (`runtime-c/kernels/tflite/signal_*.c`): the options TFLM reads from the operator's FlexBuffers map at init,
//! read here by the same positions, with the checks TFLM's prepare makes and the ones its eval
//! assumes (a shift in range, indices inside their tensors), so a call the kernel would run off
//! its buffers is refused at build time instead.
//!
//! What TFLM keeps in its arena's persistent part is not RAM here: the FFT's twiddle factors
//! are computed at build time (as kissfft computes them when TFLM allocates its state) into
//! constants in flash, and the FFT needs no work area (it reads its input zero-padded in place
//! and turns its half-length complex transform into the real one in its output). The spectral
//! subtraction's noise estimate is state: planned for the whole program, zero at start, as
//! TFLM's reset leaves it.

use super::{Lowered, MAX_DIM};
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::model::{ConstantData, DType, Program, Value};

/// What a signal operator becomes, and the state it keeps, if any.
pub(super) struct LoweredSignal {
    pub(super) lowered: Lowered,
    pub(super) state: Option<Value>,
}

/// A lowering: the program, the options map, the call's inputs and outputs.
type SignalLowering =
    fn(&Program, Option<&Map<'_>>, &[usize], &[usize]) -> Result<Option<Lowered>, ImportError>;

/// The lowering of custom operator `name`, when it is one of the signal library's this
/// runtime runs and the call is one its kernel takes; `options` is its FlexBuffers map.
pub(super) fn lower(
    program: &Program,
    name: &str,
    options: Option<&[u8]>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<LoweredSignal>, ImportError> {
    let lowering: SignalLowering = match name {
        "SignalWindow" => window,
        "SignalFftAutoScale" => fft_auto_scale,
        "SignalRfft" => rfft,
        "SignalEnergy" => energy,
        "SignalFilterBank" => filter_bank,
        "SignalFilterBankSquareRoot" => filter_bank_square_root,
        "SignalFilterBankSpectralSubtraction" => {
            return spectral_subtraction(program, options, inputs, outputs)
        }
        "SignalPCAN" => pcan,
        "SignalFilterBankLog" => filter_bank_log,
        _ => return Ok(None),
    };
    let map = options.map(Map::root).transpose()?;
    Ok(
        lowering(program, map.as_ref(), inputs, outputs)?.map(|lowered| LoweredSignal {
            lowered,
            state: None,
        }),
    )
}

/// Option `name` at position `i`, when it fits an int32 (TFLM's `ElementAsInt32` truncates
/// what does not; such a model is refused instead).
fn option(map: Option<&Map<'_>>, i: usize, name: &str) -> Result<Option<i32>, ImportError> {
    let Some(map) = map else {
        return Ok(None);
    };
    Ok(i32::try_from(map.int(i, name)?).ok())
}

/// Tensor `t`'s element count when it has `dtype` and, with `rank`, that many dimensions; each
/// extent positive and the kernels' limit at most.
fn count(program: &Program, t: usize, dtype: DType, rank: Option<usize>) -> Option<i32> {
    let v = &program.values[t];
    if v.dtype != dtype || rank.is_some_and(|r| v.shape.len() != r) {
        return None;
    }
    let n = v.shape.iter().try_fold(1u64, |acc, &d| {
        (1..=MAX_DIM)
            .contains(&d)
            .then(|| acc.checked_mul(d))
            .flatten()
    })?;
    i32::try_from(n).ok().filter(|&n| n <= MAX_DIM as i32 * 64)
}

fn lowered(
    op: &'static str,
    constants: Vec<(&'static str, Vec<i32>)>,
    params: Vec<i32>,
) -> Option<Lowered> {
    Some(Lowered {
        op,
        constants,
        params: Some(params),
        scratch: None,
    })
}

/// SignalWindow (option `shift`): int16 input, int16 weights of one frame, int16 output;
/// `ap_tflite_window_params_t`.
fn window(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, weights], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let Some(shift) = option(map, 0, "shift")? else {
        return Ok(None);
    };
    let n = count(program, input, DType::Int16, None);
    let frame = count(program, weights, DType::Int16, Some(1));
    let out = count(program, output, DType::Int16, None);
    let rank_ok = program.values[input].shape.len() == program.values[output].shape.len();
    Ok(match (n, frame, out) {
        (Some(n), Some(frame), Some(out))
            if n == out && frame > 0 && n % frame == 0 && rank_ok && (0..32).contains(&shift) =>
        {
            lowered("SignalWindow", Vec::new(), vec![shift, frame, n])
        }
        _ => None,
    })
}

/// SignalFftAutoScale: a 1-D int16 input scaled up to use int16's range, and the int32 scalar
/// of bits it was shifted by; `ap_tflite_count_params_t`.
fn fft_auto_scale(
    program: &Program,
    _map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output, bits]) = (inputs, outputs) else {
        return Ok(None);
    };
    let n = count(program, input, DType::Int16, Some(1));
    let out = count(program, output, DType::Int16, Some(1));
    let bits = count(program, bits, DType::Int32, None);
    Ok(match (n, out, bits) {
        (Some(n), Some(out), Some(1)) if n == out => {
            lowered("SignalFftAutoScale", Vec::new(), vec![n])
        }
        _ => None,
    })
}

/// The largest FFT length taken (kissfft's state is this many complex twiddles).
const MAX_FFT: i32 = 1 << 16;

/// kissfft's `kf_factor`: radices 4 first, then 2, then odd numbers, as (radix, remaining
/// length) pairs.
fn kissfft_factors(n: u32) -> Vec<(u32, u32)> {
    let floor_sqrt = f64::from(n).sqrt().floor() as u32;
    let (mut n, mut p, mut out) = (n, 4u32, Vec::new());
    loop {
        while n % p != 0 {
            p = match p {
                4 => 2,
                2 => 3,
                _ => p + 2,
            };
            if p > floor_sqrt {
                p = n;
            }
        }
        n /= p;
        out.push((p, n));
        if n <= 1 {
            return out;
        }
    }
}

/// kissfft's fixed-point `kf_cexp`: cos and sin of `phase` in Q15, rounded as it rounds, as one
/// complex int16 word (real in the low half).
fn cexp(phase: f64) -> i32 {
    let q15 = |x: f64| (0.5 + 32767.0 * x).floor() as i16 as u16;
    i32::from(q15(phase.cos())) | (i32::from(q15(phase.sin())) << 16)
}

/// kissfft's twiddles of an `ncfft`-point complex FFT and kissfft_r's super twiddles, as its
/// `kiss_fft_alloc` and `kiss_fftr_alloc` compute them (the same expressions in double).
fn twiddles(ncfft: i32) -> (Vec<i32>, Vec<i32>) {
    let pi = std::f64::consts::PI;
    let twiddles = (0..ncfft)
        .map(|i| cexp(-2.0 * pi * f64::from(i) / f64::from(ncfft)))
        .collect();
    let supers = (0..ncfft / 2)
        .map(|i| cexp(-pi * (f64::from(i + 1) / f64::from(ncfft) + 0.5)))
        .collect();
    (twiddles, supers)
}

/// SignalRfft (options `T`, int16 only, and `fft_length`): each frame of the int16 input
/// (its last dimension, at most `fft_length`, zero-padded to it) to `fft_length / 2 + 1`
/// complex int16 values, as TFLM's kissfft-based `RfftInt16Apply` computes them. Its
/// `fft_length / 2`-point complex FFT may use radices 2, 3, 4 and 5 (TFLM's kissfft has no
/// memory for its generic butterfly). Constants: the twiddles and kissfft_r's super twiddles;
/// `ap_tflite_rfft_params_t`, then the (radix, length) pairs.
fn rfft(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let (Some(7), Some(fft_length)) = (option(map, 0, "T")?, option(map, 1, "fft_length")?) else {
        return Ok(None);
    };
    let v = |t: usize| &program.values[t];
    let (Some(n), Some(out)) = (
        count(program, input, DType::Int16, None),
        count(program, output, DType::Int16, None),
    ) else {
        return Ok(None);
    };
    let (Some(&in_last), Some(&out_last)) = (v(input).shape.last(), v(output).shape.last()) else {
        return Ok(None);
    };
    let (in_last, out_last) = (in_last as i32, out_last as i32);
    if !(4..=MAX_FFT).contains(&fft_length)
        || fft_length % 2 != 0
        || v(input).shape.len() != v(output).shape.len()
        || in_last > fft_length
        || out_last != fft_length + 2
        || n % in_last != 0
        || i64::from(out) != i64::from(n / in_last) * i64::from(out_last)
    {
        return Ok(None);
    }
    let ncfft = fft_length / 2;
    let factors = kissfft_factors(ncfft as u32);
    if factors.iter().any(|&(p, _)| !(2..=5).contains(&p)) {
        return Ok(None);
    }
    let (twiddles, supers) = twiddles(ncfft);
    let mut params = vec![ncfft, in_last, n / in_last, factors.len() as i32];
    params.extend(factors.iter().flat_map(|&(p, m)| [p as i32, m as i32]));
    Ok(lowered(
        "SignalRfft",
        vec![("twiddles", twiddles), ("super_twiddles", supers)],
        params,
    ))
}

/// SignalEnergy (options `end_index`, `start_index`): the squared magnitude of the complex
/// int16 input's bins `start_index..end_index`, into a uint32 output (whose other elements,
/// which TFLM leaves as its arena held them, are zero); `ap_tflite_energy_params_t`.
fn energy(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let (Some(end), Some(start)) = (option(map, 0, "end_index")?, option(map, 1, "start_index")?)
    else {
        return Ok(None);
    };
    let n = count(program, input, DType::Int16, Some(1));
    let out = count(program, output, DType::UInt32, Some(1));
    Ok(match (n, out) {
        (Some(n), Some(out)) if 0 <= start && start <= end && end <= n / 2 && end <= out => {
            lowered("SignalEnergy", Vec::new(), vec![start, end, out])
        }
        _ => None,
    })
}

/// SignalFilterBank (option `num_channels`): uint32 spectrum, int16 weights and unweights,
/// int16 channel frequency starts, weight starts and widths (`num_channels + 1` each), uint64
/// output of `num_channels`; `ap_tflite_filter_bank_params_t`. The kernel checks every start
/// and width against the tensors it indexes.
fn filter_bank(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, weights, unweights, freq_starts, weight_starts, widths], &[output]) =
        (inputs, outputs)
    else {
        return Ok(None);
    };
    let Some(channels) = option(map, 0, "num_channels")? else {
        return Ok(None);
    };
    let c = |t: usize, dtype: DType| count(program, t, dtype, Some(1));
    let (Some(n), Some(w), Some(u), Some(out)) = (
        c(input, DType::UInt32),
        c(weights, DType::Int16),
        c(unweights, DType::Int16),
        c(output, DType::UInt64),
    ) else {
        return Ok(None);
    };
    let bands_ok = [freq_starts, weight_starts, widths]
        .iter()
        .all(|&t| c(t, DType::Int16).is_some_and(|k| k > channels));
    Ok((channels > 0 && out == channels && w == u && bands_ok)
        .then(|| lowered("SignalFilterBank", Vec::new(), vec![channels, n, w]))
        .flatten())
}

/// SignalFilterBankSquareRoot: a 1-D uint64 input's square roots shifted right by the int32
/// scalar input's bits, into uint32; `ap_tflite_count_params_t`.
fn filter_bank_square_root(
    program: &Program,
    _map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, bits], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let n = count(program, input, DType::UInt64, Some(1));
    let out = count(program, output, DType::UInt32, Some(1));
    let bits = count(program, bits, DType::Int32, Some(0));
    Ok(match (n, out, bits) {
        (Some(n), Some(out), Some(1)) if n == out => {
            lowered("SignalFilterBankSquareRoot", Vec::new(), vec![n])
        }
        _ => None,
    })
}

/// SignalFilterBankSpectralSubtraction (nine options, in their sorted order): a uint32
/// filter bank's channels less their noise estimate, and that estimate; the estimate is
/// state the kernel keeps; `ap_tflite_spectral_subtraction_params_t`.
fn spectral_subtraction(
    program: &Program,
    options: Option<&[u8]>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<LoweredSignal>, ImportError> {
    let (&[input], &[output, noise]) = (inputs, outputs) else {
        return Ok(None);
    };
    let map = options.map(Map::root).transpose()?;
    let names = [
        "alternate_one_minus_smoothing",
        "alternate_smoothing",
        "clamping",
        "min_signal_remaining",
        "num_channels",
        "one_minus_smoothing",
        "smoothing",
        "smoothing_bits",
        "spectral_subtraction_bits",
    ];
    let mut o = [0i32; 9];
    for (i, name) in names.iter().enumerate() {
        match option(map.as_ref(), i, name)? {
            Some(x) => o[i] = x,
            None => return Ok(None),
        }
    }
    let [alt_one_minus, alt_smoothing, clamping, min_remaining, channels, one_minus, smoothing, smoothing_bits, bits] =
        o;
    let c = |t: usize| count(program, t, DType::UInt32, Some(1));
    let (Some(n), Some(out), Some(k)) = (c(input), c(output), c(noise)) else {
        return Ok(None);
    };
    if n != channels
        || out != n
        || k != n
        || !(0..32).contains(&smoothing_bits)
        || !(0..64).contains(&bits)
    {
        return Ok(None);
    }
    let state_name = format!(
        "{}:SignalFilterBankSpectralSubtraction_noise",
        program.values[output].name
    );
    let mut state = Value::planned(state_name, DType::UInt32, vec![n as u64]);
    state.data = Some(ConstantData::new(vec![0; n as usize * 4]));
    Ok(Some(LoweredSignal {
        lowered: Lowered {
            op: "SignalFilterBankSpectralSubtraction",
            constants: Vec::new(),
            params: Some(vec![
                n,
                smoothing,
                one_minus,
                alt_smoothing,
                alt_one_minus,
                min_remaining,
                smoothing_bits,
                bits,
                i32::from(clamping != 0),
            ]),
            scratch: None,
        },
        state: Some(state),
    }))
}

/// SignalPCAN (option `snr_shift`): per-channel automatic gain control of a uint32 filter bank
/// by its uint32 noise estimate through an int16 gain table (of at least the 125 entries its
/// lookup reaches); `ap_tflite_pcan_params_t`.
fn pcan(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input, noise, lut], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let Some(shift) = option(map, 0, "snr_shift")? else {
        return Ok(None);
    };
    let c = |t: usize, dtype: DType| count(program, t, dtype, Some(1));
    Ok(
        match (
            c(input, DType::UInt32),
            c(noise, DType::UInt32),
            c(lut, DType::Int16),
            c(output, DType::UInt32),
        ) {
            (Some(n), Some(k), Some(l), Some(out))
                if n == k && n == out && l >= PCAN_LUT && (0..64).contains(&shift) =>
            {
                lowered("SignalPCAN", Vec::new(), vec![n, shift, l])
            }
            _ => None,
        },
    )
}

/// The gain table entries PCAN's lookup can reach (`4 × 32 − 6 + 2`, plus one).
const PCAN_LUT: i32 = 125;

/// SignalFilterBankLog (options `input_correction_bits`, `output_scale`): the natural log of
/// each uint32 channel, scaled, into int16; `ap_tflite_filter_bank_log_params_t`.
fn filter_bank_log(
    program: &Program,
    map: Option<&Map<'_>>,
    inputs: &[usize],
    outputs: &[usize],
) -> Result<Option<Lowered>, ImportError> {
    let (&[input], &[output]) = (inputs, outputs) else {
        return Ok(None);
    };
    let (Some(correction), Some(scale)) = (
        option(map, 0, "input_correction_bits")?,
        option(map, 1, "output_scale")?,
    ) else {
        return Ok(None);
    };
    let n = count(program, input, DType::UInt32, Some(1));
    let out = count(program, output, DType::Int16, Some(1));
    Ok(match (n, out) {
        (Some(n), Some(out)) if n == out && (0..32).contains(&correction) => lowered(
            "SignalFilterBankLog",
            Vec::new(),
            vec![n, correction, scale],
        ),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factors_as_kissfft_takes_them() {
        assert_eq!(kissfft_factors(256), vec![(4, 64), (4, 16), (4, 4), (4, 1)]);
        assert_eq!(kissfft_factors(128), vec![(4, 32), (4, 8), (4, 2), (2, 1)]);
        assert_eq!(kissfft_factors(240), vec![(4, 60), (4, 15), (3, 5), (5, 1)]);
        assert_eq!(kissfft_factors(14), vec![(2, 7), (7, 1)]);
    }

    /// An FNV-1a-like hash (offset 1469598103934665603) over the twiddles' then the super twiddles' int16 parts, real first.
    fn fnv(words: &[i32]) -> u64 {
        words.iter().fold(1_469_598_103_934_665_603, |h, &w| {
            [w as u16, (w >> 16) as u16].iter().fold(h, |h, &x| {
                (h ^ u64::from(x)).wrapping_mul(0x0000_0100_0000_01b3)
            })
        })
    }

    #[test]
    fn twiddles_are_kissfft_v130s() {
        // Figures printed by kissfft v130 built with FIXED_POINT=16 (kiss_fftr_alloc's state).
        for (fft_length, hash) in [
            (480, 15_655_994_430_068_733_114u64),
            (200, 14_220_950_576_063_320_472),
            (36, 10_777_626_415_982_694_789),
        ] {
            let (tw, supers) = twiddles(fft_length / 2);
            let all: Vec<i32> = tw.iter().chain(&supers).copied().collect();
            assert_eq!(fnv(&all), hash, "{fft_length}");
        }
        let (tw, supers) = twiddles(240);
        assert_eq!((tw[7] as i16, (tw[7] >> 16) as i16), (32218, -5971));
        assert_eq!(
            (supers[5] as i16, (supers[5] >> 16) as i16),
            (-2571, -32666)
        );
    }

    #[test]
    fn twiddles_round_as_kissfft_rounds() {
        assert_eq!(cexp(0.0), 32767);
        // -pi/2: cos rounds to 0, sin to -32767.
        assert_eq!(
            cexp(-std::f64::consts::FRAC_PI_2),
            (-32767i16 as u16 as i32) << 16
        );
    }
}
