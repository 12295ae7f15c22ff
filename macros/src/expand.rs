//! Code generation for `#[delegate]` and `spec!`.

use arenaplan_syntax::delegate::{
    backend_module, check_delegate, parse_args_partial, Attribute, CheckedDelegate, DelegateArgs,
    Size,
};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::ext::IdentExt;
use syn::spanned::Spanned;
use syn::{Fields, Item};

use crate::target;

fn combine(all: &mut Option<syn::Error>, e: syn::Error) {
    match all {
        Some(a) => a.combine(e),
        None => *all = Some(e),
    }
}

/// The attribute's arguments parsed, the selected target found, and the declaration checked
/// against it (with the caller's `extra` rule on what parsed): every problem added to `errors`
/// at once, parse and check problems together.
fn parse_and_check(
    args: TokenStream,
    attribute: Attribute,
    errors: &mut Option<syn::Error>,
    extra: impl FnOnce(&DelegateArgs, &mut Option<syn::Error>),
) -> Option<CheckedDelegate> {
    let attr_span = Span::call_site();
    let target = match target::selected() {
        Ok(t) => Some(t),
        Err(message) => {
            combine(errors, syn::Error::new(attr_span, message));
            None
        }
    };
    let (parsed, parse_errors) = parse_args_partial(args, attribute);
    if let Some(e) = parse_errors {
        combine(errors, e);
    }
    extra(&parsed, errors);
    match check_delegate(parsed, target, attr_span) {
        Ok(c) => Some(c),
        Err(e) => {
            combine(errors, e);
            None
        }
    }
}

enum Shape {
    /// A unit struct binding a backend written in C.
    Struct(syn::Ident),
    /// A function: a backend written in Rust.
    Function(syn::Ident, syn::Visibility),
}

