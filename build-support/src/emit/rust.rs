//! The Rust module the firmware `include!`s (through `arenaplan::include_plan!()`).

use std::fmt::Write;

use arenaplan_syntax::delegate::backend_module;

use crate::names::{comment, rust_string};

use super::{banner, upper_ident, Input, Symbols};

pub(super) fn module(input: &Input<'_>) -> String {
    let mut o = String::new();
    let name = input.name;
    let _ = writeln!(o, "// {}", banner(input));
    let _ = writeln!(o, "//");
    let _ = writeln!(
        o,
        "// Pool sizes, scratch regions and argument tables of the plan, arenas in their pools'"
    );
    let _ = writeln!(
        o,
        "// linker sections, and `const` checks the compiler proves."
    );
    let _ = writeln!(o);
    let _ = writeln!(o, "/// The target this plan is for.");
    let _ = writeln!(
        o,
        "pub const TARGET: &str = {};",
        rust_string(&input.target.name)
    );
    let _ = writeln!(o, "/// The model planned.");
    let _ = writeln!(
        o,
        "pub const MODEL: &str = {};",
        rust_string(&input.program.name)
    );
    let _ = writeln!(o);
    o.push_str(TYPES);
    let _ = writeln!(o);
    let _ = writeln!(o, "/// The pools this plan uses.");
    let _ = writeln!(o, "pub mod pool {{");
    for (pool, plan) in input.pools() {
        let _ = writeln!(
            o,
            "    /// Pool `{}` (mem_id {}): section `{}`, region `{}`.",
            pool.name, pool.mem_id, pool.section, pool.region
        );
        let _ = writeln!(o, "    pub mod {} {{", pool_mod(&pool.name));
        let _ = writeln!(o, "        /// Its `mem_id`.");
        let _ = writeln!(o, "        pub const MEM_ID: u32 = {};", pool.mem_id);
        let _ = writeln!(o, "        /// Bytes of the arena.");
        let _ = writeln!(o, "        pub const SIZE: usize = {};", plan.size);
        let _ = writeln!(o, "        /// Bytes the pool has.");
        let _ = writeln!(o, "        pub const CAPACITY: usize = {};", pool.capacity);
        let _ = writeln!(o, "        /// No arena for these buffers can be smaller.");
        let _ = writeln!(
            o,
            "        pub const LOWER_BOUND: usize = {};",
            plan.lower_bound
        );
        let _ = writeln!(
            o,
            "        /// Alignment of the arena's start (the pool's, or its data-cache line if larger)."
        );
        let _ = writeln!(
            o,
            "        pub const ALIGN: usize = {};",
            pool.arena_alignment()
        );
        let _ = writeln!(
            o,
            "        /// Data-cache line in front of the pool (0: none); buffers the NPU sees are on whole lines."
        );
        let _ = writeln!(
            o,
            "        pub const DCACHE_LINE: usize = {};",
            pool.dcache_line.unwrap_or(0)
        );
        let _ = writeln!(o, "    }}");
    }
    let _ = writeln!(o, "}}");
    for (pool, _) in input.pools() {
        let m = pool_mod(&pool.name);
        let _ = writeln!(
            o,
            "const _: () = assert!(pool::{m}::SIZE <= pool::{m}::CAPACITY, \"arenaplan: the arena of pool `{}` exceeds its capacity\");",
            pool.name
        );
    }
    let _ = writeln!(o);
    for (pool, _) in input.pools() {
        let ty = format!("Arena{}", camel(&pool.name));
        let m = pool_mod(&pool.name);
        let stat = format!("ARENA_{}", upper_ident(&pool.name));
        let symbol = format!("{name}_arena_{}", super::c_ident(&pool.name));
        let _ = writeln!(o, "/// Storage of the arena of pool `{}`.", pool.name);
        let _ = writeln!(o, "#[repr(C, align({}))]", pool.arena_alignment());
        let _ = writeln!(o, "pub struct {ty}(pub ::core::cell::UnsafeCell<::core::mem::MaybeUninit<[u8; pool::{m}::SIZE]>>);");
        let _ = writeln!(o, "// SAFETY: the runtime hands each call the disjoint regions the plan proved; the arena");
        let _ = writeln!(o, "// is never accessed as a whole.");
        let _ = writeln!(o, "unsafe impl Sync for {ty} {{}}");
        match input.symbols {
            Symbols::Rust => {
                let _ = writeln!(
                    o,
                    "/// The arena of pool `{}`, in section `{}` (no initialisation cost).",
                    pool.name, pool.section
                );
                let _ = writeln!(
                    o,
                    "#[unsafe(link_section = {})]",
                    rust_string(&pool.section)
                );
                let _ = writeln!(o, "#[unsafe(export_name = {symbol:?})]");
                let _ = writeln!(
                    o,
                    "pub static {stat}: {ty} = {ty}(::core::cell::UnsafeCell::new(::core::mem::MaybeUninit::uninit()));"
                );
            }
            Symbols::C => {
                let _ = writeln!(o, "unsafe extern \"C\" {{");
                let _ = writeln!(
                    o,
                    "    /// The arena of pool `{}`, defined by the generated C source.",
                    pool.name
                );
                let _ = writeln!(o, "    #[link_name = {symbol:?}]");
                let _ = writeln!(o, "    pub static {stat}: {ty};");
                let _ = writeln!(o, "}}");
            }
        }
    }
    let _ = writeln!(o);
    let buffers = &input.plan.buffers;
    let _ = writeln!(o, "/// Number of planned buffers.");
    let _ = writeln!(o, "pub const BUFFER_COUNT: usize = {};", buffers.len());
    let entries: Vec<String> = buffers
        .iter()
        .map(|b| {
            format!(
                "    Buffer {{ value: {}, mem_id: {}, offset: {}, size: {} }},",
                b.id, b.mem_id, b.offset, b.size
            )
        })
        .collect();
    match input.symbols {
        Symbols::Rust => {
            let _ = writeln!(o, "/// Every planned buffer, by value id.");
            let _ = writeln!(o, "#[unsafe(export_name = \"{name}_buffers\")]");
            let _ = writeln!(o, "pub static BUFFERS: [Buffer; BUFFER_COUNT] = [");
            for e in &entries {
                let _ = writeln!(o, "{e}");
            }
            let _ = writeln!(o, "];");
        }
        Symbols::C => {
            let _ = writeln!(o, "unsafe extern \"C\" {{");
            let _ = writeln!(
                o,
                "    /// Every planned buffer, by value id (defined by the generated C source)."
            );
            let _ = writeln!(o, "    #[link_name = \"{name}_buffers\"]");
            let _ = writeln!(o, "    pub static BUFFERS: [Buffer; BUFFER_COUNT];");
            let _ = writeln!(o, "}}");
        }
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "/// Every kernel and delegate call with its flat argument list (inputs, outputs, scratch).");
    let _ = writeln!(o, "pub const CALLS: &[CallArgs] = &[");
    for c in &input.plan.calls {
        let args: Vec<String> = c.args.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            o,
            "    CallArgs {{ index: {}, delegate: {}, backend: {}, args: &[{}], inputs: {}, outputs: {}, scratch: {} }},",
            c.index,
            c.backend.is_some(),
            rust_string(c.backend.as_deref().unwrap_or("")),
            args.join(", "),
            c.inputs,
            c.outputs,
            c.scratch
        );
    }
    let _ = writeln!(o, "];");
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "/// The scratch region of every buffer of every delegate call."
    );
    let _ = writeln!(o, "pub mod scratch {{");
    let _ = writeln!(o, "    use super::Region;");
    for r in input.regions() {
        let _ = writeln!(o, "    /// Call {}: {}.", r.call, r.about);
        let _ = writeln!(
            o,
            "    pub const {}: Region = Region {{ call: {}, value: {}, mem_id: {}, offset: {}, size: {} }};",
            r.ident, r.call, r.value, r.mem_id, r.offset, r.size
        );
    }
    let _ = writeln!(o, "}}");
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "/// What `#[delegate]` declarations are checked against."
    );
    let _ = writeln!(o, "pub struct Declarations;");
    let _ = writeln!(o, "/// Scratch sizes the build script read from each `#[delegate]` declaration (empty: `blob`).");
    let _ = writeln!(o, "pub mod backend {{");
    for (backend, sizes) in input.declared_sizes() {
        let list: Vec<String> = sizes.iter().map(ToString::to_string).collect();
        let _ = writeln!(o, "    /// Backend `{}`.", comment(&backend));
        let _ = writeln!(o, "    pub mod {} {{", backend_module(&backend));
        let _ = writeln!(o, "        /// Its declared scratch sizes.");
        let _ = writeln!(
            o,
            "        pub const SCRATCH: &[usize] = &[{}];",
            list.join(", ")
        );
        let _ = writeln!(o, "    }}");
    }
    let _ = writeln!(o, "}}");
    o
}

