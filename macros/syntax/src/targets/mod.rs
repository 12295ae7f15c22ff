//! The catalogue of boards (`targets.toml`): CPU, NPU, memory pools and compile specs.
//!
//! A pool is a memory with a `mem_id` (≥ 1; 0 is reserved, as in ExecuTorch, where program
//! `mem_id` k is planned buffer k − 1 at run time), a capacity, a linker section and region, an
//! alignment, the CPU's data-cache line where a data cache sits between the CPU and the pool,
//! whether the CPU can reach it and whether it is enabled by default. A *compile
//! spec* names a pool by role (`npu_scratch`, `fast_scratch`, …): firmware and models refer to
//! pools only through spec names, so which memory a role lives in is the target's business.
//!
//! ```
//! use arenaplan_syntax::targets::Catalogue;
//! let catalogue = Catalogue::builtin();
//! let target = catalogue.target("corstone-300")?;
//! let scratch = target.resolve_spec("npu_scratch")?;
//! assert!(scratch.mem_id >= 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod schema;
mod size;

use std::collections::BTreeMap;
use std::path::Path;

use thiserror::Error;
use toml::Spanned;

use crate::diagnostic::{did_you_mean, Diagnostic, SourceText};
use crate::names::{check, NameKind};
pub use size::ByteSize;

/// The only schema version this build understands.
pub const SCHEMA_VERSION: i64 = 1;

/// The catalogue shipped with arenaplan (`targets.toml` at the repository root).
pub const BUILTIN_TARGETS: &str = include_str!("../../targets.toml");

/// Largest `targets.toml` read (a catalogue is a few kilobytes).
const MAX_FILE_BYTES: u64 = 4 << 20;

/// All targets of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Catalogue {
    /// The targets, in file order.
    pub targets: Vec<Target>,
}

/// One board: its processors and memories.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Name used to select it (`--target`, `ARENAPLAN_TARGET`).
    pub name: String,
    /// One line for people.
    pub description: String,
    /// The CPU core, e.g. `cortex-m55`.
    pub cpu: String,
    /// The Rust target triple of firmware for it.
    pub rust_target: String,
    /// The NPU, if the board has one.
    pub npu: Option<Npu>,
    /// Its memory pools, by `mem_id`.
    pub pools: Vec<Pool>,
    /// Compile-spec name → `mem_id`.
    pub specs: BTreeMap<String, u32>,
    /// Pool that holds planned tensors unless the model names another.
    pub default_mem_id: u32,
    /// The input section delegate blobs (Vela's command streams and weights, Neutron's
    /// microcode) are linked in, where the NPU can read them: `None` keeps them in the
    /// compiler's read-only data (`.rodata`), where cortex-m-rt's `link.x` puts them in FLASH.
    pub blob_section: Option<String>,
}

/// The largest `npu.model_context` accepted (its bytes go into every Neutron delegate's handle).
const MAX_MODEL_CONTEXT: u64 = 16 << 20;

/// An NPU and how its compiler is configured for this board.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Npu {
    /// The ExecuTorch backend id of its delegate, e.g. `EthosUBackend`.
    pub backend: String,
    /// The configuration, e.g. `ethos-u55-128`.
    pub config: String,
    /// Vela's memory mode (`Shared_Sram`, `Dedicated_Sram`, `Sram_Only`), where relevant.
    pub memory_mode: Option<String>,
    /// Vela's system configuration, where relevant.
    pub system_config: Option<String>,
    /// Fast-scratch bytes per delegate call where the blob does not carry the size (Ethos-U
    /// in Dedicated_Sram: Vela's arena cache size).
    pub fast_scratch_size: Option<u64>,
    /// Bytes of the model context each Neutron delegate keeps in static storage, for NXP's
    /// library built with `NO_HEAP_USAGE` (what `neutronGetModelContextSize()` returns on the
    /// board; the runtime checks it at init). `None`: NXP's library allocates it on its heap.
    pub model_context: Option<u64>,
}

