//! Generated artifacts: a Rust module, a C header and source, a linker-script fragment per
//! pool, `plan.json` and the report. One function makes them all, for the build script and the
//! CLI alike, so both write the same bytes.

mod c;
mod linker;
mod program;
mod program_api;
mod rust;
pub mod tables;

use crate::model::{Program, ScratchOwner, ValueKind};
use crate::pipeline::{BufferKind, ConstantLayout, Declarations, DeclaredScratch, ModelPlan};
use crate::report;
use crate::targets::{Pool, Target};
use crate::verify::Verified;
use tables::{ProgramTables, TablesError};

/// Which side defines the arenas and tables (the other only declares them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Symbols {
    /// The Rust module defines them (Rust firmware).
    #[default]
    Rust,
    /// The C source defines them (C integrators).
    C,
}

/// How the delegate blobs (Vela's command streams and weights, Neutron's microcode) reach the
/// object code.
///
/// ```
/// use arenaplan_build::Blobs;
/// // `.incbin` unless asked: a C array is text about six times the blob's size to compile.
/// assert_eq!(Blobs::default(), Blobs::Incbin);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Blobs {
    /// Each blob is written as `NAME_blobN.bin` beside the C, and `NAME_program.c` links it with
    /// the assembler's `.incbin` (`arenaplan/incbin.h`): GCC or Clang on an ELF target, with the
    /// folder on the include path. Compiles in milliseconds whatever the blob's size.
    #[default]
    Incbin,
    /// Each blob is a C array in `NAME_program.c`: any C99 compiler.
    CArray,
}

/// Which artifacts to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Emit {
    /// `NAME.rs`.
    pub rust: bool,
    /// `NAME.h` and `NAME.c`, and the runtime's program tables `NAME_program.h` and
    /// `NAME_program.c` (which include `arenaplan/runtime.h`).
    pub c: bool,
    /// `NAME.<pool>.ld` for every pool, and `NAME.x` including them all.
    pub linker: bool,
    /// `NAME.plan.json`.
    pub json: bool,
    /// `NAME.report.txt` and the memory map `NAME.svg`.
    pub report: bool,
}

impl Emit {
    /// Nothing (set the fields wanted).
    pub const NONE: Emit = Emit {
        rust: false,
        c: false,
        linker: false,
        json: false,
        report: false,
    };

    /// Everything.
    pub const ALL: Emit = Emit {
        rust: true,
        c: true,
        linker: true,
        json: true,
        report: true,
    };
}

/// What the emitters need: a plan the verify stage accepted, and how to name and split the
/// generated symbols. Made only from a [`Verified`] plan.
pub struct Input<'a> {
    /// Base name of the files and prefix of C symbols (a C identifier).
    pub(crate) name: &'a str,
    /// The program as planned (scratch inserted).
    pub(crate) program: &'a Program,
    /// Its plan.
    pub(crate) plan: &'a ModelPlan,
    /// The target.
    pub(crate) target: &'a Target,
    /// Declarations the firmware made (for the `#[delegate]` checks).
    pub(crate) declared: &'a Declarations,
    /// Which side defines the symbols.
    pub(crate) symbols: Symbols,
    /// How blobs are linked.
    pub(crate) blobs: Blobs,
    /// Where the program's constants go (each emitter that counts or writes them reads this).
    pub(crate) constants: ConstantLayout,
    /// The runtime's program tables, which `NAME_program.c` writes out.
    pub(crate) tables: ProgramTables<'a>,
    /// Why the tables could not be made, if they could not (then they are empty).
    pub(crate) tables_error: Option<TablesError>,
    /// Each method's part of the tables (one for a program with one method).
    pub(crate) methods: Vec<MethodTables>,
}

impl<'a> Input<'a> {
    /// The emitters' input for `verified`, named `name` (a C identifier: see
    /// [`crate::names::base_name`]).
    pub fn new(
        verified: Verified<'a>,
        name: &'a str,
        declared: &'a Declarations,
        symbols: Symbols,
    ) -> Self {
        let (program, plan) = (verified.program(), verified.plan());
        // The verify stage checked every branch: only a method calling another's delegate
        // leaves the tables unmade, which `emit` reports.
        let (tables, tables_error) = match ProgramTables::new(program, plan) {
            Ok(tables) => (tables, None),
            Err(e) => (ProgramTables::default(), Some(e)),
        };
        let methods = method_tables(&tables, name);
        Input {
            name,
            program,
            plan,
            target: verified.target(),
            declared,
            symbols,
            blobs: Blobs::default(),
            constants: ConstantLayout::new(program),
            tables,
            tables_error,
            methods,
        }
    }

