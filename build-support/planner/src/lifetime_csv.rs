//! The lifetime CSV format of MiniMalloc and idealloc: one buffer per row, header
//! `id,lower,upper,size`, optional `alignment`, any other columns carried through. A buffer is
//! alive during the half-open interval `[lower, upper)`. A plan repeats the input and adds
//! (or replaces) an `offset` column.
//!
//! ```
//! use arenaplan_planner::lifetime_csv::LifetimeTable;
//! let table = LifetimeTable::parse("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n".as_bytes())?;
//! let problem = table.to_problem(1);
//! let mut out = Vec::new();
//! table.write_with_offsets(&[0, 0], &mut out)?;
//! assert_eq!(String::from_utf8(out).unwrap(), "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,4,0\n");
//! # assert_eq!(problem.buffers.len(), 2);
//! # Ok::<(), arenaplan_planner::lifetime_csv::CsvError>(())
//! ```

use std::collections::HashMap;
use std::io::{Read, Write};

use thiserror::Error;

use crate::{Buffer, Problem};

/// Columns every input must have.
pub const REQUIRED_COLUMNS: [&str; 4] = ["id", "lower", "upper", "size"];

/// A lifetime CSV that could not be read. Line numbers count from 1 (the header).
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CsvError {
    /// The input could not be read or the output written.
    #[error("{0}")]
    Io(#[from] std::io::Error),
    /// Not well-formed CSV (for example a row with a different number of fields).
    #[error("line {line}: {message}")]
    Syntax {
        /// Line of the problem.
        line: u64,
        /// What the CSV reader reported.
        message: String,
    },
    /// The header lacks a required column.
    #[error("line 1: missing column `{column}` (the header must contain id,lower,upper,size)")]
    MissingColumn {
        /// The missing column.
        column: &'static str,
    },
    /// The header names a column twice.
    #[error("line 1: column `{column}` appears twice")]
    DuplicateColumn {
        /// The repeated column.
        column: String,
    },
    /// A field that is not what its column needs.
    #[error("line {line}: column `{column}`: {problem} (found `{value}`)")]
    BadField {
        /// Line of the row.
        line: u64,
        /// Column of the field.
        column: &'static str,
        /// The field as written.
        value: String,
        /// What is wrong and what is expected.
        problem: &'static str,
    },
    /// `upper` not above `lower`.
    #[error("line {line}: upper ({upper}) must be greater than lower ({lower}); lifetimes are half-open [lower, upper)")]
    EmptyLifetime {
        /// Line of the row.
        line: u64,
        /// The row's `lower`.
        lower: u64,
        /// The row's `upper`.
        upper: u64,
    },
    /// Two rows with the same id.
    #[error("line {line}: duplicate id `{id}` (first used on line {first_line})")]
    DuplicateId {
        /// Line of the second row.
        line: u64,
        /// The id.
        id: String,
        /// Line of the first row.
        first_line: u64,
    },
}

/// One row of the table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// Line in the input (1 is the header).
    pub line: u64,
    /// The row's id.
    pub id: String,
    /// Every field as written, in header order.
    pub fields: Vec<String>,
    /// The buffer it describes (alignment 1 unless the row gives one).
    pub buffer: Buffer,
}

/// A parsed lifetime CSV.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LifetimeTable {
    /// The header's column names.
    pub columns: Vec<String>,
    /// The rows, in input order.
    pub rows: Vec<Row>,
}

struct Columns {
    id: usize,
    lower: usize,
    upper: usize,
    size: usize,
    alignment: Option<usize>,
}

impl LifetimeTable {
    /// Reads a table. Errors name the line and column and say what is expected.
    pub fn parse(input: impl Read) -> Result<Self, CsvError> {
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_reader(input);
        let columns: Vec<String> = reader
            .headers()
            .map_err(syntax)?
            .iter()
            .map(str::to_owned)
            .collect();
        let at = locate_columns(&columns)?;
        let mut rows = Vec::new();
        let mut seen: HashMap<String, u64> = HashMap::new();
        for record in reader.records() {
            let record = record.map_err(syntax)?;
            let line = record.position().map_or(0, csv::Position::line);
            let field = |i: usize| record.get(i).unwrap_or("");
            let lower = integer(line, "lower", field(at.lower))?;
            let upper = integer(line, "upper", field(at.upper))?;
            let size = integer(line, "size", field(at.size))?;
            let alignment = match at.alignment {
                Some(i) => {
                    let a = integer(line, "alignment", field(i))?;
                    if a == 0 {
                        return Err(bad(line, "alignment", field(i), "must be at least 1"));
                    }
                    a
                }
                None => 1,
            };
            if upper <= lower {
                return Err(CsvError::EmptyLifetime { line, lower, upper });
            }
            let id = field(at.id).to_owned();
            if id.is_empty() {
                return Err(bad(line, "id", "", "must not be empty"));
            }
            if let Some(&first_line) = seen.get(&id) {
                return Err(CsvError::DuplicateId {
                    line,
                    id,
                    first_line,
                });
            }
            seen.insert(id.clone(), line);
            rows.push(Row {
                line,
                id,
                fields: record.iter().map(str::to_owned).collect(),
                buffer: Buffer::new(size, lower, upper).with_alignment(alignment),
            });
        }
        Ok(LifetimeTable { columns, rows })
    }

