//! The weights' row sums CMSIS-NN's kernels start from (FULLY_CONNECTED, SVDF, LSTM): TFLM
//! computes them into its arena when it prepares the operator; their inputs are constants, so
//! here they are a build-time constant, in flash.

use crate::model::Program;

/// `arm_vector_sum_s8` over the constant weights (`depth` rows) and bias: per row, the bias
/// plus `lhs_offset × (Σ weights + columns × rhs_offset)`, in int32 wrapping arithmetic as C's.
pub(super) fn row_sums(
    program: &Program,
    filter: usize,
    bias: Option<usize>,
    depth: usize,
    lhs_offset: i32,
    rhs_offset: i32,
) -> Option<Vec<i32>> {
    let weights = program.values[filter].data.as_ref()?.bytes();
    if weights.is_empty() || weights.len() % depth != 0 {
        return None;
    }
    let cols = weights.len() / depth;
    let bias: Vec<i32> = match bias {
        Some(b) => {
            let bytes = program.values[b].data.as_ref()?.bytes();
            if bytes.len() != depth * 4 {
                return None;
            }
            bytes
                .chunks_exact(4)
                .map(|w| i32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                .collect()
        }
        None => vec![0; depth],
    };
    let cols_i32 = i32::try_from(cols).ok()?;
    Some(
        weights
            .chunks_exact(cols)
            .zip(bias)
            .map(|(row, b)| {
                let sum = row
                    .iter()
                    .fold(0i32, |acc, &w| acc.wrapping_add(i32::from(w as i8)));
                let sum = sum.wrapping_add(cols_i32.wrapping_mul(rhs_offset));
                b.wrapping_add(sum.wrapping_mul(lhs_offset))
            })
            .collect(),
    )
}