/// A memory the planner places buffers in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pool {
    /// Its id, ≥ 1.
    pub mem_id: u32,
    /// Its name, e.g. `sram`.
    pub name: String,
    /// Bytes available to arenas.
    pub capacity: u64,
    /// Linker section the arena static goes in.
    pub section: String,
    /// Memory region of the linker script the section is placed in.
    pub region: String,
    /// Alignment of every offset (and of the arena's start), a power of two.
    pub alignment: u64,
    /// The data-cache line, in bytes, of the CPU that reaches this pool through a data cache
    /// (`None`: no data cache in the way, e.g. a Cortex-M33, or a region mapped non-cacheable).
    /// A buffer the NPU reads or writes here starts on a line and is padded to whole lines, so
    /// cleaning or invalidating it never touches a neighbour's bytes.
    pub dcache_line: Option<u64>,
    /// Whether the CPU can read and write it (a CPU kernel's tensors must be in such a pool).
    pub cpu_access: bool,
    /// Whether firmware has it by default (a disabled pool must be enabled before use).
    pub enabled: bool,
}

/// A name that is not one of the target's compile specs, or a spec whose pool is disabled.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpecError {
    /// No such compile spec.
    #[error("target `{target}` has no compile spec `{name}`{}; it defines: {}",
        suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default(),
        known.join(", "))]
    Unknown {
        /// The target.
        target: String,
        /// The name asked for.
        name: String,
        /// A close match, if any.
        suggestion: Option<String>,
        /// Every spec the target defines.
        known: Vec<String>,
    },
    /// No pool with this `mem_id`.
    #[error("target `{target}` has no pool with mem_id {mem_id}; its pools are: {}", known.join(", "))]
    UnknownMemId {
        /// The target.
        target: String,
        /// The id asked for.
        mem_id: i64,
        /// Its pools as `name (mem_id N)`.
        known: Vec<String>,
    },
    /// `mem_id` 0 or negative.
    #[error("mem_id must be at least 1 (0 is reserved), found {mem_id}")]
    ReservedMemId {
        /// The id asked for.
        mem_id: i64,
    },
    /// The pool exists but is disabled on this target.
    #[error("pool `{pool}` (mem_id {mem_id}) of target `{target}` is disabled by default; enable it in targets.toml (`enabled = true`) or choose another pool")]
    Disabled {
        /// The target.
        target: String,
        /// The pool.
        pool: String,
        /// Its id.
        mem_id: u32,
    },
}

impl Catalogue {
    /// The catalogue shipped with arenaplan.
    pub fn builtin() -> Self {
        Catalogue::parse(&SourceText::new("targets.toml (built in)", BUILTIN_TARGETS))
            .expect("the built-in targets.toml is valid (checked by its own test)")
    }

    /// Reads and validates a catalogue file.
    pub fn load(path: &Path) -> Result<Self, Diagnostic> {
        Catalogue::parse(&SourceText::read(path, MAX_FILE_BYTES)?)
    }

    /// Parses and validates catalogue text. Errors carry the line and column.
    pub fn parse(source: &SourceText) -> Result<Self, Diagnostic> {
        let raw: schema::RawCatalogue = toml::from_str(&source.text).map_err(|e| {
            let offset = e.span().map_or(0, |s| s.start);
            Diagnostic::at(source, offset, e.message().trim_end().to_owned())
        })?;
        if *raw.schema_version.get_ref() != SCHEMA_VERSION {
            return Err(Diagnostic::at(
                source,
                raw.schema_version.span().start,
                format!(
                    "schema_version {} is not supported",
                    raw.schema_version.get_ref()
                ),
            )
            .with_help(format!(
                "this arenaplan reads schema_version = {SCHEMA_VERSION}"
            )));
        }
        let mut targets: Vec<Target> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for raw_target in raw.targets {
            let name = raw_target.name.get_ref();
            if !seen.insert(name.clone()) {
                return Err(Diagnostic::at(
                    source,
                    raw_target.name.span().start,
                    format!("target `{name}` is defined twice"),
                )
                .with_help("target names must be unique; rename one"));
            }
            targets.push(validate_target(source, raw_target)?);
        }
        Ok(Catalogue { targets })
    }

    /// The target called `name`, or an error listing what exists.
    pub fn target(&self, name: &str) -> Result<&Target, UnknownTarget> {
        self.targets
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| UnknownTarget {
                name: name.to_owned(),
                suggestion: did_you_mean(name, self.targets.iter().map(|t| t.name.as_str()))
                    .map(str::to_owned),
                known: self.targets.iter().map(|t| t.name.clone()).collect(),
            })
    }
}

/// A target name the catalogue does not define.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("unknown target `{name}`{}; the catalogue defines: {}",
    suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default(),
    known.join(", "))]
