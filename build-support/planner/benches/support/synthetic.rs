//! Synthetic model-like instances for scaling measurements: deterministic for a given seed.
//!
//! Shaped like an inference graph: one operator after another, each producing a tensor read
//! by the next few operators, some kept for a skip connection, and now and then a delegate
//! scratch buffer that lives for exactly one operator. Sizes are multiples of 16 spread over
//! three orders of magnitude.

use arenaplan_planner::{Buffer, Problem};

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `n` buffers, alignment 16.
pub fn model_like(n: usize, seed: u64) -> Problem {
    let mut rng = SplitMix(seed);
    let mut buffers = Vec::with_capacity(n);
    let mut op = 0u64;
    while buffers.len() < n {
        // Activation sizes drift slowly, as feature maps do through a network.
        let scale = 1 + rng.below(64) * (1 + rng.below(16));
        let size = 16 * scale * (1 + rng.below(4));
        let life = match rng.below(100) {
            0..=79 => 1 + rng.below(2),
            80..=94 => 3 + rng.below(6),
            _ => 10 + rng.below(60),
        };
        buffers.push(Buffer::new(size, op, op + life + 1));
        if rng.below(8) == 0 && buffers.len() < n {
            buffers.push(Buffer::new(16 * (1 + rng.below(512)), op, op + 1));
        }
        op += 1;
    }
    Problem::new(buffers).with_alignment(16)
}

/// About `n` buffers shaped like a transformer's training step: a forward pass over layers of
/// a dozen operators, each saving its activation for the backward pass (long-lived, freed in
/// reverse order) and using a short temporary; then the backward pass, each operator making a
/// gradient alive for two steps and a temporary. Sizes come from a few multiples of the hidden
/// size (as tensors of one model do), so many buffers tie in size. Alignment 16.
pub fn transformer_like(n: usize, seed: u64) -> Problem {
    let mut rng = SplitMix(seed);
    let hidden = 16 * (32 + rng.below(32));
    let sizes = [hidden, 3 * hidden, 4 * hidden, hidden / 2, 8 * hidden];
    let ops_per_layer = 12;
    // Each operator of the forward pass adds 2 buffers, of the backward pass 3 (gradient,
    // temporary, and the saved activation's end): 4 buffers per operator in all.
    let layers = (n / (4 * ops_per_layer)).max(1);
    let mut buffers: Vec<Buffer> = Vec::with_capacity(n + 16);
    let mut saved: Vec<(usize, u64)> = Vec::new(); // (buffer index, size)
    let mut t = 0u64;
    for _ in 0..layers {
        for _ in 0..ops_per_layer {
            let size = sizes[rng.below(sizes.len() as u64) as usize];
            saved.push((buffers.len(), size));
            buffers.push(Buffer::new(size, t, t + 1)); // upper set in the backward pass
            let temp = 16 * (1 + rng.below(hidden / 8));
            buffers.push(Buffer::new(temp, t, t + 1));
            t += 1;
        }
    }
    while let Some((i, size)) = saved.pop() {
        buffers[i].upper = t + 1;
        buffers.push(Buffer::new(size, t, t + 2)); // its gradient
        let temp = 16 * (1 + rng.below(hidden / 8));
        buffers.push(Buffer::new(temp, t, t + 1));
        t += 1;
    }
    Problem::new(buffers).with_alignment(16)
}

/// An instance of MiniMalloc's challenging family: `n` buffers that fit `capacity`, sizes
/// multiples of 1 KiB; with the offsets of a placement that fits.
///
/// Shaped as MiniMalloc's public instances measure (A-K: 154-454 buffers; sizes multiples of
/// 1,024, from 0.3 % to 47 % of the capacity; lifetimes from 0.4 % to 80 % of the horizon;
/// about as many distinct instants as half the buffers): buffers of log-uniform size and
/// lifetime at random times, each put at the lowest offset free over its lifetime (in the order
/// drawn, not the order any planner uses), kept if it ends within `capacity`, until `n` are
/// kept. Memory is then full at some moments and has holes elsewhere, as in theirs.
pub fn minimalloc_like(n: usize, capacity: u64, seed: u64) -> (Problem, Vec<u64>) {
    const KIB: u64 = 1024;
    let mut rng = SplitMix(seed ^ 0x6d69_6e69);
    let horizon = (n as u64 / 2).max(8);
    let granules = (capacity / KIB).max(1);
    // Log-uniform in [lo, hi] (as fractions of `whole`), at least 1.
    let mut log_uniform = |lo: f64, hi: f64, whole: u64| -> u64 {
        let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
        let x = (lo.ln() + u * (hi.ln() - lo.ln())).exp();
        ((x * whole as f64).round() as u64).clamp(1, whole)
    };
    let mut drawn: Vec<(u64, u64, u64)> = Vec::with_capacity(n); // (lower, upper, granules)
    let mut offsets: Vec<u64> = Vec::with_capacity(n);
    let mut attempts = 0usize;
    while drawn.len() < n && attempts < 200 * n {
        attempts += 1;
        let width = log_uniform(0.004, 0.8, horizon);
        let size = log_uniform(0.003, 0.47, granules);
        let lower = SplitMix(seed.wrapping_add(attempts as u64)).below(horizon - width + 1);
        let upper = lower + width;
        // Lowest offset free over [lower, upper) among those kept so far.
        let mut taken: Vec<(u64, u64)> = drawn
            .iter()
            .zip(&offsets)
            .filter(|(&(l, u, _), _)| l < upper && lower < u)
            .map(|(&(_, _, g), &at)| (at, at + g))
            .collect();
        taken.sort_unstable();
        let mut at = 0;
        for (start, end) in taken {
            if at + size <= start {
                break;
            }
            at = at.max(end);
        }
        if at + size <= granules {
            drawn.push((lower, upper, size));
            offsets.push(at);
        }
    }
    let buffers = drawn
        .iter()
        .map(|&(lower, upper, size)| Buffer::new(size * KIB, lower, upper))
        .collect();
    let offsets = offsets.iter().map(|&at| at * KIB).collect();
    let mut problem = Problem::new(buffers);
    problem.capacity = Some(capacity);
    (problem, offsets)
}

