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
section = ".arenaplan.a"
region = "SRAM"
[[target.pool]]
mem_id = 3
name = "fast"
capacity = 0x60000
section = ".arenaplan.f"
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
    // Cortex-M55 and M85 have 32-byte data-cache lines; the Cortex-M33 boards have no data
    // cache in front of their NPU pools.
    for (name, line) in [
        ("corstone-300", Some(32)),
        ("corstone-320", Some(32)),
        ("mcxn947", None),
        ("imxrt700", None),
    ] {
        let t = c.target(name).unwrap();
        assert!(t.pools.iter().all(|p| p.dcache_line == line), "{name}");
        let npu = t.resolve_spec("npu_scratch").unwrap();
        assert_eq!(npu.arena_alignment(), line.unwrap_or(16).max(16), "{name}");
    }
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

#[test]
fn dcache_lines_are_powers_of_two() {
    let with = |line: &str| {
        MINIMAL.replace(
            "region = \"SRAM\"\n[[target.pool]]",
            &format!("region = \"SRAM\"\ndcache_line = {line}\n[[target.pool]]"),
        )
    };
    let c = parse(&with("32")).unwrap();
    let sram = c.targets[0].pool(1).unwrap();
    assert_eq!((sram.dcache_line, sram.arena_alignment()), (Some(32), 32));
    assert_eq!(c.targets[0].pool(3).unwrap().dcache_line, None);
    let e = error(&with("48"));
    assert!(
        e.starts_with(
            "t.toml:13:15: pool `sram`: dcache_line 48 is not a power of two between 1 and 4096"
        ),
        "{e}"
    );
    assert!(
        e.contains("help: give the CPU's data-cache line size in bytes"),
        "{e}"
    );
    let e = error(&with("0"));
    assert!(e.contains("dcache_line 0 is not a power of two"), "{e}");
    let e = error(&with("\"32\""));
    assert!(e.starts_with("t.toml:13:15: invalid type"), "{e}");
}

#[test]
fn names_that_reach_generated_code_follow_their_grammar() {
    let cases = [
        ("name = \"board\"", "name = \"bo\\\"ard\"", "target name"),
        ("name = \"sram\"", "name = \"a-b\"", "pool name"),
        ("name = \"sram\"", "name = \"x/y\"", "pool name"),
        (
            "section = \".arenaplan.a\"",
            "section = \".arenaplan\\\";int x;//\"",
            "section",
        ),
        (
            "section = \".arenaplan.a\"",
            "section = \".bss\"",
            "section",
        ),
        ("name = \"sram\"", "name = \"type\"", "pool name"),
        ("name = \"sram\"", "name = \"a__b\"", "pool name"),
        ("name = \"sram\"", "name = \"sram_\"", "pool name"),
        (
            "region = \"SRAM\"\n[[",
            "region = \"SRAM } > X\"\n[[",
            "region",
        ),
        (
            "npu_scratch = \"sram\"",
            "\"npu-scratch\" = \"sram\"",
            "compile spec",
        ),
    ];
    for (from, to, field) in cases {
        assert!(MINIMAL.contains(from), "{from}");
        let e = error(&MINIMAL.replacen(from, to, 1));
        assert!(
            e.contains(field) && e.contains("not a valid name"),
            "{to}: {e}"
        );
        assert!(e.contains("t.toml:"), "names the file and line: {e}");
    }
    let long = format!("name = \"{}\"", "a".repeat(65));
    assert!(error(&MINIMAL.replacen("name = \"sram\"", &long, 1)).contains("at most 64"));
}

#[test]
fn capacities_fit_the_targets_pointer_width() {
    let e = error(&MINIMAL.replacen("capacity = \"2 MiB\"", "capacity = 0xFFFFFFFFFFFFFFFF", 1));
    assert!(e.contains("32-bit addresses"), "{e}");
    // A 32-bit CPU addresses 4 GiB, but sizes are `usize` there: at most 2^32 - 1.
    assert!(
        error(&MINIMAL.replacen("capacity = \"2 MiB\"", "capacity = \"4 GiB\"", 1))
            .contains("32-bit")
    );
    assert!(parse(&MINIMAL.replacen("capacity = \"2 MiB\"", "capacity = 0xFFFFFFFF", 1)).is_ok());
}

