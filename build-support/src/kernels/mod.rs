//! Kernels the runtime runs on the CPU, one room per runtime: [`tflite`] prepares each TFLite
//! operator's call for the runtime's CMSIS-NN kernels (lowering, parameters, scratch sizes).

pub mod tflite;