pub(crate) fn delegate(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = None;
    // An item that does not parse stays in the output with the errors (as #[kernel] keeps
    // its own), so the rest of the crate and the IDE still see it.
    let parsed_item: Option<Item> = match syn::parse2(item.clone()) {
        Ok(i) => Some(i),
        Err(e) => {
            combine(&mut errors, e);
            None
        }
    };
    let shape = match &parsed_item {
        None => None,
        Some(Item::Struct(s)) if matches!(s.fields, Fields::Unit) => {
            Some(Shape::Struct(s.ident.clone()))
        }
        Some(Item::Fn(f)) => Some(Shape::Function(f.sig.ident.clone(), f.vis.clone())),
        Some(other) => {
            combine(
                &mut errors,
                syn::Error::new(
                    other.span(),
                    "#[delegate] goes on a unit struct (binding a backend written in C) or on a function `fn(&mut arenaplan::Call<'_>) -> arenaplan::Result` (a backend written in Rust)",
                ),
            );
            None
        }
    };
    let rust_fn = matches!(shape, Some(Shape::Function(..)));
    let checked = parse_and_check(args, Attribute::Delegate, &mut errors, |parsed, errors| {
        if let (true, Some((id, span))) = (rust_fn, &parsed.id) {
            if arenaplan_syntax::delegate::RUNTIME_BACKENDS.contains(&id.as_str()) {
                combine(
                    errors,
                    syn::Error::new(
                        *span,
                        format!("`{id}` is the C runtime's own backend: give the Rust backend an id of its own (and the model's delegates that id), or bind the C one with #[delegate] on a unit struct"),
                    ),
                );
            }
        }
    });
    if let Some(e) = errors {
        let e = e.to_compile_error();
        return quote!(#item #e);
    }
    let (Some(checked), Some(shape)) = (checked, shape) else {
        return item;
    };
    let backend = &checked.id;
    // A stable tag for the one-declaration-per-backend rule.
    let tag = arenaplan_syntax::digest::fnv1a(backend.as_bytes());
    let declared = plan_check(&checked, "backend");
    let buffers = match &checked.scratch {
        Some(s) => {
            let n = s.len();
            quote!(::core::option::Option::Some(#n))
        }
        None => quote!(::core::option::Option::None),
    };
    let binding = match &shape {
        Shape::Struct(ident) => quote! {
            impl ::arenaplan::Delegate for #ident {
                const BACKEND: &'static str = #backend;
                const SCRATCH_BUFFERS: ::core::option::Option<usize> = #buffers;
            }
        },
        Shape::Function(ident, vis) => {
            let constant = format_ident!("{}_DELEGATE", ident.unraw().to_string().to_uppercase());
            let doc = format!("The delegate backend `{backend}` implemented by [`{ident}`].");
            // The runtime runs it: an `ap_backend_t` under the symbol the build's tables name
            // for this id (the same identifier rule), with an `extern "C"` trampoline.
            let symbol = arenaplan_syntax::names::backend_symbol(backend);
            let id = proc_macro2::Literal::byte_string(format!("{backend}\0").as_bytes());
            let descriptor = format_ident!(
                "__ARENAPLAN_BACKEND_{}",
                ident.unraw().to_string().to_uppercase()
            );
            let execute = format_ident!("__arenaplan_execute_{}", ident);
            quote! {
                #[doc = #doc]
                #vis const #constant: ::arenaplan::RustDelegate = ::arenaplan::RustDelegate {
                    backend: #backend,
                    scratch_buffers: #buffers,
                    run: #ident,
                };
                #[doc(hidden)]
                #[allow(non_upper_case_globals)]
                #[unsafe(export_name = #symbol)]
                pub static #descriptor: ::arenaplan::__private::BackendDesc =
                    ::arenaplan::__private::BackendDesc::new(#id, #execute);
                #[doc(hidden)]
                unsafe extern "C" fn #execute(
                    ctx: *mut ::arenaplan::sys::ap_context,
                    _handle: *mut ::arenaplan::sys::ap_handle,
                    args: *mut ::arenaplan::sys::ap_buffer,
                    nargs: usize,
                ) -> ::arenaplan::sys::ap_status {
                    // SAFETY: called by the runtime as a backend's `execute`, with its
                    // context and the call's argument list.
                    unsafe { ::arenaplan::__private::dispatch(#ident, ctx, args, nargs) }
                }
            }
        }
    };
    quote! {
        #item
        #binding
        #declared
        // One declaration per backend in a crate: a second one is a conflicting impl.
        impl ::arenaplan::__private::Declared<#tag> for crate::arenaplan_plan::Declarations {}
    }
}

/// The `const` block checking a declaration against the plan the build script generated: the
/// sizes it read from this declaration (in module `backend` or `kernel` of the plan) must be
/// the ones written here. The `spec!` calls are expanded once more as values, so the compiler
/// checks them like any other use (and the user's `use arenaplan::spec` counts as used).
fn plan_check(checked: &CheckedDelegate, namespace: &str) -> TokenStream {
    let id = &checked.id;
    let module = format_ident!("{}", backend_module(id));
    let namespace = format_ident!("{}", namespace);
    let specs = checked.specs.iter().map(|s| &s.expr);
    let check = match &checked.scratch {
        None => quote! {
            // `blob`: sizes come from each call's blob; the plan must still know the backend.
            let _ = crate::arenaplan_plan::#namespace::#module::SCRATCH;
        },
        Some(sizes) => {
            let exprs: Vec<_> = sizes.iter().map(|s| &s.expr).collect();
            let positive = sizes
                .iter()
                .filter(|s| s.value.is_none())
                .map(positive_check);
            let message = format!(
                "arenaplan: the plan's scratch sizes for {namespace} `{id}` differ from this declaration; the generated plan is stale: let the build script see this file (its `source`s) and rebuild"
            );
            quote! {
                #(#positive)*
                assert!(
                    ::arenaplan::__private::sizes_match(
                        crate::arenaplan_plan::#namespace::#module::SCRATCH,
                        &[#((#exprs) as usize),*],
                    ),
                    #message
                );
            }
        }
    };
    quote! {
        const _: () = {
            #( let _: u32 = #specs; )*
            #check
        };
    }
}

fn positive_check(size: &Size) -> TokenStream {
    let expr = &size.expr;
    quote_spanned! {expr.span()=>
        assert!((#expr) as i128 > 0, "arenaplan: a scratch size must be positive");
    }
}

pub(crate) fn spec(input: TokenStream) -> TokenStream {
    let ident: syn::Ident = match syn::parse2(input) {
        Ok(i) => i,
        Err(e) => {
            return syn::Error::new(
                e.span(),
                "spec! takes the name of a compile spec, e.g. spec!(npu_scratch)",
            )
            .to_compile_error()
        }
    };
    let target = match target::selected() {
        Ok(t) => t,
        Err(message) => return syn::Error::new(ident.span(), message).to_compile_error(),
    };
    match target.resolve_spec(&ident.unraw().to_string()) {
        Ok(pool) => {
            let id = pool.mem_id;
            quote!(#id)
        }
        Err(e) => syn::Error::new(ident.span(), e.to_string()).to_compile_error(),
    }
}

/// `#[kernel(op = "...", [scratch = ..., mem_id = ...])]` on a function: an `ap_kernel_t`
/// under `ap_kernel_<op>`, whose function is an `extern "C"` trampoline into the runtime's
/// dispatch, and the same checks against the plan as a delegate's declaration.
pub(crate) fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = None;
    let function: Option<syn::ItemFn> = match syn::parse2(item.clone()) {
        Ok(f) => Some(f),
        Err(_) => {
            combine(
                &mut errors,
                syn::Error::new_spanned(
                    &item,
                    "#[kernel] goes on a function `fn(&mut arenaplan::Call<'_>) -> arenaplan::Result`",
                ),
            );
            None
        }
    };
    let checked = parse_and_check(args, Attribute::Kernel, &mut errors, |_, _| {});
    if let Some(e) = errors {
        let e = e.to_compile_error();
        return quote!(#item #e);
    }
    let (Some(function), Some(checked)) = (function, checked) else {
        return item;
    };
    let ident = &function.sig.ident;
    let name = &checked.id;
    let symbol = arenaplan_syntax::names::kernel_symbol(name);
    let op_bytes = proc_macro2::Literal::byte_string(format!("{name}\0").as_bytes());
    let descriptor = format_ident!(
        "__ARENAPLAN_KERNEL_{}",
        ident.unraw().to_string().to_uppercase()
    );
    let run = format_ident!("__arenaplan_kernel_{}", ident);
    let declared = plan_check(&checked, "kernel");
    quote! {
        #function
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        #[unsafe(export_name = #symbol)]
        pub static #descriptor: ::arenaplan::__private::KernelDesc =
            ::arenaplan::__private::KernelDesc::new(#op_bytes, #run);
        #[doc(hidden)]
        unsafe extern "C" fn #run(
            ctx: *mut ::arenaplan::sys::ap_context,
            args: *mut ::arenaplan::sys::ap_buffer,
            nargs: usize,
            _user: *mut ::core::ffi::c_void,
        ) -> ::arenaplan::sys::ap_status {
            // SAFETY: called by the runtime as a kernel, with its context and the call's
            // argument list.
            unsafe { ::arenaplan::__private::dispatch(#ident, ctx, args, nargs) }
        }
        #declared
    }
}
