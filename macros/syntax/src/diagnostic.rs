//! Errors in user files: where (file, line, column), what, and what to change.

use std::fmt;
use std::path::{Path, PathBuf};

/// A problem in an input file, located to the line and column.
///
/// ```
/// use arenaplan_syntax::diagnostic::{Diagnostic, SourceText};
/// let src = SourceText::new("targets.toml", "a = 1\nb = x\n");
/// let d = Diagnostic::at(&src, 10, "expected a value").with_help("quote strings");
/// assert_eq!(d.to_string(), "targets.toml:2:5: expected a value\n  help: quote strings");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file.
    pub path: PathBuf,
    /// 1-based line, 0 when the problem concerns the whole file.
    pub line: usize,
    /// 1-based column (in characters), 0 when unknown.
    pub column: usize,
    /// What is wrong.
    pub message: String,
    /// What to change, when there is something to say.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A problem at byte `offset` of `source`.
    pub fn at(source: &SourceText, offset: usize, message: impl Into<String>) -> Self {
        let (line, column) = source.line_column(offset);
        Diagnostic {
            path: source.path.clone(),
            line,
            column,
            message: message.into(),
            help: None,
        }
    }

    /// A problem with the file as a whole (unreadable, missing).
    pub fn file(path: &Path, message: impl Into<String>) -> Self {
        Diagnostic {
            path: path.to_path_buf(),
            line: 0,
            column: 0,
            message: message.into(),
            help: None,
        }
    }

    /// Adds what to change.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if self.line > 0 {
            write!(f, ":{}:{}", self.line, self.column)?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// A file's text, kept to turn byte offsets into lines and columns.
#[derive(Clone, Debug)]
pub struct SourceText {
    /// Where it was read from (used in messages).
    pub path: PathBuf,
    /// The text.
    pub text: String,
}

impl SourceText {
    /// Wraps text read from `path`.
    pub fn new(path: impl Into<PathBuf>, text: impl Into<String>) -> Self {
        SourceText {
            path: path.into(),
            text: text.into(),
        }
    }

    /// Reads a regular file of at most `max_bytes` with [`crate::input::read_input_file`]
    /// (FIFOs and devices refused; the limit holds whatever the metadata says).
    pub fn read(path: &Path, max_bytes: u64) -> Result<Self, Diagnostic> {
        let bytes = crate::input::read_input_file(path, max_bytes)
            .map_err(|e| Diagnostic::file(path, e.to_string()))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| Diagnostic::file(path, format!("not UTF-8 text ({e})")))?;
        Ok(SourceText::new(path, text))
    }

    /// 1-based line and column of byte `offset` (clamped to the text).
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        (line, column)
    }
}

/// The closest of `candidates` to `name`, if close enough to be a likely typo.
///
/// ```
/// use arenaplan_syntax::diagnostic::did_you_mean;
/// assert_eq!(did_you_mean("npu_scrach", ["npu_scratch", "sram"]), Some("npu_scratch"));
/// assert_eq!(did_you_mean("zzz", ["npu_scratch"]), None);
/// ```
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|&(score, _)| score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, c)| c)
}
