//! Cache-line-safe plans: on a CPU with a data cache, every buffer the NPU reads or writes starts
//! on a line and no other buffer alive with it shares one of its lines, so the backend's cache
//! maintenance of that buffer never touches a neighbour.

mod common;

use std::path::{Path, PathBuf};

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::emit::{Emit, Symbols};
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::import::{load_pte, load_tflite};
use arenaplan_build::model::Program;
use arenaplan_build::pipeline::{BufferPlan, CallKind, ModelPlan};
use arenaplan_build::targets::{Catalogue, Target};

/// The same target with no data cache anywhere (the plan arenaplan made before `dcache_line`).
fn without_cache(target: &Target) -> Target {
    let mut t = target.clone();
    for pool in &mut t.pools {
        pool.dcache_line = None;
    }
    t
}

fn run(target: &Target, program: Program) -> (Program, ModelPlan) {
    common::planned(target, program).unwrap_or_else(|e| panic!("{}: {e}", target.name))
}

/// Value ids the NPU reads or writes, derived from the plan alone: the scratch of every NPU
/// backend's call, and the inputs and outputs of Neutron calls (Ethos-U copies its I/O with
/// the CPU).
fn npu_visible(plan: &ModelPlan) -> Vec<usize> {
    let mut ids = Vec::new();
    for call in plan.calls.iter().filter(|c| c.kind == CallKind::Delegate) {
        match call.backend.as_deref() {
            Some("EthosUBackend") => ids.extend(&call.args[call.inputs + call.outputs..]),
            Some("NeutronBackend") => ids.extend(&call.args),
            _ => {}
        }
    }
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// Every NPU-visible planned buffer in a pool with a line starts on a line, and no other
/// buffer alive at the same time overlaps the whole lines it spans. Returns how many were
/// checked.
fn check_lines(name: &str, target: &Target, plan: &ModelPlan) -> usize {
    let mut checked = 0;
    for id in npu_visible(plan) {
        let Some(b) = plan.buffer(id) else { continue };
        let Some(line) = target.pool(b.mem_id).and_then(|p| p.dcache_line) else {
            continue;
        };
        checked += 1;
        assert_eq!(b.offset % line, 0, "{name}: buffer {id} is not on a line");
        let (start, end) = (b.offset, (b.offset + b.size).div_ceil(line) * line);
        let alive_together = |o: &BufferPlan| o.first <= b.last && b.first <= o.last;
        // A call's input or output at its slot in the call's scratch is inside it by design
        // (the NPU reads and writes it there; the scratch's maintenance covers it).
        for o in plan.buffers.iter().filter(|o| o.within == Some(id)) {
            assert!(
                o.offset >= b.offset && o.offset + o.size <= b.offset + b.size,
                "{name}: buffer {} at its slot lies outside NPU buffer {id}",
                o.id
            );
        }
        for o in plan.buffers.iter().filter(|o| {
            o.id != id
                && o.within != Some(id)
                && o.mem_id == b.mem_id
                && o.size > 0
                && alive_together(o)
        }) {
            assert!(
                o.offset + o.size <= start || o.offset >= end,
                "{name}: buffer {} [{}, {}) shares a line of NPU buffer {id} [{start}, {end})",
                o.id,
                o.offset,
                o.offset + o.size
            );
        }
        let pool = plan.pool(b.mem_id).unwrap();
        assert!(end <= pool.size, "{name}: the padding is inside the arena");
    }
    checked
}

fn model(text: &str) -> Program {
    parse_toml_model(&SourceText::new("test.toml", text), None).unwrap_or_else(|d| panic!("{d}"))
}

#[test]
fn a_40_byte_scratch_next_to_a_tensor_takes_64_bytes() {
    let catalogue = Catalogue::builtin();
    let target = catalogue.target("corstone-300").unwrap();
    let program = model(&common::one_call(
        "EthosUBackend",
        "{ size = 40, pool = \"npu_scratch\" }",
    ));
    let (_, plan) = run(target, program.clone());
    let scratch = plan.buffer(plan.calls[0].args[2]).unwrap();
    // The scratch owns its whole lines, and says so: the backend checks it owns what it cleans
    // and invalidates.
    assert_eq!(
        scratch.size, 64,
        "an NPU scratch's size covers its whole lines"
    );
    assert_eq!(scratch.offset % 32, 0);
    // x, y (16 each: Ethos-U copies them with the CPU, so they are not padded) and the scratch's
    // two whole lines, all alive during the call.
    let pool = &plan.pools[0];
    assert_eq!((pool.lower_bound, pool.size), (16 + 16 + 64, 96));
    assert_eq!(check_lines("one_call", target, &plan), 1);
    // Without a data cache the scratch takes its 40 bytes rounded to the pool's 16.
    let (_, bare) = run(&without_cache(target), program);
    assert_eq!(bare.pools[0].size, 16 + 16 + 48);
}

#[test]
fn neutron_inputs_and_outputs_are_on_whole_lines_where_the_pool_has_a_cache() {
    let catalogue = Catalogue::builtin();
    // The MCX N947 has no data cache; give its pools one to see the Neutron's I/O padded.
    let mut target = catalogue.target("mcxn947").unwrap().clone();
    for pool in &mut target.pools {
        pool.dcache_line = Some(32);
    }
    let program = model(&common::one_call(
        "NeutronBackend",
        "{ size = 40, pool = \"npu_scratch\" }",
    ));
    let (_, plan) = run(&target, program.clone());
    assert_eq!(check_lines("neutron", &target, &plan), 3);
    assert_eq!(plan.pools[0].lower_bound, 32 + 32 + 64);
    // On the real MCX N947 nothing is padded.
    let real = catalogue.target("mcxn947").unwrap();
    let (_, plan) = run(real, program);
    // The bound of an arena ending at its last byte: the 40-byte scratch on top, unrounded.
    assert_eq!(plan.pools[0].lower_bound, 16 + 16 + 40);
}

#[test]
fn arenas_start_on_a_cache_line() {
    let catalogue = Catalogue::builtin();
    for (target, align) in [("corstone-300", 32), ("corstone-320", 32), ("mcxn947", 16)] {
        let target = catalogue.target(target).unwrap();
        let backend = &target.npu.as_ref().unwrap().backend;
        let (program, plan) = run(
            target,
            model(&common::one_call(
                backend,
                "{ size = 40, pool = \"npu_scratch\" }",
            )),
        );
        let files = common::emit_files(&program, &plan, target, "m", Symbols::C, Emit::ALL);
        let file = |name: &str| common::text(&files, name);
        let pool = target.pool(plan.pools[0].mem_id).unwrap();
        assert_eq!(pool.arena_alignment(), align);
        let arena = format!(
            "::arenaplan::Arena<{{ pool::{}::SIZE }}, {align}>",
            pool.name
        );
        assert!(file("m.rs").contains(&arena), "{}", file("m.rs"));
        assert!(file("m.rs").contains(&format!("pub const ALIGN: usize = {align};")));
        assert!(file("m.c").contains(&format!("aligned({align})))")));
        assert!(file("m.h").contains(&format!("_ALIGN {align}u")));
        let ld = format!("m.{}.ld", pool.name);
        assert!(file(&ld).contains(&format!("(NOLOAD) : ALIGN({align})")));
    }
}

/// The Ethos-U programs of the corpus and of the repository's fixtures, with the target their
/// blobs were compiled for (u55: Corstone-300, u85: Corstone-320).
fn ethos_u_programs() -> Vec<(PathBuf, &'static str)> {
    let mut files = Vec::new();
    if let Some(corpus) = common::corpus() {
        files.extend(common::files(&corpus.join("pte-delegated"), "pte"));
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fixtures");
    files.extend(common::files(&fixtures, "pte"));
    files
        .into_iter()
        .filter_map(|path| {
            let name = path.file_name()?.to_str()?.to_owned();
            let target = if name.starts_with("ethosu_u55") {
                "corstone-300"
            } else if name.starts_with("ethosu_u85") {
                "corstone-320"
            } else {
                return None;
            };
            Some((path, target))
        })
        .collect()
}

#[test]
fn npu_buffers_of_every_ethos_u_program_are_on_whole_lines() {
    let catalogue = Catalogue::builtin();
    let mut programs: Vec<(String, Program, &str)> = ethos_u_programs()
        .into_iter()
        .map(|(path, target)| {
            let program = load_pte(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path.display().to_string(), program, target)
        })
        .collect();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/fixtures");
    for path in common::files(&fixtures, "tflite") {
        let name = path.display().to_string();
        let target = if name.contains("_vela_u55") {
            "corstone-300"
        } else if name.contains("_vela_u85") {
            "corstone-320"
        } else {
            continue;
        };
        programs.push((name, load_tflite(&path).unwrap(), target));
    }
    assert!(programs.len() >= 7, "expected the fixtures at least");
    let mut checked = 0;
    for (name, program, own) in programs {
        let mut targets = vec![catalogue.target(own).unwrap().clone()];
        // A Shared_Sram (u55) blob on Corstone-320's memories too (its pools, an Ethos-U55 in
        // place of its U85, which the build would refuse): one scratch buffer in its DDR.
        if own == "corstone-300" {
            let mut t = catalogue.target("corstone-320").unwrap().clone();
            if let Some(npu) = t.npu.as_mut() {
                npu.config = "ethos-u55-128".into();
            }
            targets.push(t);
        }
        for target in &targets {
            let (_, plan) = run(target, program.clone());
            checked += check_lines(&format!("{name} on {}", target.name), target, &plan);
        }
    }
    assert!(checked >= 12, "{checked} NPU buffers checked");
}

/// What the padding costs: every Ethos-U program on its own target, each pool's arena with
/// `dcache_line` and without (`cargo test -p arenaplan-build --test cache_lines -- --nocapture`
/// prints the table).
#[test]
fn ram_cost_of_cache_line_padding() {
    let catalogue = Catalogue::builtin();
    println!(
        "| program | target | pool | arena without | arena with | delta | delta % |\n|---|---|---|---:|---:|---:|---:|"
    );
    for (path, target) in ethos_u_programs() {
        let target = catalogue.target(target).unwrap();
        let program = load_pte(&path).unwrap();
        let (_, with) = run(target, program.clone());
        let (_, without) = run(&without_cache(target), program);
        assert_eq!(with.pools.len(), without.pools.len());
        let npu_buffers = npu_visible(&with).len() as u64;
        for (w, o) in with.pools.iter().zip(&without.pools) {
            assert_eq!(w.mem_id, o.mem_id);
            let delta = w.size as i64 - o.size as i64;
            // Each NPU buffer grows by less than a line (16-aligned to 32-aligned, rounded up).
            assert!(
                w.size <= o.size + 32 * npu_buffers,
                "{}: {} vs {}",
                path.display(),
                w.size,
                o.size
            );
            println!(
                "| {} | {} | {} | {} | {} | {delta:+} | {:+.3}% |",
                path.file_name().unwrap().to_string_lossy(),
                target.name,
                w.name,
                o.size,
                w.size,
                delta as f64 * 100.0 / o.size.max(1) as f64
            );
        }
    }
}