pub struct UnknownTarget {
    /// The name asked for.
    pub name: String,
    /// A close match, if any.
    pub suggestion: Option<String>,
    /// Every target defined.
    pub known: Vec<String>,
}

impl Pool {
    /// Alignment of the arena's start: the pool's alignment, or its data-cache line if that is
    /// larger (a buffer that starts on a line at offset 0 must start on one in memory too).
    ///
    /// ```
    /// use arenaplan_syntax::targets::Catalogue;
    /// let catalogue = Catalogue::builtin();
    /// let sram = catalogue.target("corstone-300")?.resolve_spec("npu_scratch")?;
    /// assert_eq!((sram.alignment, sram.arena_alignment()), (16, 32));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn arena_alignment(&self) -> u64 {
        self.alignment.max(self.dcache_line.unwrap_or(1))
    }

    /// The cache-line rule, in one place (planning, the plan's sizes and the checker all ask
    /// it): the data-cache line a buffer here lives on, when the NPU reads or writes it
    /// (`npu_visible`) and the pool has one. Such a buffer starts on a line
    /// ([`Pool::offset_alignment`]) and owns whole lines ([`Pool::owned_bytes`]), so that
    /// cleaning or invalidating it never touches a neighbour's bytes.
    ///
    /// ```
    /// use arenaplan_syntax::targets::Catalogue;
    /// let catalogue = Catalogue::builtin();
    /// let sram = catalogue.target("corstone-300")?.resolve_spec("npu_scratch")?;
    /// assert_eq!(sram.npu_line(true), Some(32));
    /// assert_eq!((sram.owned_bytes(40, true), sram.offset_alignment(true)), (64, 32));
    /// assert_eq!((sram.owned_bytes(40, false), sram.offset_alignment(false)), (40, 16));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn npu_line(&self, npu_visible: bool) -> Option<u64> {
        self.dcache_line.filter(|_| npu_visible)
    }

    /// The bytes a buffer of `bytes` owns here: whole lines under [`Pool::npu_line`].
    pub fn owned_bytes(&self, bytes: u64, npu_visible: bool) -> u64 {
        // The planted bug of arenaplan-build's mutation test (its `tests/mutants.rs`): an NPU
        // buffer rounded to the pool's alignment instead of to whole lines.
        #[cfg(arenaplan_mutant = "owned_bytes")]
        if self.npu_line(npu_visible).is_some() {
            return bytes.div_ceil(self.alignment) * self.alignment;
        }
        match self.npu_line(npu_visible) {
            Some(line) => bytes.div_ceil(line) * line,
            None => bytes,
        }
    }

    /// What a buffer's offset here is a multiple of: the pool's alignment, and the line under
    /// [`Pool::npu_line`].
    pub fn offset_alignment(&self, npu_visible: bool) -> u64 {
        self.npu_line(npu_visible)
            .map_or(self.alignment, |line| self.alignment.max(line))
    }
}

impl Target {
    /// The pool with this `mem_id`.
    pub fn pool(&self, mem_id: u32) -> Option<&Pool> {
        self.pools.iter().find(|p| p.mem_id == mem_id)
    }

    /// The enabled pool a compile spec names.
    pub fn resolve_spec(&self, name: &str) -> Result<&Pool, SpecError> {
        let Some(&mem_id) = self.specs.get(name) else {
            return Err(SpecError::Unknown {
                target: self.name.clone(),
                name: name.to_owned(),
                suggestion: did_you_mean(name, self.specs.keys().map(String::as_str))
                    .map(str::to_owned),
                known: self.specs.keys().cloned().collect(),
            });
        };
        self.enabled_pool(i64::from(mem_id))
    }

    /// The enabled pool with this `mem_id` (given as written, so 0 and negatives are reported).
    pub fn enabled_pool(&self, mem_id: i64) -> Result<&Pool, SpecError> {
        if mem_id < 1 {
            return Err(SpecError::ReservedMemId { mem_id });
        }
        let pool = u32::try_from(mem_id)
            .ok()
            .and_then(|id| self.pool(id))
            .ok_or_else(|| SpecError::UnknownMemId {
                target: self.name.clone(),
                mem_id,
                known: self
                    .pools
                    .iter()
                    .map(|p| format!("{} (mem_id {})", p.name, p.mem_id))
                    .collect(),
            })?;
        if !pool.enabled {
            return Err(SpecError::Disabled {
                target: self.name.clone(),
                pool: pool.name.clone(),
                mem_id: pool.mem_id,
            });
        }
        Ok(pool)
    }
}

