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
    let arenas = input.pools().into_iter().map(|(pool, _)| arena(input, pool));
    let types = types();
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
            pub const #ident: Region = Region { call: #call, value: #value, mem_id: #mem_id, offset: #offset, size: #size };
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
    let tokens = quote! {
        /// The target this plan is for.
        pub const TARGET: &str = #target;
        /// The model planned.
        pub const MODEL: &str = #model;

        #types

        /// The pools this plan uses.
        pub mod pool {
            #(#pool_mods)*
        }
        #(#capacity_checks)*

        #(#arenas)*

        #buffers

        /// Every kernel and delegate call with its flat argument list (inputs, outputs, scratch).
        pub const CALLS: &[CallArgs] = &[#(#calls),*];

        /// The scratch region of every buffer of every delegate call.
        pub mod scratch {
            use super::Region;
            #(#regions)*
        }

        /// What `#[delegate]` declarations are checked against.
        pub struct Declarations;
        /// Scratch sizes the build script read from each `#[delegate]` declaration (empty: `blob`).
        pub mod backend {
            #(#declared)*
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
/// declaration (C defines it).
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
                #[doc = #about]
                #[unsafe(link_section = #section)]
                #[unsafe(export_name = #symbol)]
                pub static #stat: #ty = #ty(::core::cell::UnsafeCell::new(::core::mem::MaybeUninit::uninit()));
            }
        }
        Symbols::C => {
            let about = format!(
                " The arena of pool `{}`, defined by the generated C source.",
                pool.name
            );
            quote! {
                unsafe extern "C" {
                    #[doc = #about]
                    #[link_name = #symbol]
                    pub static #stat: #ty;
                }
            }
        }
    };
    quote! {
        #[doc = #storage]
        #[repr(C, align(#align))]
        pub struct #ty(pub ::core::cell::UnsafeCell<::core::mem::MaybeUninit<[u8; pool::#m::SIZE]>>);
        /// SAFETY: the runtime hands each call the disjoint regions the plan proved; the arena
        /// is never accessed as a whole.
        unsafe impl Sync for #ty {}
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
                /// Every planned buffer, by value id.
                #[unsafe(export_name = #symbol)]
                pub static BUFFERS: [Buffer; BUFFER_COUNT] = [#(#entries),*];
            }
        }
        Symbols::C => quote! {
            unsafe extern "C" {
                /// Every planned buffer, by value id (defined by the generated C source).
                #[link_name = #symbol]
                pub static BUFFERS: [Buffer; BUFFER_COUNT];
            }
        },
    };
    quote! {
        /// Number of planned buffers.
        pub const BUFFER_COUNT: usize = #count;
        #table
    }
}

/// The types every generated module declares (the C header's counterparts).
fn types() -> TokenStream {
    quote! {
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
