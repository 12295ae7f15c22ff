//! Every kernel the runtime has for TFLite's operators: the one list. A lowering names its
//! kernel by a [`Kernel`] of this list (so it cannot name one the runtime lacks); the C
//! declarations (`arenaplan/tflite_kernels.h`) and the runtime's registry
//! (`kernels/tflite/registry.c`, which `arenaplan::tflite_kernels()` reads) are rendered from
//! it (`c_files.rs`; a test compares the committed files byte for byte). Each kernel's symbol
//! follows the build's one name rule ([`arenaplan_syntax::names::kernel_symbol`]).
//!
//! Adding a kernel is one line here (its doc comment, if any, is the header's comment above
//! its declaration), its lowering's Rust file and its C file.

use arenaplan_syntax::names::kernel_symbol;

/// Defines [`Kernel`] from the list: one variant per kernel, its operator after `tflite:`.
macro_rules! kernels {
    ($( $(#[doc = $about:literal])* $variant:ident = $op:literal, )*) => {
        /// A kernel of the runtime's, by the operator after `tflite:`.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)] // named as the operators are
        pub(super) enum Kernel {
            $( $(#[doc = $about])* $variant, )*
        }

        impl Kernel {
            /// Every kernel, in the registry's order.
            pub(super) const ALL: &'static [Kernel] = &[$(Kernel::$variant),*];

            /// The operator after `tflite:`.
            pub(super) fn op(self) -> &'static str {
                match self {
                    $(Kernel::$variant => $op,)*
                }
            }

            /// The comment above its C declaration, one line each (none: no comment).
            pub(super) fn about(self) -> &'static [&'static str] {
                match self {
                    $(Kernel::$variant => &[$($about),*],)*
                }
            }
        }
    };
}

kernels! {
    ADD = "ADD",
    CONCATENATION = "CONCATENATION",
    DEQUANTIZE = "DEQUANTIZE",
    MAX_POOL_2D = "MAX_POOL_2D",
    MUL = "MUL",
    PAD = "PAD",
    AVERAGE_POOL_2D = "AVERAGE_POOL_2D",
    CONV_2D = "CONV_2D",
    DEPTHWISE_CONV_2D = "DEPTHWISE_CONV_2D",
    FULLY_CONNECTED = "FULLY_CONNECTED",
    QUANTIZE = "QUANTIZE",
    SOFTMAX = "SOFTMAX",
    SVDF = "SVDF",
    UNIDIRECTIONAL_SEQUENCE_LSTM = "UNIDIRECTIONAL_SEQUENCE_LSTM",
    /// RESHAPE: inputs (input), output of the same bytes: a copy (none when they share memory).
    RESHAPE = "RESHAPE",
    /// The 16x8 variants (int16 activations, zero point 0; int8 weights; int64 biases): the same
    /// parameters and inputs as their int8 operators', no scratch but AVERAGE_POOL_2D_S16's on DSP
    /// builds (a 16x8 FULLY_CONNECTED runs on FULLY_CONNECTED_PER_CHANNEL_S16).
    CONV_2D_S16 = "CONV_2D_S16",
    DEPTHWISE_CONV_2D_S16 = "DEPTHWISE_CONV_2D_S16",
    /// FULLY_CONNECTED with per-channel weights, int8 and 16x8: inputs (input, filter, [bias,]
    /// params), output; the params are ap_tflite_fc_params_t (multiplier and shift unused), then
    /// output_depth multipliers, then output_depth shifts.
    FULLY_CONNECTED_PER_CHANNEL = "FULLY_CONNECTED_PER_CHANNEL",
    FULLY_CONNECTED_PER_CHANNEL_S16 = "FULLY_CONNECTED_PER_CHANNEL_S16",
    ADD_S16 = "ADD_S16",
    MUL_S16 = "MUL_S16",
    AVERAGE_POOL_2D_S16 = "AVERAGE_POOL_2D_S16",
    MAX_POOL_2D_S16 = "MAX_POOL_2D_S16",
    INT_BINARY = "INT_BINARY",
    CAST = "CAST",
    /// TRANSPOSE_CONV, int8: inputs (output shape, filter [output_c, filter_h, filter_w, input_c],
    /// input, [bias int32,] params), output; the params are ap_tflite_conv_params_t (ch_mult and
    /// dilations 1), then output_c multipliers, then output_c shifts. Each output is gathered from
    /// the inputs the filter carries to it: no scratch.
    TRANSPOSE_CONV = "TRANSPOSE_CONV",
    MEAN = "MEAN",
    RELU = "RELU",
    STRIDED_SLICE = "STRIDED_SLICE",
    SignalWindow = "SignalWindow",
    SignalFftAutoScale = "SignalFftAutoScale",
    SignalRfft = "SignalRfft",
    SignalEnergy = "SignalEnergy",
    SignalFilterBank = "SignalFilterBank",
    SignalFilterBankSquareRoot = "SignalFilterBankSquareRoot",
    SignalFilterBankSpectralSubtraction = "SignalFilterBankSpectralSubtraction",
    SignalPCAN = "SignalPCAN",
    SignalFilterBankLog = "SignalFilterBankLog",
}

impl Kernel {
    /// Its name in programs: `tflite:` and the operator.
    pub(super) fn name(self) -> String {
        format!("tflite:{}", self.op())
    }

    /// The symbol of its `ap_kernel_t` (`ap_kernel_tflite_3aFULLY__CONNECTED`).
    pub(super) fn c_symbol(self) -> String {
        kernel_symbol(&self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_are_listed_once_under_the_symbols_of_the_name_rule() {
        let mut ops: Vec<&str> = Kernel::ALL.iter().map(|k| k.op()).collect();
        ops.sort_unstable();
        ops.dedup();
        assert_eq!(ops.len(), Kernel::ALL.len());
        assert_eq!(
            Kernel::FULLY_CONNECTED.c_symbol(),
            "ap_kernel_tflite_3aFULLY__CONNECTED"
        );
        assert_eq!(Kernel::SignalPCAN.name(), "tflite:SignalPCAN");
    }
}
