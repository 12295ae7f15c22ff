//! The names of TFLite's builtin operators, by code (`BuiltinOperator` in TFLite's schema), for
//! messages: a model's operator no kernel implements is named as TFLite names it.

/// Codes 0 to 161; an empty name is a code the schema does not use.
#[rustfmt::skip]
const NAMES: &[&str] = &[
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
    "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP",
    "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC",
    "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE",
    "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH", "CONCAT_EMBEDDINGS",
    "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE", "PAD",
    "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND", "SPACE_TO_BATCH_ND",
    "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE", "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE",
    "BIDIRECTIONAL_SEQUENCE_RNN", "EXP", "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE",
    "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM", "ARG_MAX", "MINIMUM", "LESS",
    "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL", "SELECT", "SLICE", "SIN",
    "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE", "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG",
    "SUM", "SQRT", "RSQRT", "SHAPE", "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX",
    "PACK", "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN",
    "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD", "RANGE",
    "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE", "MIRROR_PAD", "ABS", "SPLIT_V",
    "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N", "GATHER_ND", "COS", "WHERE", "RANK", "ELU",
    "REVERSE_SEQUENCE", "MATRIX_DIAG", "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF",
    "WHILE", "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2",
    "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL", "PLACEHOLDER_FOR_GREATER_OP_CODES", "CUMSUM",
    "CALL_ONCE", "BROADCAST_TO", "RFFT2D", "CONV_3D", "", "", "", "HASHTABLE", "HASHTABLE_FIND",
    "HASHTABLE_IMPORT", "HASHTABLE_SIZE", "REDUCE_ALL", "CONV_3D_TRANSPOSE", "VAR_HANDLE",
    "READ_VARIABLE", "ASSIGN_VARIABLE", "BROADCAST_ARGS", "RANDOM_STANDARD_NORMAL", "BUCKETIZE",
    "RANDOM_UNIFORM", "MULTINOMIAL", "GELU", "DYNAMIC_UPDATE_SLICE", "RELU_0_TO_1",
    "UNSORTED_SEGMENT_PROD", "UNSORTED_SEGMENT_MAX", "UNSORTED_SEGMENT_SUM", "ATAN2",
    "UNSORTED_SEGMENT_MIN", "SIGN", "BITCAST", "BITWISE_XOR", "RIGHT_SHIFT",
];

/// TFLite's name of builtin operator `code` (`CAST` for 53), if the schema has one.
///
/// ```
/// # use arenaplan_build::import::builtin_name;
/// assert_eq!(builtin_name(53), Some("CAST"));
/// assert_eq!(builtin_name(-1), None);
/// ```
pub fn builtin_name(code: i32) -> Option<&'static str> {
    let name = *NAMES.get(usize::try_from(code).ok()?)?;
    (!name.is_empty()).then_some(name)
}

/// How a message names a TFLite operator the importer left as it was: `builtin:53` is
/// "TFLite's CAST", `custom:SignalFft` "TFLite's custom operator SignalFft"; `None` for an
/// operator of another kind.
///
/// ```
/// # use arenaplan_build::import::tflite_operator;
/// assert_eq!(tflite_operator("builtin:53").as_deref(), Some("TFLite's CAST"));
/// assert_eq!(tflite_operator("aten::add.out"), None);
/// ```
pub fn tflite_operator(op: &str) -> Option<String> {
    if let Some(code) = op.strip_prefix("builtin:") {
        let code: i32 = code.parse().ok()?;
        return Some(match builtin_name(code) {
            Some(name) => format!("TFLite's {name}"),
            None => format!("TFLite's builtin operator {code}"),
        });
    }
    op.strip_prefix("custom:")
        .map(|name| format!("TFLite's custom operator {name}"))
}