    /// The planning problem: one buffer per row, pool alignment `alignment`, no capacity.
    pub fn to_problem(&self, alignment: u64) -> Problem {
        Problem::new(self.rows.iter().map(|r| r.buffer.clone()).collect()).with_alignment(alignment)
    }

    /// Writes the table with an `offset` column holding `offsets` (one per row). An `offset`
    /// column already in the input is replaced.
    pub fn write_with_offsets(&self, offsets: &[u64], output: impl Write) -> Result<(), CsvError> {
        let existing = self.columns.iter().position(|c| c == "offset");
        let mut writer = csv::Writer::from_writer(output);
        let mut header: Vec<&str> = self.columns.iter().map(String::as_str).collect();
        if existing.is_none() {
            header.push("offset");
        }
        writer.write_record(&header).map_err(csv_io)?;
        for (row, offset) in self.rows.iter().zip(offsets) {
            let mut fields: Vec<String> = row.fields.clone();
            match existing {
                Some(i) => fields[i] = offset.to_string(),
                None => fields.push(offset.to_string()),
            }
            writer.write_record(&fields).map_err(csv_io)?;
        }
        writer.flush()?;
        Ok(())
    }
}

fn locate_columns(columns: &[String]) -> Result<Columns, CsvError> {
    for (i, c) in columns.iter().enumerate() {
        if columns[..i].contains(c) {
            return Err(CsvError::DuplicateColumn { column: c.clone() });
        }
    }
    let find = |name: &'static str| columns.iter().position(|c| c == name);
    let require = |name: &'static str| find(name).ok_or(CsvError::MissingColumn { column: name });
    Ok(Columns {
        id: require(REQUIRED_COLUMNS[0])?,
        lower: require(REQUIRED_COLUMNS[1])?,
        upper: require(REQUIRED_COLUMNS[2])?,
        size: require(REQUIRED_COLUMNS[3])?,
        alignment: find("alignment"),
    })
}

fn integer(line: u64, column: &'static str, value: &str) -> Result<u64, CsvError> {
    value.parse::<u64>().map_err(|_| {
        let problem = if value.is_empty() {
            "is empty; expected a non-negative integer"
        } else if value.starts_with('-') && value[1..].parse::<u64>().is_ok() {
            "must not be negative"
        } else {
            "expected a non-negative integer"
        };
        bad(line, column, value, problem)
    })
}

fn bad(line: u64, column: &'static str, value: &str, problem: &'static str) -> CsvError {
    CsvError::BadField {
        line,
        column,
        value: value.to_owned(),
        problem,
    }
}

fn syntax(e: csv::Error) -> CsvError {
    let line = e.position().map_or(0, csv::Position::line);
    match e.into_kind() {
        csv::ErrorKind::Io(io) => CsvError::Io(io),
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => CsvError::Syntax {
            line,
            message: format!("{len} fields where the header has {expected_len}"),
        },
        csv::ErrorKind::Utf8 { err, .. } => CsvError::Syntax {
            line,
            message: format!("not valid UTF-8: {err}"),
        },
        other => CsvError::Syntax {
            line,
            message: format!("{other:?}"),
        },
    }
}

fn csv_io(e: csv::Error) -> CsvError {
    match e.into_kind() {
        csv::ErrorKind::Io(io) => CsvError::Io(io),
        other => CsvError::Syntax {
            line: 0,
            message: format!("{other:?}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_err(text: &str) -> String {
        LifetimeTable::parse(text.as_bytes())
            .expect_err("expected an error")
            .to_string()
    }

    #[test]
    fn reads_extra_columns_and_alignment() {
        let t =
            LifetimeTable::parse("size,id,note,upper,lower,alignment\n8,a,x,3,1,4\n".as_bytes())
                .unwrap();
        assert_eq!(t.rows[0].buffer, Buffer::new(8, 1, 3).with_alignment(4));
        let mut out = Vec::new();
        t.write_with_offsets(&[12], &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "size,id,note,upper,lower,alignment,offset\n8,a,x,3,1,4,12\n"
        );
    }

    #[test]
    fn errors_name_the_line_and_the_fix() {
        assert_eq!(
            parse_err("id,lower,size\n"),
            "line 1: missing column `upper` (the header must contain id,lower,upper,size)"
        );
        assert_eq!(
            parse_err("id,lower,upper,size\na,0,2,4\nb,0,2,-4\n"),
            "line 3: column `size`: must not be negative (found `-4`)"
        );
        assert_eq!(
            parse_err("id,lower,upper,size\na,0,2,4\nb,0,x,4\n"),
            "line 3: column `upper`: expected a non-negative integer (found `x`)"
        );
        assert_eq!(
            parse_err("id,lower,upper,size\na,2,2,4\n"),
            "line 2: upper (2) must be greater than lower (2); lifetimes are half-open [lower, upper)"
        );
        assert_eq!(
            parse_err("id,lower,upper,size\na,0,2,4\na,1,3,4\n"),
            "line 3: duplicate id `a` (first used on line 2)"
        );
        assert_eq!(
            parse_err("id,lower,upper,size\na,0,2\n"),
            "line 2: 3 fields where the header has 4"
        );
        assert_eq!(
            parse_err("id,lower,upper,size,alignment\na,0,2,4,0\n"),
            "line 2: column `alignment`: must be at least 1 (found `0`)"
        );
    }
}
