//! The reference files the scripts write (`.npy`, and the folders of them), shared with the runtime host crate's tests.
#![allow(dead_code)] // each test binary uses its own subset
use std::path::Path;

/// The header text and data bytes of an `.npy` file (format versions 1 to 3).
pub fn read(path: &Path) -> (String, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        bytes.starts_with(b"\x93NUMPY"),
        "{}: not .npy",
        path.display()
    );
    let (len, start) = if bytes[6] == 1 {
        (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10)
    } else {
        (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        )
    };
    let header = String::from_utf8_lossy(&bytes[start..start + len]).into_owned();
    (header, bytes[start + len..].to_vec())
}

/// How many invocations a model's reference folder (`testdata/tflm-reference/<model>/`)
/// records: `0-out0.npy`, `1-out0.npy`, … as many as the script wrote.
pub fn invocations(folder: &Path) -> usize {
    (0..)
        .take_while(|k| folder.join(format!("{k}-out0.npy")).is_file())
        .count()
}
