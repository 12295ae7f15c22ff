//! A small, bounds-checked flatbuffer reader: tables through their vtables, vectors, strings.
//!
//! Our own code, written from the flatbuffer binary format: a root `u32` offset, tables that
//! start with a signed offset to their vtable, vtables of `u16` field offsets (0: absent),
//! little-endian scalars, and `u32` offsets (relative to where they are stored) to strings,
//! vectors and sub-tables. Every read is checked against the buffer: a hostile file gives an
//! error naming the offset, never a panic, and nothing is allocated from a length in the file.

use std::fmt;

/// A malformed flatbuffer: where, and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FbError {
    /// Byte offset in the buffer.
    pub offset: usize,
    /// What was expected.
    pub what: String,
}

impl fmt::Display for FbError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte {:#x}: {}", self.offset, self.what)
    }
}

impl std::error::Error for FbError {}

pub(crate) type Result<T> = std::result::Result<T, FbError>;

fn err<T>(offset: usize, what: impl Into<String>) -> Result<T> {
    Err(FbError {
        offset,
        what: what.into(),
    })
}

fn bytes<'a>(data: &'a [u8], at: usize, n: usize, what: &str) -> Result<&'a [u8]> {
    match at.checked_add(n) {
        Some(end) if end <= data.len() => Ok(&data[at..end]),
        _ => err(
            at,
            format!(
                "{what} runs past the end of the data ({} bytes)",
                data.len()
            ),
        ),
    }
}

pub(crate) fn read_u16(data: &[u8], at: usize) -> Result<u16> {
    let b = bytes(data, at, 2, "a u16")?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

pub(crate) fn read_u32(data: &[u8], at: usize) -> Result<u32> {
    let b = bytes(data, at, 4, "a u32")?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

pub(crate) fn read_u64(data: &[u8], at: usize) -> Result<u64> {
    let b = bytes(data, at, 8, "a u64")?;
    let mut a = [0u8; 8];
    a.copy_from_slice(b);
    Ok(u64::from_le_bytes(a))
}

/// Follows a `u32` offset stored at `at` (relative to `at`).
fn follow(data: &[u8], at: usize) -> Result<usize> {
    let rel = read_u32(data, at)? as usize;
    match at.checked_add(rel) {
        Some(target) if target < data.len() => Ok(target),
        _ => err(
            at,
            format!("offset {rel:#x} points past the end of the data"),
        ),
    }
}

/// The root table of a flatbuffer, after checking its 4-byte file identifier (if given).
pub(crate) fn root<'a>(data: &'a [u8], identifier: Option<&[u8; 4]>) -> Result<Table<'a>> {
    if let Some(id) = identifier {
        let found = bytes(data, 4, 4, "the file identifier")?;
        if found != id {
            return err(
                4,
                format!(
                    "file identifier is {:?}, expected {:?}",
                    String::from_utf8_lossy(found),
                    String::from_utf8_lossy(id)
                ),
            );
        }
    }
    Table::at(data, follow(data, 0)?)
}

/// A table: its position and its vtable.
#[derive(Clone, Copy)]
pub(crate) struct Table<'a> {
    data: &'a [u8],
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

impl<'a> Table<'a> {
    pub(crate) fn at(data: &'a [u8], pos: usize) -> Result<Self> {
        let soffset = read_u32(data, pos)? as i32 as i64;
        let vtable = pos as i64 - soffset;
        if vtable < 0 || vtable as usize >= data.len() {
            return err(pos, "table's vtable offset points outside the data");
        }
        let vtable = vtable as usize;
        let vtable_len = read_u16(data, vtable)? as usize;
        if vtable_len < 4 || !vtable_len.is_multiple_of(2) {
            return err(
                vtable,
                format!("vtable length {vtable_len} is not a valid size"),
            );
        }
        bytes(data, vtable, vtable_len, "the vtable")?;
        let inline_len = read_u16(data, vtable + 2)? as usize;
        bytes(data, pos, inline_len.max(4), "the table")?;
        Ok(Table {
            data,
            pos,
            vtable,
            vtable_len,
        })
    }

    /// Position of field `index` (declaration order), or `None` when absent.
    fn field(&self, index: usize) -> Result<Option<usize>> {
        let slot = 4 + 2 * index;
        if slot + 2 > self.vtable_len {
            return Ok(None);
        }
        match read_u16(self.data, self.vtable + slot)? as usize {
            0 => Ok(None),
            rel => Ok(Some(self.pos + rel)),
        }
    }

    pub(crate) fn u8(&self, index: usize, default: u8) -> Result<u8> {
        match self.field(index)? {
            None => Ok(default),
            Some(at) => Ok(bytes(self.data, at, 1, "a byte field")?[0]),
        }
    }

    pub(crate) fn i8(&self, index: usize, default: i8) -> Result<i8> {
        self.u8(index, default as u8).map(|v| v as i8)
    }

