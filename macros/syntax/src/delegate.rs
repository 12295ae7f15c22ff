//! The `#[delegate(...)]` and `#[kernel(...)]` grammar, parsed once for both users (the proc
//! macro and the build script):
//!
//! ```text
//! #[delegate(backend = "Id",
//!            scratch = <size> | [<size>, ...] | blob,
//!            mem_id = spec!(name) | [spec!(a), spec!(b), ...])]
//! #[kernel(op = "operator"
//!          [, scratch = <size> | [<size>, ...], mem_id = spec!(name) | [...]])]
//! ```
//!
//! `<size>` is a constant expression; integer literals and arithmetic on them (`4 * 1024`) are
//! evaluated here, anything else is left to the compiler. `blob`: the backend's plugin reads
//! each call's sizes from its compiled blob (a kernel has no blob). `mem_id` names pools
//! through compile specs of the selected target, never by number. A kernel may declare no
//! scratch (then neither `scratch` nor `mem_id`). Every problem of one attribute is reported
//! at once, each on its own span.
//!
//! ```
//! use arenaplan_syntax::delegate::{parse_delegate_args, Scratch};
//! let decl = parse_delegate_args(quote_args()).unwrap();
//! assert_eq!(decl.id.as_ref().unwrap().0, "ConvIm2col");
//! assert!(matches!(decl.scratch, Some(Scratch::Sizes { .. })));
//! # fn quote_args() -> proc_macro2::TokenStream {
//! #     "backend = \"ConvIm2col\", scratch = [2048, 512], mem_id = [spec!(fast_scratch), spec!(sram)]".parse().unwrap()
//! # }
//! ```

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, Meta, Token};

use crate::diagnostic::did_you_mean;
use crate::targets::{SpecError, Target};

/// The backend ids the C runtime implements itself (`ap_ethosu_backend`, `ap_neutron_backend`):
/// a backend written in Rust needs an id of its own, since the generated tables name the
/// runtime's for these.
pub const RUNTIME_BACKENDS: [&str; 2] = ["EthosUBackend", "NeutronBackend"];

/// The keys `#[delegate]` takes.
pub const KEYS: [&str; 3] = ["backend", "scratch", "mem_id"];

/// Which attribute a list of arguments belongs to: they share the scratch grammar and differ
/// in the key naming what runs (`backend` or `op`) and in what they require.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attribute {
    /// `#[delegate(backend = ..., scratch = ..., mem_id = ...)]`: all three required.
    Delegate,
    /// `#[kernel(op = ..., [scratch = ..., mem_id = ...])]`: scratch optional, never `blob`.
    Kernel,
}

impl Attribute {
    /// The key naming what runs.
    pub fn id_key(self) -> &'static str {
        match self {
            Attribute::Delegate => "backend",
            Attribute::Kernel => "op",
        }
    }

    /// Every key it takes.
    pub fn keys(self) -> [&'static str; 3] {
        [self.id_key(), "scratch", "mem_id"]
    }

    fn name(self) -> &'static str {
        match self {
            Attribute::Delegate => "#[delegate]",
            Attribute::Kernel => "#[kernel]",
        }
    }

    fn id_help(self) -> &'static str {
        match self {
            Attribute::Delegate => {
                "`backend` takes the backend id as a string, e.g. backend = \"EthosUBackend\""
            }
            Attribute::Kernel => {
                "`op` takes the operator's name as the model names it, a string, e.g. op = \"aten::add.out\""
            }
        }
    }
}

/// Parsed `#[delegate(...)]` or `#[kernel(...)]` arguments.
#[derive(Clone, Debug)]
pub struct DelegateArgs {
    /// Which attribute.
    pub attribute: Attribute,
    /// `backend = "Id"` (`op = "name"` for a kernel), with the string's span.
    pub id: Option<(String, Span)>,
    /// Whether the id key was written at all (a wrong value is reported once, not also as
    /// missing).
    pub id_written: bool,
    /// `scratch = ...`.
    pub scratch: Option<Scratch>,
    /// `mem_id = ...`, one entry per `spec!`, with whether it was written as a list.
    pub mem_id: Option<(Vec<SpecRef>, bool, Span)>,
    /// How many `mem_id` entries were written (valid or not), for the length check.
    pub mem_id_written: usize,
}

/// What `scratch =` says.
#[derive(Clone, Debug)]
pub enum Scratch {
    /// `blob`: sizes come from each call's compiled blob.
    Blob(Span),
    /// One size, or a list.
    Sizes {
        /// The sizes in declaration (= argument) order.
        sizes: Vec<Size>,
        /// Written as `[...]`.
        list: bool,
        /// The whole value's span.
        span: Span,
    },
}

