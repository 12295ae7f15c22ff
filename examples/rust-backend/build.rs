//! Plans model.toml for corstone-320 with the declaration in src/main.rs.
fn main() {
    arenaplan_build::Build::new()
        .model("model.toml")
        .target("corstone-320")
        .compile();
}
