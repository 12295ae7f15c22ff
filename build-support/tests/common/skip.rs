//! What a test does when something it reads is not here (the corpus beside the repository, a
//! vendor's sources): under `CI=true` it fails, since CI has all of them; elsewhere it passes
//! and says what it skipped where `cargo test` shows it. (`eprintln!` would not do: the test
//! harness captures it and prints nothing for a passing test. Writing to the standard error
//! handle itself is not captured.)
#![allow(dead_code)] // each test binary uses its own subset

use std::io::Write;

/// Skips the calling test because of `why` (a missing file or setting, and where it comes
/// from), or fails it under `CI=true`.
pub fn skip(why: &str) {
    assert!(
        std::env::var("CI").map_or(true, |v| v != "true"),
        "CI=true, but {why}"
    );
    let test = std::thread::current().name().unwrap_or("a test").to_owned();
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}
