//! The `cargo::` instructions of one build.

/// The `cargo::` instructions of one build: printed under Cargo, and kept for [`Generated`].
pub(super) struct CargoOutput {
    print: bool,
    pub(super) lines: Vec<String>,
    /// The first instruction that held a line break (never printed: it would start an
    /// instruction of its own); the build stops on it.
    pub(super) broken: Option<String>,
}

impl CargoOutput {
    pub(super) fn new(print: bool) -> Self {
        CargoOutput {
            print,
            lines: Vec::new(),
            broken: None,
        }
    }

    pub(super) fn line(&mut self, line: String) {
        // Only a printed instruction can be split by a line break (the CLI prints none).
        if self.print && line.contains(['\n', '\r']) {
            self.broken.get_or_insert(line);
            return;
        }
        if self.print {
            println!("{line}");
        }
        self.lines.push(line);
    }
}