#[test]
fn sections_do_not_fall_under_each_other() {
    for second in [".arenaplan.a", ".arenaplan.a.b"] {
        let e = error(&MINIMAL.replacen(
            "section = \".arenaplan.f\"",
            &format!("section = \"{second}\""),
            1,
        ));
        assert!(e.contains("overlaps `.arenaplan.a`"), "{e}");
    }
}

#[test]
fn a_section_above_another_overlaps_it_too() {
    let deep = MINIMAL.replacen(".arenaplan.a\"", ".arenaplan.a.deep\"", 1);
    let e = error(&deep.replacen(
        "section = \".arenaplan.f\"",
        "section = \".arenaplan.a\"",
        1,
    ));
    assert!(e.contains("overlaps `.arenaplan.a.deep`"), "{e}");
    // A shared prefix that is not a whole dotted part is no overlap.
    assert!(parse(&MINIMAL.replacen(
        "section = \".arenaplan.f\"",
        "section = \".arenaplan.ab\"",
        1
    ))
    .is_ok());
}

/// Validation is linear in the pools (it was quadratic: 10,000 pools took 9.7 s); this many
/// validate, and the last one's duplicate is still found.
#[test]
fn ten_thousand_pools_validate_and_a_duplicate_among_them_is_found() {
    let mut text = String::from(
        "schema_version = 1\n[[target]]\nname = \"big\"\ncpu = \"cortex-m55\"\nrust_target = \"thumbv8m.main-none-eabihf\"\ndefault_pool = \"p0\"\n",
    );
    for i in 0..10_000 {
        text.push_str(&format!(
            "[[target.pool]]\nmem_id = {}\nname = \"p{i}\"\ncapacity = 4096\nsection = \".arenaplan.p{i}\"\nregion = \"SRAM\"\n",
            i + 1
        ));
    }
    let catalogue = parse(&text).unwrap();
    assert_eq!(catalogue.target("big").unwrap().pools.len(), 10_000);
    text.push_str("[[target.pool]]\nmem_id = 10001\nname = \"last\"\ncapacity = 4096\nsection = \".arenaplan.p9999.x\"\nregion = \"SRAM\"\n");
    assert!(error(&text).contains("overlaps `.arenaplan.p9999`"));
}

#[test]
fn a_neutron_model_context_is_bytes_of_a_neutron_npu() {
    let npu = |backend: &str, context: &str| {
        MINIMAL.replacen(
            "[[target.pool]]",
            &format!("[target.npu]\nbackend = \"{backend}\"\nconfig = \"c\"\nmodel_context = {context}\n[[target.pool]]"),
            1,
        )
    };
    let c = parse(&npu("NeutronBackend", "\"2 KiB\"")).unwrap();
    assert_eq!(c.targets[0].npu.as_ref().unwrap().model_context, Some(2048));
    let e = error(&npu("EthosUBackend", "1024"));
    assert!(
        e.contains("t.toml:") && e.contains("`EthosUBackend`: remove it"),
        "{e}"
    );
    let e = error(&npu("NeutronBackend", "0"));
    assert!(e.contains("between 1 byte and 16 MiB, found 0"), "{e}");
    // Without it, NXP's library keeps the context on its heap.
    assert_eq!(parse(MINIMAL).unwrap().targets[0].npu, None);
}

#[test]
fn a_blob_section_is_a_loaded_section() {
    let with = |section: &str| {
        MINIMAL.replacen(
            "default_pool = \"sram\"",
            &format!("default_pool = \"sram\"\nblob_section = \"{section}\""),
            1,
        )
    };
    for ok in [".rodata.model", "network_model_sec", ".bss_models"] {
        let c = parse(&with(ok)).unwrap_or_else(|e| panic!("{ok}: {e}"));
        assert_eq!(c.targets[0].blob_section.as_deref(), Some(ok));
    }
    assert_eq!(parse(MINIMAL).unwrap().targets[0].blob_section, None);
    // NOLOAD arenas, zeroed or uninitialised sections would lose the blob; quotes and spaces
    // would change the generated assembly.
    for bad in [
        ".arenaplan.sram",
        ".bss",
        ".bss.model",
        ".noinit",
        "a\\\" b",
        "1st",
    ] {
        let e = error(&with(bad));
        assert!(
            e.contains("blob_section") && e.contains("loaded section") && e.contains("t.toml:"),
            "{bad}: {e}"
        );
    }
}
