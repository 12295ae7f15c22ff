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