fn validate_target(source: &SourceText, raw: schema::RawTarget) -> Result<Target, Diagnostic> {
    let at =
        |span: std::ops::Range<usize>, message: String| Diagnostic::at(source, span.start, message);
    // Names reach generated code unquoted: each must follow its grammar (see `crate::names`).
    let named = |kind: NameKind, field: &str, name: &Spanned<String>| -> Result<(), Diagnostic> {
        check(kind, name.get_ref()).map_err(|problem| {
            at(name.span(), format!("{field} {problem}"))
                .with_help(format!("{field}: {}", kind.grammar()))
        })
    };
    named(NameKind::Target, "target name", &raw.name)?;
    // Sizes become `usize` constants and 32-bit table fields on the target's CPU.
    let arch = raw.rust_target.split('-').next().unwrap_or("");
    let pointer_bytes: u64 = if ["thumb", "armv7", "armv8r", "arm", "riscv32", "xtensa"]
        .iter()
        .any(|p| arch.starts_with(p))
        || raw.cpu.starts_with("cortex-m")
        || raw.cpu.starts_with("cortex-r")
    {
        4
    } else {
        8
    };
    let target_name = raw.name.into_inner();
    if raw.pools.is_empty() {
        return Err(
            Diagnostic::at(source, 0, format!("target `{target_name}` has no pools"))
                .with_help("add at least one [[target.pool]]"),
        );
    }
    let mut pools: Vec<Pool> = Vec::new();
    // Indexes, so that validation stays linear in the number of pools: mem_id and name to the
    // pool, each section to its pool, and every dotted prefix of a section (`.arena` of
    // `.arena.npu`) to the pool whose section lies under it.
    let mut by_mem_id = std::collections::HashSet::new();
    let mut by_name: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut by_section: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut under_prefix: std::collections::HashMap<String, usize> =
        std::collections::HashMap::new();
    for p in raw.pools {
        let mem_id = *p.mem_id.get_ref();
        if mem_id < 1 || mem_id > i64::from(u32::MAX) {
            return Err(at(
                p.mem_id.span(),
                format!("mem_id must be at least 1 (0 is reserved), found {mem_id}"),
            ));
        }
        let mem_id = mem_id as u32;
        if !by_mem_id.insert(mem_id) {
            return Err(at(
                p.mem_id.span(),
                format!("target `{target_name}`: mem_id {mem_id} is used by two pools"),
            )
            .with_help("each pool of a target needs its own mem_id"));
        }
        named(NameKind::Pool, "pool name", &p.name)?;
        named(NameKind::Section, "section", &p.section)?;
        named(NameKind::Region, "region", &p.region)?;
        // A fragment keeps `SECTION` and `SECTION.*`: no pool's section may fall under another's.
        let section = p.section.get_ref();
        let prefixes = || {
            section
                .match_indices('.')
                .map(|(i, _)| &section[..i])
                .filter(|prefix| !prefix.is_empty())
        };
        let overlapping = by_section
            .get(section)
            .or_else(|| under_prefix.get(section))
            .or_else(|| prefixes().find_map(|prefix| by_section.get(prefix)))
            .map(|&i| &pools[i]);
        if let Some(q) = overlapping {
            return Err(at(
                p.section.span(),
                format!(
                    "section `{section}` overlaps `{}` of pool `{}`",
                    q.section, q.name
                ),
            )
            .with_help(
                "give every pool a section of its own, neither equal to nor under another's",
            ));
        }
        let name = p.name.get_ref().clone();
        if by_name.contains_key(&name) {
            return Err(at(
                p.name.span(),
                format!("target `{target_name}`: pool name `{name}` is used twice"),
            ));
        }
        let capacity = p.capacity.get_ref().0;
        if pointer_bytes == 4 && capacity > u64::from(u32::MAX) {
            return Err(at(
                p.capacity.span(),
                format!("pool `{name}`: capacity {capacity} does not fit the 32-bit addresses of target `{target_name}` ({})", raw.cpu),
            )
            .with_help("give at most 4 GiB - 1 (4294967295 bytes)"));
        }
        if capacity == 0 {
            return Err(
                at(p.capacity.span(), format!("pool `{name}` has capacity 0")).with_help(
                    "give its size in bytes, e.g. capacity = \"512 KiB\", or remove the pool",
                ),
            );
        }
        let alignment = match &p.alignment {
            None => 16,
            Some(a) => {
                let v = *a.get_ref();
                if v < 1 || !(v as u64).is_power_of_two() || v > 1 << 20 {
                    return Err(at(a.span(), format!("pool `{name}`: alignment {v} is not a power of two between 1 and 1 MiB")));
                }
                v as u64
            }
        };
        let dcache_line = match &p.dcache_line {
            None => None,
            Some(l) => {
                let v = *l.get_ref();
                if v < 1 || !(v as u64).is_power_of_two() || v > 4096 {
                    return Err(at(
                        l.span(),
                        format!("pool `{name}`: dcache_line {v} is not a power of two between 1 and 4096"),
                    )
                    .with_help("give the CPU's data-cache line size in bytes (32 on Cortex-M7, M55 and M85), or leave dcache_line out where the CPU has no data cache"));
                }
                Some(v as u64)
            }
        };
        let index = pools.len();
        by_name.insert(name.clone(), index);
        by_section.insert(section.clone(), index);
        for prefix in prefixes() {
            under_prefix.entry(prefix.to_owned()).or_insert(index);
        }
        pools.push(Pool {
            mem_id,
            name,
            capacity,
            section: p.section.into_inner(),
            region: p.region.into_inner(),
            alignment,
            dcache_line,
            cpu_access: p.cpu_access,
            enabled: p.enabled,
        });
    }
    let pool_named = |name: &Spanned<String>, what: &str| -> Result<u32, Diagnostic> {
        by_name
            .get(name.get_ref())
            .map(|&i| pools[i].mem_id)
            .ok_or_else(|| {
                let names: Vec<&str> = pools.iter().map(|p| p.name.as_str()).collect();
                let mut d = at(
                    name.span(),
                    format!(
                        "{what} names pool `{}`, which target `{target_name}` does not have",
                        name.get_ref()
                    ),
                );
                d = match did_you_mean(name.get_ref(), names.iter().copied()) {
                    Some(s) => {
                        d.with_help(format!("did you mean `{s}`? pools: {}", names.join(", ")))
                    }
                    None => d.with_help(format!("pools: {}", names.join(", "))),
                };
                d
            })
    };
    let default_mem_id = pool_named(&raw.default_pool, "default_pool")?;
    let mut specs = BTreeMap::new();
    for (spec, pool) in &raw.specs {
        check(NameKind::Spec, spec).map_err(|problem| {
            at(pool.span(), format!("compile spec {problem}"))
                .with_help(format!("compile spec names: {}", NameKind::Spec.grammar()))
        })?;
        specs.insert(
            spec.clone(),
            pool_named(pool, &format!("compile spec `{spec}`"))?,
        );
    }
    if let Some(n) = &raw.npu {
        if let Some(context) = &n.model_context {
            let bytes = context.get_ref().0;
            if n.backend != "NeutronBackend" {
                return Err(at(
                    context.span(),
                    format!("npu.model_context is NXP Neutron's model context, but this NPU's backend is `{}`: remove it", n.backend),
                ));
            }
            if bytes == 0 || bytes > MAX_MODEL_CONTEXT {
                return Err(at(
                    context.span(),
                    format!("npu.model_context must be between 1 byte and 16 MiB, found {bytes}: use what neutronGetModelContextSize() returns on the board"),
                ));
            }
        }
    }
    if let Some(section) = &raw.blob_section {
        named(NameKind::BlobSection, "blob_section", section)?;
    }
    Ok(Target {
        name: target_name,
        description: raw.description,
        cpu: raw.cpu,
        rust_target: raw.rust_target,
        npu: raw.npu.map(|n| Npu {
            backend: n.backend,
            config: n.config,
            memory_mode: n.memory_mode,
            system_config: n.system_config,
            fast_scratch_size: n.fast_scratch.map(|s| s.into_inner().0),
            model_context: n.model_context.map(|s| s.into_inner().0),
        }),
        pools,
        specs,
        default_mem_id,
        blob_section: raw.blob_section.map(Spanned::into_inner),
    })
}

#[cfg(test)]
mod tests;
