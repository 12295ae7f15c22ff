//! The Rust module the firmware `include!`s (through `arenaplan::include_plan!()`): written as
//! tokens with `quote!` and printed by `prettyplease`, so every name and string from a model or
//! target reaches the file as one escaped token and never as source text.

use arenaplan_syntax::delegate::backend_module;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

use crate::names::comment;
use crate::targets::Pool;

use super::{banner, upper_ident, Input, Symbols};

pub(super) fn module(input: &Input<'_>) -> String {
    let target = &input.target.name;
    let model = &input.program.name;
    let pool_mods = input.pools().into_iter().map(|(pool, plan)| {
        let m = pool_mod(pool);
        let about = format!(
            " Pool `{}` (mem_id {}): section `{}`, region `{}`.",
            pool.name, pool.mem_id, pool.section, pool.region
        );
        let (mem_id, size, capacity) = (
            Literal::u32_unsuffixed(pool.mem_id),
            Literal::u64_unsuffixed(plan.size),
            Literal::u64_unsuffixed(pool.capacity),
        );
        let lower_bound = Literal::u64_unsuffixed(plan.lower_bound);
        let align = Literal::u64_unsuffixed(pool.arena_alignment());
        let line = Literal::u64_unsuffixed(pool.dcache_line.unwrap_or(0));
        quote! {
            #[doc = #about]
            pub mod #m {
                /// Its `mem_id`.
                pub const MEM_ID: u32 = #mem_id;
                /// Bytes of the arena.
                pub const SIZE: usize = #size;
                /// Bytes the pool has.
                pub const CAPACITY: usize = #capacity;
                /// No arena for these buffers can be smaller.
                pub const LOWER_BOUND: usize = #lower_bound;
                /// Alignment of the arena's start (the pool's, or its data-cache line if larger).
                pub const ALIGN: usize = #align;
                /// Data-cache line in front of the pool (0: none); buffers the NPU sees are on whole lines.
                pub const DCACHE_LINE: usize = #line;
            }
        }
    });
    let capacity_checks = input.pools().into_iter().map(|(pool, _)| {
        let m = pool_mod(pool);
        let message = format!(
            "arenaplan: the arena of pool `{}` exceeds its capacity",
            pool.name
        );
        quote! { const _: () = assert!(pool::#m::SIZE <= pool::#m::CAPACITY, #message); }
    });
    let arenas = input
        .pools()
        .into_iter()
        .map(|(pool, _)| arena(input, pool));
    let api = api(input);
    let buffers = buffers(input);
    let calls = input.plan.calls.iter().map(|c| {
        let (index, delegate) = (Literal::usize_unsuffixed(c.index), c.backend.is_some());
        let backend = c.backend.as_deref().unwrap_or("");
        let args = c.args.iter().map(|&a| Literal::usize_unsuffixed(a));
        let (inputs, outputs, scratch) = (
            Literal::usize_unsuffixed(c.inputs),
            Literal::usize_unsuffixed(c.outputs),
            Literal::usize_unsuffixed(c.scratch),
        );
        quote! {
            CallArgs { index: #index, delegate: #delegate, backend: #backend, args: &[#(#args),*],
                       inputs: #inputs, outputs: #outputs, scratch: #scratch }
        }
    });
    let regions = input.regions().into_iter().map(|r| {
        let about = format!(" Call {}: {}.", r.call, r.about);
        let ident = ident(&r.ident);
        let (call, value, mem_id, offset, size) = (
            Literal::usize_unsuffixed(r.call),
            Literal::usize_unsuffixed(r.value),
            Literal::u32_unsuffixed(r.mem_id),
            Literal::u64_unsuffixed(r.offset),
            Literal::u64_unsuffixed(r.size),
        );
        quote! {
            #[doc = #about]
            pub const #ident: super::Region = super::Region { call: #call, value: #value, mem_id: #mem_id, offset: #offset, size: #size };
        }
    });
    let declared = input.declared_sizes().into_iter().map(|(backend, sizes)| {
        let about = format!(" Backend `{}`.", comment(&backend));
        let m = ident(&backend_module(&backend));
        let sizes = sizes.into_iter().map(Literal::u64_unsuffixed);
        quote! {
            #[doc = #about]
            pub mod #m {
                /// Its declared scratch sizes.
                pub const SCRATCH: &[usize] = &[#(#sizes),*];
            }
        }
    });
    let kernels = input
        .declared_kernel_sizes()
        .into_iter()
        .map(|(op, sizes)| {
            let about = format!(" Kernel `{}`.", comment(&op));
            let m = ident(&backend_module(&op));
            let sizes = sizes.into_iter().map(Literal::u64_unsuffixed);
            quote! {
                #[doc = #about]
                pub mod #m {
                    /// Its declared scratch sizes (empty: it declares none).
                    pub const SCRATCH: &[usize] = &[#(#sizes),*];
                }
            }
        });
    let constant_bytes = Literal::u64_unsuffixed(input.constants.bytes());
    let tokens = quote! {
        /// The target this plan is for.
        pub const TARGET: &str = #target;
        /// The model planned.
        pub const MODEL: &str = #model;
        /// Bytes of constants the program keeps in flash (each used constant once).
        pub const CONSTANT_BYTES: usize = #constant_bytes;

        pub use ::arenaplan::{Buffer, CallArgs, Region};

        /// The pools this plan uses.
        pub mod pool {
            #(#pool_mods)*
        }
        #(#capacity_checks)*

        #(#arenas)*

        #buffers

        /// Every kernel and delegate call with its flat argument list (inputs, outputs, scratch).
        pub const CALLS: &[CallArgs] = &[#(#calls),*];

        /// The scratch region of every buffer of every delegate and kernel call.
        pub mod scratch {
            #(#regions)*
        }

        #api

        /// What `#[delegate]` declarations are checked against.
        pub struct Declarations;
        /// Scratch sizes the build script read from each `#[delegate]` declaration (empty: `blob`).
        pub mod backend {
            #(#declared)*
        }
        /// Scratch sizes the build script read from each `#[kernel]` declaration.
        pub mod kernel {
            #(#kernels)*
        }
    };
    let file: syn::File = syn::parse2(tokens).expect("the generated module is Rust");
    format!(
        "// {}\n//\n// Pool sizes, scratch regions and argument lists of the plan, arenas in their pools'\n// linker sections, and `const` checks the compiler proves.\n\n{}",
        banner(input),
        prettyplease::unparse(&file)
    )
}

/// The arena of one pool: its storage type, and the static (Rust defines it) or its
/// declaration (C defines it), through the runtime's `link_static!`.
fn arena(input: &Input<'_>, pool: &Pool) -> TokenStream {
    let ty = ident(&format!("Arena{}", camel(&pool.name)));
    let m = pool_mod(pool);
    let stat = ident(&format!("ARENA_{}", upper_ident(&pool.name)));
    let symbol = format!("{}_arena_{}", input.name, super::c_ident(&pool.name));
    let align = Literal::u64_unsuffixed(pool.arena_alignment());
    let storage = format!(" Storage of the arena of pool `{}`.", pool.name);
    let definition = match input.symbols {
        Symbols::Rust => {
            let about = format!(
                " The arena of pool `{}`, in section `{}` (no initialisation cost).",
                pool.name, pool.section
            );
            let section = &pool.section;
            quote! {
                ::arenaplan::link_static! {
                    #[doc = #about]
                    pub static #stat: #ty = ::arenaplan::Arena::new();
                    section = #section; symbol = #symbol;
                }
            }
        }
        Symbols::C => {
            let about = format!(
                " The arena of pool `{}`, defined by the generated C source.",
                pool.name
            );
            quote! {
                ::arenaplan::link_static! {
                    #[doc = #about]
                    pub static #stat: #ty;
                    symbol = #symbol;
                }
            }
        }
    };
    quote! {
        #[doc = #storage]
        pub type #ty = ::arenaplan::Arena<{ pool::#m::SIZE }, #align>;
        #definition
    }
}

/// The table of planned buffers (defined here, or declared when C defines it).
fn buffers(input: &Input<'_>) -> TokenStream {
    let count = Literal::usize_unsuffixed(input.plan.buffers.len());
    let symbol = format!("{}_buffers", input.name);
    let table = match input.symbols {
        Symbols::Rust => {
            let entries = input.plan.buffers.iter().map(|b| {
                let (value, mem_id, offset, size) = (
                    Literal::usize_unsuffixed(b.id),
                    Literal::u32_unsuffixed(b.mem_id),
                    Literal::u64_unsuffixed(b.offset),
                    Literal::u64_unsuffixed(b.size),
                );
                quote! { Buffer { value: #value, mem_id: #mem_id, offset: #offset, size: #size } }
            });
            quote! {
                ::arenaplan::link_static! {
                    /// Every planned buffer, by value id.
                    pub static BUFFERS: [Buffer; BUFFER_COUNT] = [#(#entries),*];
                    symbol = #symbol;
                }
            }
        }
        Symbols::C => quote! {
            ::arenaplan::link_static! {
                /// Every planned buffer, by value id (defined by the generated C source).
                pub static BUFFERS: [Buffer; BUFFER_COUNT];
                symbol = #symbol;
            }
        },
    };
    quote! {
        /// Number of planned buffers.
        pub const BUFFER_COUNT: usize = #count;
        #table
    }
}

/// An identifier the names rule already made safe (a C identifier, no Rust keyword).
fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

fn pool_mod(pool: &Pool) -> Ident {
    ident(&super::c_ident(&pool.name))
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

/// The program as the runtime's generic `Model` runs it: `Plan`, implementing
/// `arenaplan::Program` with the generated C program's functions (named by `c_program!`), the
/// call table and the arenas; the counts; and index constants for inputs, outputs and methods
/// whose names are plain identifiers. Data only: the behaviour is the runtime crate's.
fn api(input: &Input<'_>) -> TokenStream {
    let name = input.name;
    let (init, deinit) = (format!("{name}_init"), format!("{name}_deinit"));
    let methods = input.methods.iter().map(|m| {
        let prefix = &m.prefix;
        let c = |f: &str| format!("{prefix}_{f}");
        let (c_input, c_output, c_run, c_failed) =
            (c("input"), c("output"), c("run"), c("failed_call"));
        let method = m.name.as_deref().unwrap_or("");
        let (inputs, outputs) = (
            Literal::u32_unsuffixed(m.inputs.len() as u32),
            Literal::u32_unsuffixed(m.outputs.len() as u32),
        );
        quote! {
            ::arenaplan::c_method!(#method, #inputs, #outputs, #c_input, #c_output, #c_run, #c_failed)
        }
    });
    let spans = input.pools().into_iter().map(|(pool, _)| {
        let stat = ident(&format!("ARENA_{}", upper_ident(&pool.name)));
        quote! { #stat.span() }
    });
    let arena_count = Literal::usize_unsuffixed(input.pools().len());
    let first = &input.methods[0];
    let (inputs, outputs) = (
        Literal::usize_unsuffixed(first.inputs.len()),
        Literal::usize_unsuffixed(first.outputs.len()),
    );
    let input_names = index_consts(input, &first.inputs);
    let output_names = index_consts(input, &first.outputs);
    let method_names = method_consts(input);
    let input_quant = quant_consts(input, &first.inputs);
    let output_quant = quant_consts(input, &first.outputs);
    quote! {
        /// Number of inputs (of the default method).
        pub const INPUT_COUNT: usize = #inputs;
        /// Number of outputs (of the default method).
        pub const OUTPUT_COUNT: usize = #outputs;
        /// Each input's `(scale, zero_point)` where the model quantizes it as a whole
        /// (`real = scale × (q − zero_point)`), else `None`.
        pub const INPUT_QUANT: [Option<(f32, i64)>; INPUT_COUNT] = [#(#input_quant),*];
        /// Each output's `(scale, zero_point)`, as [`INPUT_QUANT`].
        pub const OUTPUT_QUANT: [Option<(f32, i64)>; OUTPUT_COUNT] = [#(#output_quant),*];
        /// The default method's inputs by name, for `Model::input`.
        pub mod input {
            #(#input_names)*
        }
        /// The default method's outputs by name, for `Model::output`.
        pub mod output {
            #(#output_names)*
        }
        /// The methods by name, for `Model::run_method`.
        pub mod method {
            #(#method_names)*
        }

        /// Each method's C functions, name and counts (the first is the default method).
        const METHODS: &[::arenaplan::CMethod] = &[#(#methods),*];

        /// The planned program, as the runtime's [`Model`] runs it.
        pub struct Plan;

        impl ::arenaplan::Program for Plan {
            const C: ::arenaplan::CProgram = ::arenaplan::c_program!(#init, #deinit, METHODS);
            const CALLS: &'static [CallArgs] = CALLS;
            fn arenas() -> &'static [::arenaplan::ArenaSpan] {
                static SPANS: [::arenaplan::ArenaSpan; #arena_count] = [#(#spans),*];
                &SPANS
            }
            fn taken() -> &'static ::core::sync::atomic::AtomicBool {
                static TAKEN: ::core::sync::atomic::AtomicBool =
                    ::core::sync::atomic::AtomicBool::new(false);
                &TAKEN
            }
        }

        /// The planned model: one at a time ([`Model::take`]), its inputs and outputs the
        /// planned buffers themselves.
        pub type Model = ::arenaplan::Model<Plan>;
        /// Why init or a run failed.
        pub type Error = ::arenaplan::RunError;
    }
}

/// `pub const NAME: usize = index;` for each of a method's inputs or outputs, when every name
/// is a plain identifier and their constants differ (else none): a model's text reaches
/// generated code only as such a name.
fn index_consts(input: &Input<'_>, ids: &[usize]) -> Vec<TokenStream> {
    let names: Vec<&str> = ids
        .iter()
        .map(|&v| input.program.values[v].name.as_str())
        .collect();
    named_consts(&names, "")
}

/// `Some((scale, zero_point))` or `None` for each of a method's inputs or outputs: the numbers
/// the C header gives as `_SCALE` and `_ZERO_POINT`.
fn quant_consts(input: &Input<'_>, ids: &[usize]) -> Vec<TokenStream> {
    ids.iter()
        .map(|&v| {
            let quant = input.program.values[v].quant.as_ref();
            match quant.and_then(|q| q.per_tensor()) {
                Some((scale, zero)) => {
                    let (scale, zero) = (Literal::f32_suffixed(scale), Literal::i64_suffixed(zero));
                    quote! { Some((#scale, #zero)) }
                }
                None => quote! { None },
            }
        })
        .collect()
}

/// `pub const NAME: usize = index;` for each method of a program with several.
fn method_consts(input: &Input<'_>) -> Vec<TokenStream> {
    let names: Vec<&str> = input
        .methods
        .iter()
        .filter_map(|m| m.name.as_deref())
        .collect();
    named_consts(&names, "method ")
}

fn named_consts(names: &[&str], kind: &str) -> Vec<TokenStream> {
    let Some(consts) = super::io_names(names).plain else {
        return Vec::new();
    };
    consts
        .iter()
        .zip(names)
        .enumerate()
        .map(|(i, (c, n))| {
            let doc = format!(" The {kind}`{}` (index {i}).", comment(n));
            let (c, i) = (ident(c), Literal::usize_unsuffixed(i));
            quote! { #[doc = #doc] pub const #c: usize = #i; }
        })
        .collect()
}
