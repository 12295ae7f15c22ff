//! One compile-fail case per rule of `#[delegate]` and `spec!`, each with the exact
//! diagnostics in its `.stderr`, and pass cases. The target is corstone-300 from the
//! repository's targets.toml, as a build script would select it.

#[test]
fn ui() {
    let targets = concat!(env!("CARGO_MANIFEST_DIR"), "/../targets.toml");
    // SAFETY (edition 2024 wording): set before any other thread of this test binary reads the
    // environment; trybuild's cargo and rustc inherit it.
    std::env::set_var("ARENAPLAN_TARGET", "corstone-300");
    std::env::set_var("ARENAPLAN_TARGETS_FILE", targets);
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
    t.pass("tests/pass/*.rs");
}
