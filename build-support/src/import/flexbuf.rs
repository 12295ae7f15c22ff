//! A small, bounds-checked reader of the FlexBuffers map a TFLite custom operator keeps its
//! options in (`Operator.custom_options`, format `FLEXBUFFERS`).
//!
//! Our own code, written from the FlexBuffers binary format: the buffer ends with the root's
//! value, its packed type (type `<< 2` | width code) and its byte width; a map is a vector of
//! values, each as wide as the map's width, followed by one packed type byte per value, and
//! preceded by its size, its keys vector's byte width and an offset back to its keys vector
//! (offsets to zero-terminated strings). Every read is checked against the buffer: a hostile
//! file gives an error naming the offset, never a panic, and nothing is allocated from a length
//! in the file beyond what the buffer can hold.
//!
//! TFLite Micro's kernels read a custom operator's options by position in the map (whose keys
//! a FlexBuffers builder sorts); [`Map::int`] reads the same value, and refuses when the key at
//! that position is not the one the kernel means, so a position never silently means another
//! option.

use super::flatbuf::FbError;

/// FlexBuffers type codes of the scalars an option may be.
const INT: u8 = 1;
const UINT: u8 = 2;
const INDIRECT_INT: u8 = 6;
const INDIRECT_UINT: u8 = 7;
const MAP: u8 = 9;
const BOOL: u8 = 26;

fn err<T>(offset: usize, what: impl Into<String>) -> Result<T, FbError> {
    Err(FbError {
        offset,
        what: what.into(),
    })
}

/// `width` bytes at `at`, as an unsigned little-endian integer.
fn uint(data: &[u8], at: usize, width: usize, what: &str) -> Result<u64, FbError> {
    if !matches!(width, 1 | 2 | 4 | 8) {
        return err(at, format!("{what}: a byte width of {width}"));
    }
    let Some(bytes) = at.checked_add(width).and_then(|end| data.get(at..end)) else {
        return err(at, format!("{what} past the end of the options"));
    };
    Ok(bytes
        .iter()
        .rev()
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
}

/// `width` bytes at `at`, as a signed little-endian integer.
fn int(data: &[u8], at: usize, width: usize, what: &str) -> Result<i64, FbError> {
    let u = uint(data, at, width, what)?;
    let unused = 64 - 8 * width as u32;
    Ok(((u << unused) as i64) >> unused)
}

/// The position an offset stored at `at` points back to.
fn back(data: &[u8], at: usize, width: usize, what: &str) -> Result<usize, FbError> {
    let off = uint(data, at, width, what)?;
    usize::try_from(off)
        .ok()
        .and_then(|o| at.checked_sub(o))
        .map_or_else(
            || err(at, format!("{what}: offset {off} before the start")),
            Ok,
        )
}

/// A custom operator's options map.
pub(crate) struct Map<'a> {
    data: &'a [u8],
    /// Where its values start.
    values: usize,
    /// Their byte width.
    width: usize,
    /// How many.
    len: usize,
    /// Its keys vector and that vector's byte width.
    keys: usize,
    keys_width: usize,
}

impl<'a> Map<'a> {
    /// The map at the root of `data`.
    pub(crate) fn root(data: &'a [u8]) -> Result<Self, FbError> {
        let n = data.len();
        if n < 3 {
            return err(0, "options of fewer than 3 bytes (no FlexBuffers root)");
        }
        let root_width = usize::from(data[n - 1]);
        let packed = data[n - 2];
        let Some(root) = (n - 2).checked_sub(root_width) else {
            return err(n - 1, format!("a root {root_width} bytes wide"));
        };
        if packed >> 2 != MAP {
            return err(n - 2, format!("a root of type {}, not a map", packed >> 2));
        }
        let values = back(data, root, root_width, "the root map's offset")?;
        let width = 1usize << (packed & 3);
        let header = |k: usize, what: &str| -> Result<usize, FbError> {
            match values.checked_sub(k * width) {
                Some(at) => Ok(at),
                None => err(values, format!("{what} before the start")),
            }
        };
        let len_at = header(1, "the map's size")?;
        let len = uint(data, len_at, width, "the map's size")?;
        let keys_width_at = header(2, "the map's keys width")?;
        let keys_width = uint(data, keys_width_at, width, "the map's keys width")? as usize;
        let keys_at = header(3, "the map's keys offset")?;
        let keys = back(data, keys_at, width, "the map's keys")?;
        // Each value takes at least its slot and its type byte: a size the buffer cannot hold
        // is refused before anything is read by it.
        let len = usize::try_from(len)
            .ok()
            .filter(|&l| l <= n)
            .map_or_else(|| err(len_at, format!("a map of {len} values")), Ok)?;
        Ok(Map {
            data,
            values,
            width,
            len,
            keys,
            keys_width,
        })
    }

