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
    let types = types();
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

/// The safe API over the model's C functions (`NAME_program.c`, compiled by the build script's
/// `cc_build()`): one `Model`, taken once, with its inputs, `run` and its outputs. Every count
/// and address comes from the plan; the only `unsafe` is here, in generated code.
fn api(input: &Input<'_>) -> TokenStream {
    let name = input.name;
    let symbol = |f: &str| format!("{name}_{f}");
    let (init, input_at, run, output_at, deinit, failed_call) = (
        symbol("init"),
        symbol("input"),
        symbol("run"),
        symbol("output"),
        symbol("deinit"),
        symbol("failed_call"),
    );
    let inputs = Literal::usize_unsuffixed(input.program.inputs.len());
    let outputs = Literal::usize_unsuffixed(input.program.outputs.len());
    let named = |ids: &[usize], kind: &str| -> Vec<TokenStream> {
        // Only names that already are plain identifiers become accessors (`input_image`): a
        // model's text never reaches generated code other than as such a name.
        let plain = |n: &str| n.len() <= 40 && crate::names::ident(n) == n && !n.starts_with('_');
        if !ids.iter().all(|&v| plain(&input.program.values[v].name)) {
            return Vec::new();
        }
        let idents: Vec<String> = ids
            .iter()
            .map(|&v| format!("{kind}_{}", input.program.values[v].name))
            .collect();
        // Only when every name gives its own accessor.
        let mut unique = idents.clone();
        unique.sort();
        unique.dedup();
        if unique.len() != idents.len() {
            return Vec::new();
        }
        idents
            .iter()
            .enumerate()
            .map(|(i, accessor)| {
                let doc = format!(
                    " {kind} `{}` (index {i}).",
                    comment(&input.program.values[ids[i]].name)
                );
                let f = ident(accessor);
                let index = Literal::usize_unsuffixed(i);
                if kind == "input" {
                    quote! { #[doc = #doc] pub fn #f(&mut self) -> &mut [u8] { self.input(#index) } }
                } else {
                    quote! { #[doc = #doc] pub fn #f(&self) -> &[u8] { self.output(#index) } }
                }
            })
            .collect()
    };
    let named_inputs = named(&input.program.inputs, "input");
    let named_outputs = named(&input.program.outputs, "output");
    let methods = method_apis(input);
    let method_externs = methods.iter().map(|m| &m.externs);
    let method_zeroing = methods.iter().map(|m| &m.zeroing);
    let (planned_inputs, planned_outputs) =
        planned_io(input, &input.program.inputs, &input.program.outputs);
    let method_fns = methods.iter().map(|m| &m.functions);
    quote! {
        unsafe extern "C" {
            #[link_name = #init]
            fn model_init() -> ::arenaplan::sys::ap_status;
            #[link_name = #input_at]
            fn model_input(index: u32, size: *mut u32) -> *mut u8;
            #[link_name = #run]
            fn model_run() -> ::arenaplan::sys::ap_status;
            #[link_name = #output_at]
            fn model_output(index: u32, size: *mut u32) -> *const u8;
            #[link_name = #deinit]
            fn model_deinit();
            #[link_name = #failed_call]
            fn model_failed_call() -> u32;
            #(#method_externs)*
        }

        /// Number of inputs.
        pub const INPUT_COUNT: usize = #inputs;
        /// Number of outputs.
        pub const OUTPUT_COUNT: usize = #outputs;

        /// Whether the one `Model` is taken.
        static TAKEN: ::core::sync::atomic::AtomicBool = ::core::sync::atomic::AtomicBool::new(false);

        /// Why a run failed: the call (its flat instruction index), its backend, and the runtime's
        /// status. A failure of init that is about no one call (a delegate's blob, a missing
        /// backend) names the first call.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Error {
            /// The call init or run stopped at (flat instruction index).
            pub call: u32,
            /// Its backend id (empty for a kernel).
            pub backend: &'static str,
            /// What the runtime said.
            pub status: ::arenaplan::RuntimeError,
        }

        impl ::core::fmt::Display for Error {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "call {} ({}): {}", self.call, self.backend, self.status)
            }
        }

        /// The planned model: its arenas, tables and delegates. One exists at a time
        /// ([`Model::take`]); its inputs and outputs are the planned buffers themselves.
        pub struct Model {
            initialized: bool,
            /// Not `Send` or `Sync`: the runtime's state is one static.
            _not_send: ::core::marker::PhantomData<*mut ()>,
        }

        impl Model {
            /// The model, if no other `Model` exists (like `Peripherals::take`); dropping it
            /// destroys its delegates and lets it be taken again.
            pub fn take() -> Option<Model> {
                if TAKEN.swap(true, ::core::sync::atomic::Ordering::AcqRel) {
                    return None;
                }
                // The arenas start uninitialized (no start-up cost): the inputs and outputs
                // this API lends as byte slices are zeroed first, so safe code never reads
                // uninitialized memory. Only planned ones: a constant output (a constant
                // method's) is in flash, never written.
                const PLANNED_INPUTS: &[u32] = &[#(#planned_inputs),*];
                const PLANNED_OUTPUTS: &[u32] = &[#(#planned_outputs),*];
                for &i in PLANNED_INPUTS {
                    let mut size = 0u32;
                    // SAFETY: each address is a planned buffer of `size` bytes, and no slice
                    // of it exists yet (the one `Model` is being made).
                    unsafe {
                        let data = model_input(i, &mut size);
                        if !data.is_null() {
                            ::core::ptr::write_bytes(data, 0, size as usize);
                        }
                    }
                }
                for &i in PLANNED_OUTPUTS {
                    let mut size = 0u32;
                    // SAFETY: as above: a planned output, so arena memory, never a constant.
                    unsafe {
                        let data = model_output(i, &mut size).cast_mut();
                        if !data.is_null() {
                            ::core::ptr::write_bytes(data, 0, size as usize);
                        }
                    }
                }
                #(#method_zeroing)*
                Some(Model { initialized: false, _not_send: ::core::marker::PhantomData })
            }

            /// Input `index`, to fill before each [`Model::run`] (the plan may reuse an input's
            /// memory once the input is read, so a run can leave other bytes there). Panics
            /// when `index` is not below [`INPUT_COUNT`]; empty for an input with no memory.
            pub fn input(&mut self, index: usize) -> &mut [u8] {
                assert!(index < INPUT_COUNT, "the model has {} inputs", INPUT_COUNT);
                let mut size = 0u32;
                // SAFETY: the address is the planned buffer's, fixed at link time and only
                // reached through this `Model` (there is one), borrowed mutably here.
                unsafe {
                    let data = model_input(index as u32, &mut size);
                    if data.is_null() {
                        // A value with no memory (unplanned, or of zero bytes).
                        return &mut [];
                    }
                    ::core::slice::from_raw_parts_mut(data, size as usize)
                }
            }

            /// Output `index`, as the last [`Model::run`] left it (zeros before the first run).
            /// Panics when `index` is not below [`OUTPUT_COUNT`]; empty for an output with no
            /// memory.
            pub fn output(&self, index: usize) -> &[u8] {
                assert!(index < OUTPUT_COUNT, "the model has {} outputs", OUTPUT_COUNT);
                let mut size = 0u32;
                // SAFETY: as for `input`; nothing writes it while it is borrowed, as `run`
                // takes `&mut self`.
                unsafe {
                    let data = model_output(index as u32, &mut size);
                    if data.is_null() {
                        return &[];
                    }
                    ::core::slice::from_raw_parts(data, size as usize)
                }
            }

            /// Runs every call; the first run also initializes the delegates from their blobs.
            pub fn run(&mut self) -> Result<(), Error> {
                if !self.initialized {
                    // SAFETY: the generated C functions over the one static method.
                    self.check(unsafe { model_init() })?;
                    self.initialized = true;
                }
                // SAFETY: as above.
                self.check(unsafe { model_run() })
            }

            fn check(&self, status: ::arenaplan::sys::ap_status) -> Result<(), Error> {
                ::arenaplan::check(status).map_err(|status| {
                    // SAFETY: reads the flat instruction index of the call the method failed at.
                    let index = unsafe { model_failed_call() };
                    let backend = CALLS
                        .iter()
                        .find(|c| c.index == index)
                        .map_or("", |c| c.backend);
                    let call = index;
                    Error { call, backend, status }
                })
            }

            #(#named_inputs)*
            #(#named_outputs)*
            #(#method_fns)*
        }

        impl Drop for Model {
            fn drop(&mut self) {
                if self.initialized {
                    // SAFETY: destroys the delegates init made.
                    unsafe { model_deinit() };
                }
                TAKEN.store(false, ::core::sync::atomic::Ordering::Release);
            }
        }
    }
}

/// The positions of a method's inputs, then of its outputs, that are planned memory (zeroed
/// when the `Model` is taken), as `u32` literals; the others are constants in flash or have no
/// memory.
fn planned_io(
    input: &Input<'_>,
    inputs: &[usize],
    outputs: &[usize],
) -> (Vec<Literal>, Vec<Literal>) {
    let planned = |ids: &[usize]| {
        ids.iter()
            .enumerate()
            .filter(|&(_, &v)| input.plan.buffer(v).is_some())
            .map(|(i, _)| Literal::u32_unsuffixed(i as u32))
            .collect()
    };
    (planned(inputs), planned(outputs))
}

/// A further method's part of the Rust API: its C functions, the zeroing of its inputs and
/// outputs when the `Model` is taken, and `run_method_<m>`, `method_<m>_input` and
/// `method_<m>_output` on `Model`.
struct MethodApi {
    externs: TokenStream,
    zeroing: TokenStream,
    functions: TokenStream,
}

fn method_apis(input: &Input<'_>) -> Vec<MethodApi> {
    input
        .methods
        .iter()
        .skip(1)
        .map(|m| {
            let method = crate::names::ident(m.name.as_deref().unwrap_or(""));
            let prefix = &m.prefix;
            let c = |f: &str| format!("{prefix}_{f}");
            let (c_input, c_run, c_output, c_failed) =
                (c("input"), c("run"), c("output"), c("failed_call"));
            let f = |s: String| ident(&s);
            let (x_input, x_run, x_output, x_failed) = (
                f(format!("method_{method}_c_input")),
                f(format!("method_{method}_c_run")),
                f(format!("method_{method}_c_output")),
                f(format!("method_{method}_c_failed_call")),
            );
            let (run, input_fn, output_fn) = (
                f(format!("run_method_{method}")),
                f(format!("method_{method}_input")),
                f(format!("method_{method}_output")),
            );
            let (ninputs, noutputs) = (
                Literal::usize_unsuffixed(m.inputs.len()),
                Literal::usize_unsuffixed(m.outputs.len()),
            );
            let (planned_inputs, planned_outputs) = planned_io(input, &m.inputs, &m.outputs);
            let shown = comment(m.name.as_deref().unwrap_or(""));
            let run_doc = format!(
                " Runs method `{shown}`; the first run of any method initializes every method's delegates. State shared between methods keeps its contents from one run to the next."
            );
            let input_doc = format!(
                " Input `index` of method `{shown}` (of {}), to fill before [`Model::{run}`]. Panics when `index` is out of range.",
                m.inputs.len()
            );
            let output_doc = format!(
                " Output `index` of method `{shown}` (of {}), as its last run left it. Panics when `index` is out of range.",
                m.outputs.len()
            );
            MethodApi {
                externs: quote! {
                    #[link_name = #c_input]
                    fn #x_input(index: u32, size: *mut u32) -> *mut u8;
                    #[link_name = #c_run]
                    fn #x_run() -> ::arenaplan::sys::ap_status;
                    #[link_name = #c_output]
                    fn #x_output(index: u32, size: *mut u32) -> *const u8;
                    #[link_name = #c_failed]
                    fn #x_failed() -> u32;
                },
                zeroing: quote! {
                    {
                    const PLANNED_INPUTS: &[u32] = &[#(#planned_inputs),*];
                    const PLANNED_OUTPUTS: &[u32] = &[#(#planned_outputs),*];
                    for &i in PLANNED_INPUTS {
                        let mut size = 0u32;
                        // SAFETY: as for the first method's inputs and outputs.
                        unsafe {
                            let data = #x_input(i, &mut size);
                            if !data.is_null() {
                                ::core::ptr::write_bytes(data, 0, size as usize);
                            }
                        }
                    }
                    for &i in PLANNED_OUTPUTS {
                        let mut size = 0u32;
                        // SAFETY: as for the first method's: a planned output, never a constant.
                        unsafe {
                            let data = #x_output(i, &mut size).cast_mut();
                            if !data.is_null() {
                                ::core::ptr::write_bytes(data, 0, size as usize);
                            }
                        }
                    }
                    }
                },
                functions: quote! {
                    #[doc = #input_doc]
                    pub fn #input_fn(&mut self, index: usize) -> &mut [u8] {
                        const N: usize = #ninputs;
                        assert!((0..N).contains(&index), "the method has {} inputs", N);
                        let mut size = 0u32;
                        // SAFETY: as for `input`.
                        unsafe {
                            let data = #x_input(index as u32, &mut size);
                            if data.is_null() {
                                return &mut [];
                            }
                            ::core::slice::from_raw_parts_mut(data, size as usize)
                        }
                    }

                    #[doc = #output_doc]
                    pub fn #output_fn(&self, index: usize) -> &[u8] {
                        const N: usize = #noutputs;
                        assert!((0..N).contains(&index), "the method has {} outputs", N);
                        let mut size = 0u32;
                        // SAFETY: as for `output`.
                        unsafe {
                            let data = #x_output(index as u32, &mut size);
                            if data.is_null() {
                                return &[];
                            }
                            ::core::slice::from_raw_parts(data, size as usize)
                        }
                    }

                    #[doc = #run_doc]
                    pub fn #run(&mut self) -> Result<(), Error> {
                        if !self.initialized {
                            // SAFETY: the generated C functions over the static methods.
                            self.check(unsafe { model_init() })?;
                            self.initialized = true;
                        }
                        // SAFETY: as above.
                        let status = unsafe { #x_run() };
                        ::arenaplan::check(status).map_err(|status| {
                            // SAFETY: reads the flat index of the call the method failed at.
                            let call = unsafe { #x_failed() };
                            let backend = CALLS.iter().find(|c| c.index == call).map_or("", |c| c.backend);
                            Error { call, backend, status }
                        })
                    }
                },
            }
        })
        .collect()
}
