//! Where a program's constants are: the inline constant buffers, or the constant segment
//! located by the extended header, read in place (no second copy).

use std::sync::Arc;

use super::ExtendedHeader;
use crate::import::flatbuf::{Table, Vector};
use crate::import::ImportError;
use crate::model::ConstantData;

/// Where a program's constant tensors keep their bytes: ExecuTorch's constant segment (one
/// offset per buffer index) when the program has one, else its inline constant buffers.
pub(super) struct Constants<'a> {
    file: &'a Arc<Vec<u8>>,
    program: Table<'a>,
    header: Option<ExtendedHeader>,
    inline: Vector<'a>,
    /// The segment's index, and each buffer's offset in it. The segment is located when a
    /// constant needs it (a program without constants may name one it does not have).
    segment: Option<(usize, Vec<u64>)>,
}

impl<'a> Constants<'a> {
    pub(super) fn new(
        file: &'a Arc<Vec<u8>>,
        program: &Table<'a>,
        header: Option<ExtendedHeader>,
    ) -> Result<Self, ImportError> {
        let inline = program.vector_or_empty(2)?;
        let segment = match program.table(5)? {
            Some(sub) if sub.vector_or_empty(1)?.len() > 0 => {
                let index = sub.u32(0, 0)? as usize;
                let offsets = sub.vector_or_empty(1)?;
                let offsets: Vec<u64> = (0..offsets.len())
                    .map(|i| offsets.u64(i))
                    .collect::<Result<_, _>>()?;
                Some((index, offsets))
            }
            _ => None,
        };
        Ok(Constants {
            file,
            program: *program,
            header,
            inline,
            segment,
        })
    }

    /// The initial contents of a mutable tensor (value `value`, `bytes` bytes): buffer `index`
    /// of mutable data segment list `which` (`Program.mutable_data_segments`).
    pub(super) fn mutable_data(
        &self,
        which: usize,
        index: u32,
        bytes: u64,
        value: usize,
    ) -> Result<ConstantData, ImportError> {
        let missing = |what: String| {
            ImportError::Invalid(format!(
                "value {value}: initial state {index} of mutable data {which} {what}"
            ))
        };
        let lists = self.program.vector_or_empty(6)?;
        if which >= lists.len() {
            return Err(missing(format!(
                "does not exist: the program has {} lists",
                lists.len()
            )));
        }
        let list = lists.table(which)?;
        let offsets = list.vector_or_empty(1)?;
        let index_usize = index as usize;
        if index_usize >= offsets.len() {
            return Err(missing(format!("is past its {} offsets", offsets.len())));
        }
        let offset = offsets.u64(index_usize)?;
        let segment = segment_range(
            &self.program,
            list.u32(0, 0)? as usize,
            self.header,
            self.file.len(),
            "a mutable tensor's initial state",
        )?;
        let start = segment.start.checked_add(offset);
        let range = match start.zip(start.and_then(|s| s.checked_add(bytes))) {
            Some((s, e)) if e <= segment.end => s as usize..e as usize,
            _ => {
                return Err(missing(format!(
                    "({bytes} bytes at {offset}) runs past its segment ({} bytes)",
                    segment.end - segment.start
                )))
            }
        };
        ConstantData::range(self.file, range).ok_or_else(|| missing("is outside the file".into()))
    }

    /// The `bytes` bytes of constant buffer `index`, for value `value`.
    pub(super) fn data(
        &self,
        index: u32,
        bytes: u64,
        value: usize,
    ) -> Result<ConstantData, ImportError> {
        let index = index as usize;
        let missing = |what: String| {
            ImportError::Invalid(format!("value {value}: constant buffer {index} {what}"))
        };
        let range = match &self.segment {
            Some((segment, offsets)) => {
                let segment = segment_range(
                    &self.program,
                    *segment,
                    self.header,
                    self.file.len(),
                    "the constant segment",
                )?;
                let offset = *offsets.get(index).ok_or_else(|| {
                    missing(format!(
                        "is past the constant segment's {} offsets",
                        offsets.len()
                    ))
                })?;
                let start = segment.start.checked_add(offset);
                match start.zip(start.and_then(|s| s.checked_add(bytes))) {
                    Some((s, e)) if e <= segment.end => s as usize..e as usize,
                    _ => {
                        return Err(missing(format!(
                            "({bytes} bytes at {offset}) runs past the constant segment ({} bytes)",
                            segment.end - segment.start
                        )))
                    }
                }
            }
            None => {
                if index >= self.inline.len() {
                    return Err(missing(format!(
                        "does not exist: the program has {}",
                        self.inline.len()
                    )));
                }
                let storage = self.inline.table(index)?.vector_or_empty(0)?.byte_range()?;
                if ((storage.end - storage.start) as u64) < bytes {
                    return Err(missing(format!(
                        "holds {} bytes, the tensor needs {bytes}",
                        storage.end - storage.start
                    )));
                }
                storage.start..storage.start + bytes as usize
            }
        };
        ConstantData::range(self.file, range).ok_or_else(|| missing("is outside the file".into()))
    }
}

/// The file range of segment `index`.
pub(super) fn segment_range(
    program: &Table<'_>,
    index: usize,
    header: Option<ExtendedHeader>,
    file_len: usize,
    what: &str,
) -> Result<std::ops::Range<u64>, ImportError> {
    let segments = program.vector_or_empty(4)?;
    if index >= segments.len() {
        return Err(ImportError::Invalid(format!(
            "{what} uses segment {index}, but the program has {}",
            segments.len()
        )));
    }
    let base = header
        .ok_or_else(|| ImportError::Invalid(format!("{what} is in segment {index}, but the file has no extended header locating segments")))?
        .segment_base_offset;
    let segment = segments.table(index)?;
    let (offset, size) = (segment.u64(0, 0)?, segment.u64(1, 0)?);
    let start = base.checked_add(offset);
    match start.zip(start.and_then(|s| s.checked_add(size))) {
        Some((s, e)) if e <= file_len as u64 => Ok(s..e),
        _ => Err(ImportError::Invalid(format!(
            "segment {index} ({size} bytes at {offset} after base {base}) runs past the end of the file ({file_len} bytes)"
        ))),
    }
}