/// A packed instance of `n` buffers that fits `capacity` exactly, with the offsets of a
/// placement that does: the time × memory rectangle `[0, horizon) × [0, capacity)` cut again
/// and again (guillotine cuts) at random times or offsets (multiples of `granule`), each piece
/// a buffer (its lifetime and size) at its offset. Every moment is covered from 0 to
/// `capacity`: no slack anywhere, harder than MiniMalloc's own instances, which have slack
/// away from their fullest moments. Alignment 1.
pub fn packed_rectangle(n: usize, capacity: u64, granule: u64, seed: u64) -> (Problem, Vec<u64>) {
    let mut rng = SplitMix(seed);
    let horizon = 4 * n as u64;
    let granules = capacity / granule;
    // (lower, upper, offset, size), offsets and sizes in granules
    let mut pieces = vec![(0u64, horizon, 0u64, granules)];
    while pieces.len() < n {
        // Cut one of the larger pieces (by area), so sizes and lifetimes stay varied.
        let largest = (0..pieces.len())
            .max_by_key(|&i| {
                let (lo, hi, _, size) = pieces[i];
                (u128::from(hi - lo) * u128::from(size)) / u128::from(1 + rng.below(4))
            })
            .unwrap_or(0);
        let (lo, hi, at, size) = pieces[largest];
        let by_time = hi - lo >= 2 && (size < 2 || rng.below(2) == 0);
        if by_time {
            let cut = lo + 1 + rng.below(hi - lo - 1);
            pieces[largest] = (lo, cut, at, size);
            pieces.push((cut, hi, at, size));
        } else if size >= 2 {
            let cut = 1 + rng.below(size - 1);
            pieces[largest] = (lo, hi, at, cut);
            pieces.push((lo, hi, at + cut, size - cut));
        } else {
            break; // nothing left to cut
        }
    }
    let buffers = pieces
        .iter()
        .map(|&(lo, hi, _, size)| Buffer::new(size * granule, lo, hi))
        .collect();
    let offsets = pieces.iter().map(|&(_, _, at, _)| at * granule).collect();
    let mut problem = Problem::new(buffers);
    problem.capacity = Some(capacity);
    (problem, offsets)
}

/// A packed instance with holes, as MiniMalloc's public instances are built to measure: the
/// time × memory rectangle cut into `n * 100 / (100 - holes_percent)` pieces as
/// [`packed_rectangle`] cuts it (sizes multiples of 1 KiB, lifetimes on its time steps), then
/// pieces taken out at random until `n` remain. (Their A–K: every lifetime and size a multiple of 1,024 inside
/// `[0, 2^20)`, both ways a 1,024-step grid; 57–98 % of the square's area covered; most have
/// many moments exactly full.) With the offsets of a placement that fits `capacity`.
pub fn holed_rectangle(
    n: usize,
    capacity: u64,
    holes_percent: u64,
    seed: u64,
) -> (Problem, Vec<u64>) {
    let pieces = n * 100 / (100 - holes_percent.min(90)) as usize;
    let (whole, offsets) = packed_rectangle(pieces, capacity, 1024, seed);
    let mut kept: Vec<(Buffer, u64)> = whole.buffers.into_iter().zip(offsets).collect();
    let mut rng = SplitMix(seed ^ 0x686f_6c65);
    while kept.len() > n {
        let k = rng.below(kept.len() as u64) as usize;
        kept.swap_remove(k);
    }
    let (buffers, offsets): (Vec<Buffer>, Vec<u64>) = kept.into_iter().unzip();
    let mut problem = Problem::new(buffers);
    problem.capacity = Some(capacity);
    (problem, offsets)
}
