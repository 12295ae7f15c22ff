//! SignalRfft: kissfft's fixed-point real FFT, its twiddles computed here, at build time.

use super::{count, lowered, option};
use crate::import::flexbuf::Map;
use crate::import::ImportError;
use crate::kernels::tflite::layout::Params;
use crate::kernels::tflite::layouts::RfftParams;
use crate::kernels::tflite::registry::Kernel;
use crate::kernels::tflite::Lowered;
use crate::model::{DType, Program};

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
pub(super) fn lower(
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
    let mut params = RfftParams {
        half: ncfft,
        input_length: in_last,
        frames: n / in_last,
        factors: factors.len() as i32,
    }
    .words();
    params.extend(factors.iter().flat_map(|&(p, m)| [p as i32, m as i32]));
    Ok(lowered(
        Kernel::SignalRfft,
        vec![("twiddles", twiddles), ("super_twiddles", supers)],
        params,
    ))
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
