//! The human-readable outputs, made from a verified plan: the text report (`NAME.report.txt`,
//! also what `arenaplan inspect --target` prints) and the memory map (`NAME.svg`).

mod svg;
mod text;

pub use svg::memory_map;
pub use text::report;
