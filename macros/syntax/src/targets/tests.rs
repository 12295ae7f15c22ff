use super::*;

fn parse(text: &str) -> Result<Catalogue, Diagnostic> {
    Catalogue::parse(&SourceText::new("t.toml", text))
}

const MINIMAL: &str = r#"schema_version = 1
[[target]]
name = "board"
cpu = "cortex-m55"
rust_target = "thumbv8m.main-none-eabihf"
default_pool = "sram"
[[target.pool]]
mem_id = 1
name = "sram"
capacity = "2 MiB"
section = ".bss.a"
region = "SRAM"
[[target.pool]]
mem_id = 3
name = "fast"
capacity = 0x60000
section = ".bss.f"
region = "SRAM"
enabled = false
[target.specs]
npu_scratch = "sram"
fast = "fast"
"#;

fn error(text: &str) -> String {
    parse(text).expect_err("expected an error").to_string()
}

#[test]
fn the_builtin_catalogue_is_valid_and_complete() {
    let c = Catalogue::parse(&SourceText::new("targets.toml", BUILTIN_TARGETS)).unwrap();
    for name in ["corstone-300", "corstone-320", "mcxn947", "imxrt700"] {
        let t = c.target(name).unwrap();
        assert!(t.resolve_spec("npu_scratch").is_ok(), "{name}");
        assert!(t.resolve_spec("fast_scratch").is_ok(), "{name}");
    }
    let c300 = c.target("corstone-300").unwrap();
    assert_eq!(c300.resolve_spec("npu_scratch").unwrap().capacity, 2 << 20);
    assert_eq!(c300.pool(3).map(|p| p.enabled), Some(false));
    let c320 = c.target("corstone-320").unwrap();
    assert_ne!(
        c320.resolve_spec("npu_scratch").unwrap().mem_id,
        c320.resolve_spec("fast_scratch").unwrap().mem_id,
        "Dedicated_Sram puts scratch and fast scratch in different pools"
    );
}

#[test]
fn sizes_parse_in_every_notation() {
    let c = parse(MINIMAL).unwrap();
    let t = &c.targets[0];
    assert_eq!(t.pool(1).unwrap().capacity, 2 * 1024 * 1024);
    assert_eq!(t.pool(3).unwrap().capacity, 0x60000);
    let decimal = MINIMAL.replace("\"2 MiB\"", "2097152");
    assert_eq!(
        parse(&decimal).unwrap().targets[0]
            .pool(1)
            .unwrap()
            .capacity,
        2097152
    );
    let bad = MINIMAL.replace("\"2 MiB\"", "\"2 MB\"");
    assert!(
        error(&bad).starts_with("t.toml:10:12: `2 MB` is not a size"),
        "{}",
        error(&bad)
    );
}

#[test]
fn syntax_and_unknown_fields_name_line_and_column() {
    let e = error("schema_version = 1\n[[target]]\nname = \n");
    assert!(e.starts_with("t.toml:3:"), "{e}");
    let e = error(&MINIMAL.replace(
        "region = \"SRAM\"\n[[target.pool]]",
        "region = \"SRAM\"\nregoin = 1\n[[target.pool]]",
    ));
    assert!(e.starts_with("t.toml:13:1: unknown field `regoin`"), "{e}");
}

#[test]
fn wrong_schema_version_says_which_is_supported() {
    let e = error(&MINIMAL.replace("schema_version = 1", "schema_version = 2"));
    assert_eq!(e, "t.toml:1:18: schema_version 2 is not supported\n  help: this arenaplan reads schema_version = 1");
}

#[test]
fn pools_are_validated() {
    let e = error(&MINIMAL.replace("mem_id = 3", "mem_id = 1"));
    assert!(
        e.starts_with("t.toml:14:10: target `board`: mem_id 1 is used by two pools"),
        "{e}"
    );
    let e = error(&MINIMAL.replace("mem_id = 3", "mem_id = 0"));
    assert!(
        e.starts_with("t.toml:14:10: mem_id must be at least 1"),
        "{e}"
    );
    let e = error(&MINIMAL.replace("capacity = 0x60000", "capacity = 0"));
    assert!(e.contains("pool `fast` has capacity 0"), "{e}");
    let e = error(&MINIMAL.replace("name = \"fast\"", "name = \"sram\""));
    assert!(e.contains("pool name `sram` is used twice"), "{e}");
}

#[test]
fn specs_must_name_existing_pools() {
    let e = error(&MINIMAL.replace("npu_scratch = \"sram\"", "npu_scratch = \"srma\""));
    assert_eq!(
        e,
        "t.toml:21:15: compile spec `npu_scratch` names pool `srma`, which target `board` does not have\n  help: did you mean `sram`? pools: sram, fast"
    );
}

#[test]
fn duplicate_target_names_are_refused() {
    let twice = format!("{MINIMAL}{}", MINIMAL.replace("schema_version = 1\n", ""));
    assert!(error(&twice).contains("target `board` is defined twice"));
}

#[test]
fn spec_resolution_explains_unknown_and_disabled() {
    let c = parse(MINIMAL).unwrap();
    let t = &c.targets[0];
    assert_eq!(t.resolve_spec("npu_scratch").unwrap().name, "sram");
    assert_eq!(
        t.resolve_spec("npu_scrach").unwrap_err().to_string(),
        "target `board` has no compile spec `npu_scrach` (did you mean `npu_scratch`?); it defines: fast, npu_scratch"
    );
    assert!(matches!(
        t.resolve_spec("fast"),
        Err(SpecError::Disabled { .. })
    ));
    assert!(matches!(
        t.enabled_pool(0),
        Err(SpecError::ReservedMemId { mem_id: 0 })
    ));
    assert!(matches!(
        t.enabled_pool(7),
        Err(SpecError::UnknownMemId { .. })
    ));
    assert_eq!(
        c.target("bord").unwrap_err().to_string(),
        "unknown target `bord` (did you mean `board`?); the catalogue defines: board"
    );
}