const TYPES: &str = "\
/// A planned buffer: value id, pool, offset and size (the C header's `arenaplan_buffer_t`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Buffer {
    /// The value's id in the program.
    pub value: u32,
    /// Its pool.
    pub mem_id: u32,
    /// Offset in the pool's arena.
    pub offset: u32,
    /// Bytes.
    pub size: u32,
}

/// A scratch region of one delegate call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Flat index of the call.
    pub call: u32,
    /// The scratch value's id.
    pub value: u32,
    /// Its pool.
    pub mem_id: u32,
    /// Offset in the pool's arena.
    pub offset: u32,
    /// Bytes.
    pub size: u32,
}

/// One call's flat argument list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallArgs {
    /// Flat instruction index.
    pub index: u32,
    /// A delegate call (else a kernel call).
    pub delegate: bool,
    /// The backend id (empty for kernels).
    pub backend: &'static str,
    /// Value ids: inputs, outputs, scratch.
    pub args: &'static [u32],
    /// How many inputs.
    pub inputs: u32,
    /// How many outputs.
    pub outputs: u32,
    /// How many scratch buffers.
    pub scratch: u32,
}
";

fn pool_mod(name: &str) -> String {
    super::c_ident(name)
}

/// `name` in UpperCamelCase for a type. One-to-one on pool names (lower case, single `_`): a
/// part after `_` starts upper-case, and a part starting with a digit keeps its `_` (`x_1` is
/// `X_1`, `x1` is `X1`).
fn camel(name: &str) -> String {
    let mut out = String::new();
    for part in super::c_ident(name).split('_').filter(|p| !p.is_empty()) {
        let mut c = part.chars();
        match c.next() {
            Some(f) if f.is_ascii_digit() => {
                out.push('_');
                out.push(f);
            }
            Some(f) => out.push(f.to_ascii_uppercase()),
            None => {}
        }
        out.push_str(c.as_str());
    }
    out
}