/// One size expression.
#[derive(Clone)]
pub struct Size {
    /// The expression as written.
    pub expr: Expr,
    /// Its value, when it is made of integer literals.
    pub value: Option<i128>,
}

/// `spec!(name)`.
#[derive(Clone)]
pub struct SpecRef {
    /// The compile spec's name.
    pub name: String,
    /// The name's span.
    pub span: Span,
    /// The macro call as written (`spec!(name)` or `arenaplan::spec!(name)`).
    pub expr: Expr,
}

// By hand: the expressions print as the tokens written (syn's own `Debug` for them would need
// its `extra-traits` feature, a third of syn's compile time in every firmware build).
impl std::fmt::Debug for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Size")
            .field("expr", &self.expr.to_token_stream().to_string())
            .field("value", &self.value)
            .finish()
    }
}

impl std::fmt::Debug for SpecRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpecRef")
            .field("name", &self.name)
            .field("span", &self.span)
            .field("expr", &self.expr.to_token_stream().to_string())
            .finish()
    }
}

impl Size {
    /// The expression's span.
    pub fn span(&self) -> Span {
        self.expr.span()
    }
}

impl Scratch {
    /// How many buffers it declares (`None` for `blob`: the blob decides).
    pub fn count(&self) -> Option<usize> {
        match self {
            Scratch::Blob(_) => None,
            Scratch::Sizes { sizes, .. } => Some(sizes.len()),
        }
    }
}

/// Accumulates errors so that one attribute reports all of them.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, span: Span, message: impl std::fmt::Display) {
        let e = syn::Error::new(span, message);
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }

    fn finish<T>(self, value: T) -> syn::Result<T> {
        match self.0 {
            Some(e) => Err(e),
            None => Ok(value),
        }
    }
}

/// Parses the tokens inside `#[delegate(...)]`. Errors: unknown or repeated keys (with "did
/// you mean"), malformed values.
pub fn parse_delegate_args(tokens: TokenStream) -> syn::Result<DelegateArgs> {
    let (args, errors) = parse_delegate_args_partial(tokens);
    match errors {
        Some(e) => Err(e),
        None => Ok(args),
    }
}

/// Like [`parse_delegate_args`], but also returns what parsed, so that the checks can run on
/// it and every problem of the attribute is reported at once.
pub fn parse_delegate_args_partial(tokens: TokenStream) -> (DelegateArgs, Option<syn::Error>) {
    parse_args_partial(tokens, Attribute::Delegate)
}

/// The arguments of `#[kernel(...)]`, as [`parse_delegate_args_partial`] parses a delegate's.
///
/// ```
/// use arenaplan_syntax::delegate::parse_kernel_args_partial;
/// let tokens = "op = \"aten::add.out\", scratch = 256, mem_id = spec!(cpu_scratch)".parse().unwrap();
/// let (args, errors) = parse_kernel_args_partial(tokens);
/// assert!(errors.is_none());
/// assert_eq!(args.id.unwrap().0, "aten::add.out");
/// ```
pub fn parse_kernel_args_partial(tokens: TokenStream) -> (DelegateArgs, Option<syn::Error>) {
    parse_args_partial(tokens, Attribute::Kernel)
}

