//! NumPy's `.npy` files (format version 1.0–3.0): the inputs and outputs of `arenaplan run`.
//! Only what a tensor needs: a little-endian (or byte-sized) element type, C order, a shape.

use arenaplan_build::model::DType;

// The header's Python literal, in a file of its own (also compiled where tests include this one).
#[path = "npy_header.rs"]
mod header;

/// One array: element type, shape, and its bytes in C order, little-endian.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Array {
    pub(crate) dtype: DType,
    pub(crate) shape: Vec<u64>,
    pub(crate) data: Vec<u8>,
}

/// NumPy's type string for each type a tensor can have here.
const DESCRS: [(DType, &str); 9] = [
    (DType::Float32, "<f4"),
    (DType::Float64, "<f8"),
    (DType::Int8, "|i1"),
    (DType::UInt8, "|u1"),
    (DType::Int16, "<i2"),
    (DType::Int32, "<i4"),
    (DType::Int64, "<i8"),
    (DType::Bool, "|b1"),
    (DType::Float16, "<f2"),
];

/// Reads an array; the message says what is wrong.
pub(crate) fn parse(bytes: &[u8]) -> Result<Array, String> {
    let rest = bytes
        .strip_prefix(b"\x93NUMPY")
        .ok_or("not a .npy file (no \\x93NUMPY magic)")?;
    let (major, rest) = rest.split_first().ok_or("truncated header")?;
    let (_minor, rest) = rest.split_first().ok_or("truncated header")?;
    let (len, rest) = match major {
        1 => {
            let b = rest.get(..2).ok_or("truncated header")?;
            (usize::from(u16::from_le_bytes([b[0], b[1]])), &rest[2..])
        }
        2 | 3 => {
            let b = rest.get(..4).ok_or("truncated header")?;
            let len = u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
            (len, &rest[4..])
        }
        v => return Err(format!("format version {v} (1, 2 and 3 are read)")),
    };
    let header = rest.get(..len).ok_or("truncated header")?;
    let header = std::str::from_utf8(header).map_err(|_| "a header that is not text")?;
    let data = &rest[len..];
    let header::Header {
        descr,
        fortran_order,
        shape,
    } = header::parse_header(header)?;
    // '<i1' and '|i1' are the same type (a byte has no order).
    let descr = match descr.get(1..) {
        Some(rest) if descr.len() == 3 && descr.ends_with('1') => format!("|{rest}"),
        _ => descr,
    };
    let dtype = DESCRS
        .iter()
        .find(|(_, d)| *d == descr)
        .map(|(t, _)| *t)
        .ok_or_else(|| {
            format!("element type '{descr}' (float32, float64, int8, uint8, int16, int32, int64, bool and float16, little-endian, are read)")
        })?;
    if fortran_order {
        return Err("Fortran order: save the array in C order (np.ascontiguousarray)".into());
    }
    let bytes = shape
        .iter()
        .try_fold(dtype.size(), |n, &d| n.checked_mul(d))
        .ok_or("a shape too large")?;
    if data.len() as u64 != bytes {
        return Err(format!(
            "{} bytes of data where shape {shape:?} of {} needs {bytes}",
            data.len(),
            dtype.name()
        ));
    }
    Ok(Array {
        dtype,
        shape,
        data: data.to_vec(),
    })
}

/// The file for `array` (format 1.0, its header padded to 64 bytes as NumPy pads it).
pub(crate) fn write(array: &Array) -> Result<Vec<u8>, String> {
    let descr = DESCRS
        .iter()
        .find(|(t, _)| *t == array.dtype)
        .map(|(_, d)| *d)
        .ok_or_else(|| format!("no .npy type for {}", array.dtype.name()))?;
    let shape = match array.shape.as_slice() {
        [] => "()".to_owned(),
        [d] => format!("({d},)"),
        dims => format!(
            "({})",
            dims.iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
    let unpadded = 10 + header.len() + 1;
    header.push_str(&" ".repeat(unpadded.next_multiple_of(64) - unpadded));
    header.push('\n');
    let len = u16::try_from(header.len()).map_err(|_| "a header too long")?;
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&array.data);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_survives_writing_and_reading() {
        for (dtype, shape) in [
            (DType::Float32, vec![2, 3]),
            (DType::Bool, vec![]),
            (DType::Int64, vec![5]),
        ] {
            let n = shape.iter().product::<u64>() * dtype.size();
            let array = Array {
                dtype,
                shape,
                data: (0..n as u8).collect(),
            };
            let file = write(&array).unwrap();
            assert_eq!((file.len() - array.data.len()) % 64, 0);
            assert_eq!(parse(&file).unwrap(), array);
        }
    }

    #[test]
    fn a_bad_file_is_refused_with_its_reason() {
        let good = write(&Array {
            dtype: DType::Int8,
            shape: vec![4],
            data: vec![1, 2, 3, 4],
        })
        .unwrap();
        assert!(parse(&good[..good.len() - 1])
            .unwrap_err()
            .contains("bytes of data"));
        assert!(parse(b"PK\x03\x04").unwrap_err().contains("magic"));
        let mut big_endian = good.clone();
        let at = good.windows(3).position(|w| w == b"|i1").unwrap();
        big_endian[at..at + 3].copy_from_slice(b">i4");
        assert!(parse(&big_endian).unwrap_err().contains("element type"));
        // A type string whose first character is more than one byte.
        let mut odd = good.clone();
        let at = good.windows(3).position(|w| w == b"|i1").unwrap();
        odd[at..at + 3].copy_from_slice("é1".as_bytes());
        assert!(parse(&odd).unwrap_err().contains("element type"));
    }
}
