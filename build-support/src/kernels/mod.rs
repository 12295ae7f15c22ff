//! Kernels the runtime runs on the CPU, one room per runtime: [`tflite`] prepares each TFLite
//! operator's call for the runtime's CMSIS-NN kernels (lowering, parameters, scratch sizes);
//! [`executorch`] binds ExecuTorch's own kernels to a program's calls.

pub mod executorch;
pub mod tflite;