/// Parses the arguments of `attribute`, returning what parsed and every problem found.
pub fn parse_args_partial(
    tokens: TokenStream,
    attribute: Attribute,
) -> (DelegateArgs, Option<syn::Error>) {
    let empty = || DelegateArgs {
        attribute,
        id: None,
        id_written: false,
        scratch: None,
        mem_id: None,
        mem_id_written: 0,
    };
    let metas = match Punctuated::<Meta, Token![,]>::parse_terminated.parse2(tokens) {
        Ok(m) => m,
        Err(e) => return (empty(), Some(e)),
    };
    let mut errors = Errors::default();
    let mut args = empty();
    let keys = attribute.keys();
    for meta in metas {
        let Meta::NameValue(nv) = &meta else {
            errors.push(
                meta.span(),
                format!("expected `key = value` (keys: {})", keys.join(", ")),
            );
            continue;
        };
        let key = nv
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let repeated = match key.as_str() {
            "scratch" => args.scratch.is_some(),
            "mem_id" => args.mem_id.is_some(),
            k if k == attribute.id_key() => args.id.is_some(),
            _ => false,
        };
        if repeated {
            errors.push(nv.path.span(), format!("`{key}` is given twice"));
            continue;
        }
        if key == attribute.id_key() {
            args.id_written = true;
        }
        match key.as_str() {
            k if k == attribute.id_key() => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) if !s.value().is_empty() => {
                    args.id = Some((s.value(), s.span()));
                }
                other => errors.push(other.span(), attribute.id_help()),
            },
            "scratch" => match parse_scratch(&nv.value, &mut errors) {
                Some(s) => args.scratch = Some(s),
                None => continue,
            },
            "mem_id" => {
                let (exprs, list): (Vec<&Expr>, bool) = match &nv.value {
                    Expr::Array(a) => (a.elems.iter().collect(), true),
                    single => (vec![single], false),
                };
                let mut specs = Vec::new();
                args.mem_id_written = exprs.len();
                for e in exprs {
                    match spec_ref(e) {
                        Some(s) => specs.push(s),
                        None => errors.push(
                            e.span(),
                            "`mem_id` takes a compile spec of the target, `spec!(name)`, never a bare number",
                        ),
                    }
                }
                args.mem_id = Some((specs, list, nv.value.span()));
            }
            _ => {
                let message = match did_you_mean(&key, keys) {
                    Some(s) => format!("unknown key `{key}`; did you mean `{s}`?"),
                    None => format!(
                        "unknown key `{key}`; `{}` takes {}, scratch and mem_id",
                        attribute.name(),
                        attribute.id_key()
                    ),
                };
                errors.push(nv.path.span(), message);
            }
        }
    }
    (args, errors.0)
}

fn parse_scratch(value: &Expr, errors: &mut Errors) -> Option<Scratch> {
    if let Expr::Path(p) = value {
        if p.path.is_ident("blob") {
            return Some(Scratch::Blob(value.span()));
        }
    }
    let (exprs, list): (Vec<&Expr>, bool) = match value {
        Expr::Array(a) => (a.elems.iter().collect(), true),
        single => (vec![single], false),
    };
    if list && exprs.is_empty() {
        errors.push(value.span(), "`scratch = []` declares nothing; leave `scratch` out for a backend that needs no scratch");
        return None;
    }
    let sizes = exprs
        .into_iter()
        .map(|e| Size {
            expr: e.clone(),
            value: eval_int(e),
        })
        .collect();
    Some(Scratch::Sizes {
        sizes,
        list,
        span: value.span(),
    })
}

fn spec_ref(e: &Expr) -> Option<SpecRef> {
    let Expr::Macro(m) = e else { return None };
    if !m.mac.path.is_ident("spec") && m.mac.path.segments.last().is_none_or(|s| s.ident != "spec")
    {
        return None;
    }
    let ident: syn::Ident = syn::parse2(m.mac.tokens.clone()).ok()?;
    Some(SpecRef {
        name: ident.to_string(),
        span: ident.span(),
        expr: e.clone(),
    })
}