    /// The key at position `i`.
    fn key(&self, i: usize) -> Result<&'a [u8], FbError> {
        let slot = i
            .checked_mul(self.keys_width)
            .and_then(|o| self.keys.checked_add(o))
            .map_or_else(|| err(self.keys, "a key past the end"), Ok)?;
        let start = back(self.data, slot, self.keys_width, "a key's offset")?;
        let rest = self.data.get(start..).unwrap_or(&[]);
        match rest.iter().position(|&b| b == 0) {
            Some(end) => Ok(&rest[..end]),
            None => err(start, "a key without its terminating zero"),
        }
    }

    /// The integer TFLM's `ElementAsInt32(i)` reads for option `name`, which the kernel keeps
    /// at position `i` of the sorted keys: an int, uint or bool, inline or indirect.
    pub(crate) fn int(&self, i: usize, name: &str) -> Result<i64, FbError> {
        if i >= self.len {
            return err(
                self.values,
                format!("no option `{name}` (the map has {} options)", self.len),
            );
        }
        let key = self.key(i)?;
        if key != name.as_bytes() {
            return err(
                self.keys,
                format!(
                    "option {i} is `{}`, where TFLM's kernel reads `{name}`",
                    String::from_utf8_lossy(key)
                ),
            );
        }
        let slot = self.values + i * self.width;
        let types = self.values + self.len * self.width;
        let packed = uint(self.data, types + i, 1, "an option's type")? as u8;
        let what = format!("option `{name}`");
        match packed >> 2 {
            INT => int(self.data, slot, self.width, &what),
            UINT | BOOL => Ok(uint(self.data, slot, self.width, &what)? as i64),
            t @ (INDIRECT_INT | INDIRECT_UINT) => {
                let at = back(self.data, slot, self.width, &what)?;
                let w = 1usize << (packed & 3);
                if t == INDIRECT_INT {
                    int(self.data, at, w, &what)
                } else {
                    Ok(uint(self.data, at, w, &what)? as i64)
                }
            }
            t => err(
                slot,
                format!("{what} is of FlexBuffers type {t}, not an integer"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `{"a": -2, "b": 300}` as a FlexBuffers builder writes it (byte width 2 for the map).
    fn sample() -> Vec<u8> {
        let mut d = Vec::new();
        d.extend(b"a\0b\0"); // keys at 0 and 2
                             // keys vector: size 2, then offsets back to each key (width 1), at 5 and 6.
        d.push(2);
        d.push(5); // 5 - 5 = 0
        d.push(4); // 6 - 4 = 2
                   // map header, width 2: keys offset (at 7: 7 - 5 = 2), keys width 1, size 2.
        d.extend(2u16.to_le_bytes());
        d.extend(1u16.to_le_bytes());
        d.extend(2u16.to_le_bytes());
        // values at 13: -2 and 300, then their types (INT, width code 1; UINT).
        d.extend((-2i16).to_le_bytes());
        d.extend(300u16.to_le_bytes());
        d.push(INT << 2 | 1);
        d.push(UINT << 2 | 1);
        // root: offset back to the values (at 19: 19 - 13 = 6), packed type, width.
        d.push(6);
        d.push(MAP << 2 | 1);
        d.push(1);
        d
    }

    #[test]
    fn reads_options_by_position_and_checks_their_keys() {
        let d = sample();
        let m = Map::root(&d).unwrap();
        assert_eq!(m.int(0, "a").unwrap(), -2);
        assert_eq!(m.int(1, "b").unwrap(), 300);
        assert!(m.int(0, "b").unwrap_err().what.contains("option 0 is `a`"));
        assert!(m.int(2, "c").unwrap_err().what.contains("no option `c`"));
    }

    #[test]
    fn every_truncation_is_an_error_not_a_panic() {
        let d = sample();
        for n in 0..d.len() {
            let cut = &d[d.len() - n..];
            if let Ok(m) = Map::root(cut) {
                let _ = m.int(0, "a");
                let _ = m.int(1, "b");
            }
            let mut bad = d.clone();
            bad[n] ^= 0xff;
            if let Ok(m) = Map::root(&bad) {
                let _ = m.int(0, "a");
                let _ = m.int(1, "b");
            }
        }
    }
}