    /// The same input with blobs linked as `blobs` says (`.incbin` unless set).
    pub fn blobs(mut self, blobs: Blobs) -> Self {
        self.blobs = blobs;
        self
    }
}

/// The names the generated Rust and C give a method's inputs or outputs (`names`, as the model
/// gives them): one module for both languages. `plain` holds upper-case identifiers (`INPUT`,
/// from `input`) when every name is a short lower-case identifier and they stay distinct
/// upper-cased, which is what Rust's constants use (and nothing otherwise); `keys` holds the C
/// header's part per name, decided name by name: `["image", "my.out"]` has no plain names, and
/// keys `IMAGE` and `my_2eout` (the escape, [`arenaplan_syntax::names::symbol`]).
pub(crate) struct IoNames {
    pub plain: Option<Vec<String>>,
    /// The C header's name part per name (`MODEL_INPUT_<KEY>_INDEX`), decided name by name as
    /// the README states it: the name upper-cased where it is a short identifier, else escaped;
    /// every name of the list escaped if two keys would meet (the escape alone is injective).
    pub keys: Vec<String>,
}

pub(crate) fn io_names(names: &[&str]) -> IoNames {
    let simple = |n: &str| n.len() <= 40 && crate::names::ident(n) == n && !n.starts_with('_');
    let upper: Vec<String> = names.iter().map(|n| upper_ident(n)).collect();
    let mut unique = upper.clone();
    unique.sort();
    unique.dedup();
    let escaped: Vec<String> = names
        .iter()
        .map(|n| arenaplan_syntax::names::symbol(n))
        .collect();
    // An identifier in either case (`Identity`, `input_1`): letters, digits and `_`, a letter
    // first, short.
    let identifier = |n: &str| {
        n.len() <= 40
            && n.bytes().next().is_some_and(|b| b.is_ascii_alphabetic())
            && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    };
    let mut keys: Vec<String> = names
        .iter()
        .zip(&escaped)
        .map(|(n, e)| {
            if identifier(n) {
                n.to_ascii_uppercase()
            } else {
                e.clone()
            }
        })
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    sorted.dedup();
    if sorted.len() != keys.len() {
        keys.clone_from(&escaped);
    }
    let plain = (names.iter().all(|n| simple(n)) && unique.len() == upper.len()).then_some(upper);
    IoNames { plain, keys }
}

/// A plan the generated tables cannot describe.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum EmitError {
    /// An arena too large for the generated tables' 32-bit offsets and sizes.
    #[error("pool `{pool}`: the arena needs {size} bytes, beyond the 32-bit offsets of the generated Rust and C tables")]
    TableOverflow {
        /// The pool.
        pool: String,
        /// Its arena size.
        size: u64,
    },
    /// A call argument without memory: the generated tables would pass the call nothing.
    #[error("instruction {instruction} takes `{tensor}`, which the model leaves without memory ({}); arenaplan does not place such values yet, so no firmware is generated for this model", crate::model::UNPLACED)]
    UnplacedArgument {
        /// The instruction's flat index.
        instruction: usize,
        /// The value's name.
        tensor: String,
    },
    /// A program the runtime's tables cannot describe.
    #[error(transparent)]
    Tables(#[from] TablesError),
}

/// One method as the generated tables run it: its run of the instruction table, its
/// delegates (contiguous: each method has its own) and its inputs and outputs.
pub(crate) struct MethodTables {
    /// Its name in the file (`forward`), or `None` for a program with one method.
    pub name: Option<String>,
    /// The prefix of its C symbols: `NAME` for the first method, `NAME_<method>` for others.
    pub prefix: String,
    /// Its steps: positions in the program's instruction table.
    pub steps: std::ops::Range<usize>,
    /// Its delegates.
    pub delegates: std::ops::Range<usize>,
    /// Its inputs and outputs.
    pub inputs: Vec<usize>,
    /// Its outputs.
    pub outputs: Vec<usize>,
}