/// The value of an integer constant expression made of literals, `+ - * / % << >>`, unary
/// minus and parentheses; `None` for anything else (or on overflow).
pub fn eval_int(e: &Expr) -> Option<i128> {
    match e {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse::<i128>().ok(),
        Expr::Paren(p) => eval_int(&p.expr),
        Expr::Group(g) => eval_int(&g.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => eval_int(&u.expr)?.checked_neg(),
        Expr::Binary(b) => {
            let (l, r) = (eval_int(&b.left)?, eval_int(&b.right)?);
            match b.op {
                syn::BinOp::Add(_) => l.checked_add(r),
                syn::BinOp::Sub(_) => l.checked_sub(r),
                syn::BinOp::Mul(_) => l.checked_mul(r),
                syn::BinOp::Div(_) => l.checked_div(r),
                syn::BinOp::Rem(_) => l.checked_rem(r),
                syn::BinOp::Shl(_) => u32::try_from(r).ok().and_then(|r| l.checked_shl(r)),
                syn::BinOp::Shr(_) => u32::try_from(r).ok().and_then(|r| l.checked_shr(r)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The name of the generated module describing a backend: its id with every character that
/// cannot appear in an identifier replaced by `_` (and `_` in front of a leading digit).
///
/// ```
/// assert_eq!(arenaplan_syntax::delegate::backend_module("EthosUBackend"), "EthosUBackend");
/// assert_eq!(arenaplan_syntax::delegate::backend_module("my-backend.v2"), "my_backend_v2");
/// ```
pub fn backend_module(backend: &str) -> String {
    let mut name: String = backend
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    // `self`, `_` and the like cannot name a module.
    if crate::names::is_keyword(&name) || name.chars().all(|c| c == '_') {
        name.push('_');
    }
    name
}

/// A declaration checked against the target: one pool per buffer.
#[derive(Clone, Debug)]
pub struct CheckedDelegate {
    /// The backend id (a kernel's operator).
    pub id: String,
    /// The sizes (`None`: from the blob), and the compile specs naming their pools.
    pub scratch: Option<Vec<Size>>,
    /// Compile spec names, one per buffer (for `blob`: for the blob's buffers in order).
    pub specs: Vec<SpecRef>,
}

/// Checks a parsed declaration: required keys present, literal sizes positive, one `mem_id`
/// per size, every spec defined by `target` and its pool enabled; for a kernel, no `blob` and
/// `scratch` with `mem_id` or neither. All errors at once; the attribute's own span stands in
/// where a key is missing.
pub fn check_delegate(
    args: DelegateArgs,
    target: Option<&Target>,
    attr_span: Span,
) -> syn::Result<CheckedDelegate> {
    let mut errors = Errors::default();
    match args.attribute {
        Attribute::Delegate => {
            if !args.id_written {
                errors.push(
                    attr_span,
                    "missing `backend = \"...\"`: the id of the backend this declaration is for",
                );
            }
            if args.scratch.is_none() {
                errors.push(
                    attr_span,
                    "missing `scratch = ...`: a size, a list of sizes, or `blob`",
                );
            }
            if args.mem_id.is_none() {
                errors.push(
                    attr_span,
                    "missing `mem_id = spec!(...)`: the compile spec naming each buffer's pool",
                );
            }
        }
        Attribute::Kernel => {
            if !args.id_written {
                errors.push(
                    attr_span,
                    "missing `op = \"...\"`: the operator this kernel runs, as the model names it",
                );
            }
            if let Some(Scratch::Blob(span)) = &args.scratch {
                errors.push(
                    *span,
                    "a kernel has no compiled blob to read sizes from: declare them, e.g. scratch = [1024]",
                );
            }
            match (&args.scratch, &args.mem_id) {
                (Some(_), None) => errors.push(
                    attr_span,
                    "missing `mem_id = spec!(...)`: the compile spec naming each buffer's pool",
                ),
                (None, Some((_, _, span))) => errors.push(
                    *span,
                    "`mem_id` without `scratch`: declare the buffers' sizes, or leave both out for a kernel that needs no scratch",
                ),
                _ => {}
            }
        }
    }
    if let Some(Scratch::Sizes { sizes, .. }) = &args.scratch {
        for s in sizes {
            if let Some(v) = s.value {
                if v <= 0 {
                    errors.push(
                        s.span(),
                        format!("scratch size must be positive, found {v}"),
                    );
                }
            }
        }
    }
    if let (Some(Scratch::Sizes { sizes, .. }), Some((_, _, span))) = (&args.scratch, &args.mem_id)
    {
        if sizes.len() != args.mem_id_written {
            errors.push(
                *span,
                format!(
                    "{} scratch size(s) but {} mem_id(s): give one `spec!(...)` per buffer, in the same order",
                    sizes.len(),
                    args.mem_id_written
                ),
            );
        }
    }
    if let (Some((specs, _, _)), Some(target)) = (&args.mem_id, target) {
        for spec in specs {
            if let Err(e) = target.resolve_spec(&spec.name) {
                let message = match e {
                    SpecError::Unknown {
                        suggestion, known, ..
                    } => format!(
                        "target `{}` has no compile spec `{}`{}; it defines: {}",
                        target.name,
                        spec.name,
                        suggestion
                            .map(|s| format!(" (did you mean `{s}`?)"))
                            .unwrap_or_default(),
                        known.join(", ")
                    ),
                    other => other.to_string(),
                };
                errors.push(spec.span, message);
            }
        }
    }
    let checked = CheckedDelegate {
        id: args.id.map(|b| b.0).unwrap_or_default(),
        scratch: match args.scratch {
            Some(Scratch::Sizes { sizes, .. }) => Some(sizes),
            // A kernel without scratch declares zero buffers (its plan must agree).
            None if args.attribute == Attribute::Kernel => Some(Vec::new()),
            _ => None,
        },
        specs: args.mem_id.map(|m| m.0).unwrap_or_default(),
    };
    errors.finish(checked)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::SourceText;
    use crate::targets::Catalogue;

    fn parse(s: &str) -> syn::Result<DelegateArgs> {
        parse_delegate_args(s.parse().unwrap())
    }

    fn messages(e: syn::Error) -> Vec<String> {
        e.into_iter().map(|e| e.to_string()).collect()
    }

    #[test]
    fn the_design_examples_parse() {
        let a = parse("backend = \"EthosUBackend\", scratch = blob, mem_id = spec!(npu_scratch)")
            .unwrap();
        assert!(matches!(a.scratch, Some(Scratch::Blob(_))));
        let b = parse("backend = \"ConvIm2col\", scratch = [2048, 4 * 128], mem_id = [spec!(fast_scratch), spec!(sram)]").unwrap();
        let Some(Scratch::Sizes {
            sizes, list: true, ..
        }) = b.scratch
        else {
            panic!()
        };
        assert_eq!(
            sizes.iter().map(|s| s.value).collect::<Vec<_>>(),
            vec![Some(2048), Some(512)]
        );
        let names: Vec<String> = b.mem_id.unwrap().0.into_iter().map(|s| s.name).collect();
        assert_eq!(names, ["fast_scratch", "sram"]);
        let c =
            parse("backend = \"X\", scratch = MY_SIZE, mem_id = arenaplan::spec!(sram)").unwrap();
        let Some(Scratch::Sizes {
            sizes, list: false, ..
        }) = c.scratch
        else {
            panic!()
        };
        assert_eq!(sizes[0].value, None);
    }

    #[test]
    fn every_problem_of_one_attribute_is_reported() {
        let e = parse("backend = 3, scrach = 4, mem_id = 1, mem_id = spec!(a)").unwrap_err();
        assert_eq!(
            messages(e),
            [
                "`backend` takes the backend id as a string, e.g. backend = \"EthosUBackend\"",
                "unknown key `scrach`; did you mean `scratch`?",
                "`mem_id` takes a compile spec of the target, `spec!(name)`, never a bare number",
                "`mem_id` is given twice",
            ]
        );
    }

    #[test]
    fn checks_against_the_target() {
        let c = Catalogue::parse(&SourceText::new("t", crate::targets::BUILTIN_TARGETS)).unwrap();
        let t = c.target("corstone-300").unwrap();
        let args = parse("backend = \"B\", scratch = [0, 16, -4], mem_id = [spec!(npu_scrach), spec!(planned_fast)]").unwrap();
        let e = check_delegate(args, Some(t), Span::call_site()).unwrap_err();
        assert_eq!(
            messages(e),
            [
                "scratch size must be positive, found 0",
                "scratch size must be positive, found -4",
                "3 scratch size(s) but 2 mem_id(s): give one `spec!(...)` per buffer, in the same order",
                "target `corstone-300` has no compile spec `npu_scrach` (did you mean `npu_scratch`?); it defines: cpu_scratch, fast_scratch, npu_scratch, planned_fast",
                "pool `fast` (mem_id 3) of target `corstone-300` is disabled by default; enable it in targets.toml (`enabled = true`) or choose another pool",
            ]
        );
        let missing =
            check_delegate(parse("scratch = 4").unwrap(), Some(t), Span::call_site()).unwrap_err();
        assert_eq!(messages(missing).len(), 2);
    }

    #[test]
    fn kernel_rules() {
        let c = Catalogue::parse(&SourceText::new("t", crate::targets::BUILTIN_TARGETS)).unwrap();
        let t = c.target("corstone-300").unwrap();
        let kernel = |s: &str| {
            let (args, errors) = parse_kernel_args_partial(s.parse().unwrap());
            assert!(errors.is_none(), "{s}");
            check_delegate(args, Some(t), Span::call_site())
        };
        let plain = kernel("op = \"relu\"").unwrap();
        assert_eq!(plain.scratch.map(|s| s.len()), Some(0));
        let sized = kernel("op = \"aten::add.out\", scratch = [64, 32], mem_id = [spec!(cpu_scratch), spec!(cpu_scratch)]").unwrap();
        assert_eq!(sized.scratch.map(|s| s.len()), Some(2));
        assert_eq!(
            messages(kernel("op = \"k\", scratch = blob, mem_id = spec!(cpu_scratch)").unwrap_err()),
            ["a kernel has no compiled blob to read sizes from: declare them, e.g. scratch = [1024]"]
        );
        assert_eq!(
            messages(kernel("op = \"k\", scratch = 4").unwrap_err()).len(),
            1
        );
        assert_eq!(
            messages(kernel("op = \"k\", mem_id = spec!(cpu_scratch)").unwrap_err()).len(),
            1
        );
        assert_eq!(
            messages(kernel("scratch = 4, mem_id = spec!(cpu_scratch)").unwrap_err()).len(),
            1
        );
        let (_, errors) = parse_kernel_args_partial("backend = \"x\"".parse().unwrap());
        assert_eq!(
            messages(errors.unwrap()),
            ["unknown key `backend`; `#[kernel]` takes op, scratch and mem_id"]
        );
    }
}