    pub(crate) fn bool(&self, index: usize, default: bool) -> Result<bool> {
        self.u8(index, u8::from(default)).map(|v| v != 0)
    }

    pub(crate) fn u32(&self, index: usize, default: u32) -> Result<u32> {
        match self.field(index)? {
            None => Ok(default),
            Some(at) => read_u32(self.data, at),
        }
    }

    pub(crate) fn i32(&self, index: usize, default: i32) -> Result<i32> {
        self.u32(index, default as u32).map(|v| v as i32)
    }

    pub(crate) fn u64(&self, index: usize, default: u64) -> Result<u64> {
        match self.field(index)? {
            None => Ok(default),
            Some(at) => read_u64(self.data, at),
        }
    }

    pub(crate) fn table(&self, index: usize) -> Result<Option<Table<'a>>> {
        match self.field(index)? {
            None => Ok(None),
            Some(at) => Table::at(self.data, follow(self.data, at)?).map(Some),
        }
    }

    pub(crate) fn vector(&self, index: usize) -> Result<Option<Vector<'a>>> {
        match self.field(index)? {
            None => Ok(None),
            Some(at) => Vector::at(self.data, follow(self.data, at)?).map(Some),
        }
    }

    /// A vector that is absent reads as empty.
    pub(crate) fn vector_or_empty(&self, index: usize) -> Result<Vector<'a>> {
        Ok(self.vector(index)?.unwrap_or(Vector {
            data: self.data,
            pos: 0,
            len: 0,
        }))
    }

    pub(crate) fn string(&self, index: usize) -> Result<Option<&'a str>> {
        match self.field(index)? {
            None => Ok(None),
            Some(at) => {
                let pos = follow(self.data, at)?;
                let v = Vector::at(self.data, pos)?;
                let b = v.bytes()?;
                std::str::from_utf8(b)
                    .map(Some)
                    .or_else(|_| err(pos, "string is not valid UTF-8"))
            }
        }
    }
}

/// A vector: its first element and length. Element reads check bounds.
#[derive(Clone, Copy)]
pub(crate) struct Vector<'a> {
    data: &'a [u8],
    pos: usize,
    len: usize,
}

impl<'a> Vector<'a> {
    fn at(data: &'a [u8], pos: usize) -> Result<Self> {
        let len = read_u32(data, pos)? as usize;
        Ok(Vector {
            data,
            pos: pos + 4,
            len,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Checks that `len` elements of `width` bytes fit in the data.
    fn check(&self, width: usize) -> Result<()> {
        let total = self.len.checked_mul(width);
        match total.and_then(|t| self.pos.checked_add(t)) {
            Some(end) if end <= self.data.len() => Ok(()),
            _ => err(
                self.pos,
                format!(
                    "a vector of {} elements runs past the end of the data",
                    self.len
                ),
            ),
        }
    }

    pub(crate) fn bytes(&self) -> Result<&'a [u8]> {
        self.check(1)?;
        Ok(&self.data[self.pos..self.pos + self.len])
    }

    /// Where its bytes are in the data (for data shared rather than copied).
    pub(crate) fn byte_range(&self) -> Result<std::ops::Range<usize>> {
        self.check(1)?;
        Ok(self.pos..self.pos + self.len)
    }

    pub(crate) fn table(&self, i: usize) -> Result<Table<'a>> {
        self.check(4)?;
        if i >= self.len {
            return err(self.pos, format!("element {i} of a vector of {}", self.len));
        }
        let at = self.pos + 4 * i;
        Table::at(self.data, follow(self.data, at)?)
    }

    pub(crate) fn u32(&self, i: usize) -> Result<u32> {
        self.check(4)?;
        if i >= self.len {
            return err(self.pos, format!("element {i} of a vector of {}", self.len));
        }
        read_u32(self.data, self.pos + 4 * i)
    }

    pub(crate) fn i32(&self, i: usize) -> Result<i32> {
        self.u32(i).map(|v| v as i32)
    }

    pub(crate) fn u64(&self, i: usize) -> Result<u64> {
        self.check(8)?;
        if i >= self.len {
            return err(self.pos, format!("element {i} of a vector of {}", self.len));
        }
        read_u64(self.data, self.pos + 8 * i)
    }

    pub(crate) fn i64(&self, i: usize) -> Result<i64> {
        self.u64(i).map(|v| v as i64)
    }

    /// All elements as `i32` (checked once; the length is bounded by the data).
    pub(crate) fn i32s(&self) -> Result<Vec<i32>> {
        self.check(4)?;
        (0..self.len).map(|i| self.i32(i)).collect()
    }

    /// All elements as `i64`.
    pub(crate) fn i64s(&self) -> Result<Vec<i64>> {
        self.check(8)?;
        (0..self.len).map(|i| self.i64(i)).collect()
    }

    /// Each element as a table (checked once).
    pub(crate) fn tables(&self) -> Result<Vec<Table<'a>>> {
        self.check(4)?;
        (0..self.len).map(|i| self.table(i)).collect()
    }
}