/// Each method's tables (one for a program with one method), as `tables` divides them. The
/// first method's symbols are `NAME_*`, so a program's default method (`forward`) keeps the
/// single-method API.
fn method_tables(tables: &ProgramTables<'_>, name: &str) -> Vec<MethodTables> {
    tables
        .methods
        .iter()
        .enumerate()
        .map(|(k, m)| MethodTables {
            name: m.name.map(str::to_owned),
            prefix: if k == 0 {
                name.to_owned()
            } else {
                format!("{name}_{}", crate::names::ident(m.name.unwrap_or("")))
            },
            steps: m.steps.clone(),
            delegates: m.delegates.clone(),
            inputs: m.inputs.clone(),
            outputs: m.outputs.clone(),
        })
        .collect()
}

/// One scratch buffer of one delegate call, as the generated code names it.
pub(crate) struct Region {
    /// `CALL<index>_<LABEL>`.
    pub ident: String,
    pub call: usize,
    pub value: usize,
    pub mem_id: u32,
    pub offset: u64,
    pub size: u64,
    /// For the comment: delegate, backend, where the size came from.
    pub about: String,
}

impl Input<'_> {
    /// The pools that hold something, with their plans.
    pub(crate) fn pools(&self) -> Vec<(&Pool, &crate::pipeline::PoolPlan)> {
        self.plan
            .pools
            .iter()
            .filter_map(|p| self.target.pool(p.mem_id).map(|pool| (pool, p)))
            .collect()
    }

    pub(crate) fn regions(&self) -> Vec<Region> {
        let mut out = Vec::new();
        for b in self
            .plan
            .buffers
            .iter()
            .filter(|b| b.kind == BufferKind::Scratch)
        {
            let value = &self.program.values[b.id];
            let ValueKind::Scratch {
                call,
                owner,
                label,
                origin,
                ..
            } = &value.kind
            else {
                continue;
            };
            let call = *call;
            let site = match owner {
                ScratchOwner::Delegate(_) => {
                    let backend = self
                        .plan
                        .calls
                        .iter()
                        .find(|c| c.index == call)
                        .and_then(|c| c.backend.clone())
                        .unwrap_or_default();
                    format!("delegate `{}` ({backend})", owner.name(self.program))
                }
                ScratchOwner::Kernel(op) => format!("kernel `{op}`"),
            };
            out.push(Region {
                ident: format!("CALL{call}_{}", upper_ident(label)),
                call,
                value: b.id,
                mem_id: b.mem_id,
                offset: b.offset,
                size: b.size,
                about: crate::names::comment(&format!(
                    "{site}, buffer `{label}`, size from {origin}"
                )),
            });
        }
        out
    }

    /// Sizes each declared kernel's calls get, by operator, sorted.
    pub(crate) fn declared_kernel_sizes(&self) -> Vec<(String, Vec<u64>)> {
        let mut out: Vec<(String, Vec<u64>)> = self
            .declared
            .kernels
            .iter()
            .map(|k| {
                let sizes = k.scratch.iter().map(|s| s.size.max(0) as u64).collect();
                (k.op.clone(), sizes)
            })
            .collect();
        out.sort();
        out
    }

    /// Sizes each declared backend's calls get (empty for `blob`), by backend, sorted.
    pub(crate) fn declared_sizes(&self) -> Vec<(String, Vec<u64>)> {
        let mut out: Vec<(String, Vec<u64>)> = self
            .declared
            .backends
            .iter()
            .map(|d| {
                let sizes = match &d.scratch {
                    DeclaredScratch::Sizes(specs) => {
                        specs.iter().map(|s| s.size.max(0) as u64).collect()
                    }
                    DeclaredScratch::Blob { .. } => Vec::new(),
                };
                (d.backend.clone(), sizes)
            })
            .collect();
        out.sort();
        out
    }
}

/// Every requested artifact as (file name, contents), in a fixed order: text but for the blob
/// files of [`Blobs::Incbin`].
pub fn emit(input: &Input<'_>, what: Emit) -> Result<Vec<(String, Vec<u8>)>, EmitError> {
    let name = input.name;
    // The Rust and C tables hold offsets and sizes as `u32`.
    if what.rust || what.c {
        if let Some(p) = input
            .plan
            .pools
            .iter()
            .find(|p| p.size > u64::from(u32::MAX))
        {
            return Err(EmitError::TableOverflow {
                pool: p.name.clone(),
                size: p.size,
            });
        }
    }
    if what.rust || what.c {
        if let Some((instruction, value)) = input.program.unplaced_argument() {
            return Err(EmitError::UnplacedArgument {
                instruction,
                tensor: input.program.values[value].name.clone(),
            });
        }
        if let Some(e) = &input.tables_error {
            return Err(EmitError::Tables(e.clone()));
        }
    }
    let mut text = Vec::new();
    let mut binary = Vec::new();
    if what.rust {
        text.push((format!("{name}.rs"), rust::module(input)));
    }
    if what.c {
        text.push((format!("{name}.h"), c::header(input)));
        text.push((format!("{name}.c"), c::source(input)));
        text.push((format!("{name}_program.h"), program::header(input)));
        text.push((format!("{name}_program.c"), program::source(input)));
        if input.blobs == Blobs::Incbin {
            for (d, delegate) in input.program.delegates.iter().enumerate() {
                if let Some(blob) = &delegate.blob {
                    binary.push((program::blob_file(name, d), blob.clone()));
                }
            }
        }
    }
    if what.linker {
        let mut fragments = Vec::new();
        for (pool, plan) in input.pools() {
            let file = format!("{name}.{}.ld", pool.name);
            text.push((file.clone(), linker::fragment(input, pool, plan)));
            fragments.push(file);
        }
        text.push((format!("{name}.x"), linker::script(input, &fragments)));
    }
    if what.json {
        text.push((format!("{name}.plan.json"), input.plan.to_json()));
    }
    if what.report {
        text.push((
            format!("{name}.report.txt"),
            report::report(input.program, input.plan, input.target, input.declared),
        ));
        text.push((
            format!("{name}.svg"),
            report::memory_map(input.program, input.plan, input.target),
        ));
    }
    let mut files: Vec<(String, Vec<u8>)> = text
        .into_iter()
        .map(|(name, text)| (name, text.into_bytes()))
        .collect();
    files.extend(binary);
    Ok(files)
}

pub use crate::names::ident as c_ident;
pub(crate) use crate::names::upper_ident;

/// The first line of every generated file (in the file's comment syntax).
pub(crate) fn banner(input: &Input<'_>) -> String {
    format!(
        "@generated by arenaplan-build {} from model `{}` for target `{}`. Do not edit.",
        env!("CARGO_PKG_VERSION"),
        crate::names::comment(&input.program.name),
        input.target.name
    )
}

#[cfg(test)]
mod io_names_tests {
    #[test]
    fn plain_names_are_upper_cased_and_others_escaped() {
        let n = super::io_names(&["image", "my.out"]);
        assert_eq!(n.plain, None);
        assert_eq!(n.keys, ["IMAGE", "my_2eout"]);
        let n = super::io_names(&["image", "label"]);
        assert_eq!(
            n.plain.as_deref(),
            Some(&["IMAGE".to_owned(), "LABEL".to_owned()][..])
        );
        // Distinct names that meet upper-cased are not plain.
        assert_eq!(super::io_names(&["a", "A"]).plain, None);
    }

    #[test]
    fn header_keys_are_decided_name_by_name_and_escaped_all_where_two_would_meet() {
        // The README's rule: an identifier is upper-cased, whatever the other names are.
        let n = super::io_names(&["serving_default_input_1:0", "Identity"]);
        assert_eq!(n.keys, ["serving__default__input__1_3a0", "IDENTITY"]);
        // `a` and `A` would both be `A`: both escaped, as the escape keeps them apart.
        assert_eq!(super::io_names(&["a", "A"]).keys, ["a", "A"]);
        // An escape that looks like another name's upper-case form.
        let n = super::io_names(&["A B", "A_20B"]);
        assert_eq!(n.keys, ["A_20B", "A__20B"]);
    }
}
