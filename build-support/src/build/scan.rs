//! Finding `#[delegate]` and `#[kernel]` declarations in the firmware's sources, with the same
//! parser and checks as the proc macro (`arenaplan_syntax::delegate`).

use std::path::{Path, PathBuf};

use arenaplan_syntax::delegate::{
    backend_module, check_delegate, parse_args_partial, Attribute, Scratch,
};
use syn::spanned::Spanned;

use crate::diagnostic::{Diagnostic, SourceText};
use crate::model::{Origin, PoolChoice, ScratchSpec};
use crate::pipeline::{BackendScratch, Declarations, DeclaredScratch, KernelScratch};
use crate::targets::Target;

/// Largest source file scanned.
const MAX_SOURCE_BYTES: u64 = 16 << 20;

/// One declaration found, where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    /// What it declares.
    pub declaration: Declaration,
    /// Where (path as given, line, column).
    pub origin: Origin,
}

/// What one attribute declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Declaration {
    /// `#[delegate]`: a backend's scratch.
    Backend(BackendScratch),
    /// `#[kernel]`: a kernel's scratch (possibly none).
    Kernel(KernelScratch),
}

/// The declarations found, split by kind, in scan order.
pub fn declarations(found: Vec<Found>) -> Declarations {
    let mut out = Declarations::default();
    for f in found {
        match f.declaration {
            Declaration::Backend(b) => out.backends.push(b),
            Declaration::Kernel(k) => out.kernels.push(k),
        }
    }
    out
}

/// Scans `files` (paths shown relative to `base`) for `#[delegate]` and `#[kernel]` attributes
/// on items at any module depth. Every problem in every file is returned, not just the first.
pub fn scan(
    files: &[PathBuf],
    base: &Path,
    target: &Target,
) -> Result<Vec<Found>, Vec<Diagnostic>> {
    let mut found: Vec<Found> = Vec::new();
    // Backends and kernels each have their namespace (and generated module) of their own.
    let mut seen: Vec<(Attribute, String, Origin)> = Vec::new();
    let mut problems = Vec::new();
    for file in files {
        let shown = file.strip_prefix(base).unwrap_or(file).to_path_buf();
        let source = match SourceText::read(file, MAX_SOURCE_BYTES) {
            Ok(s) => SourceText::new(shown, s.text),
            Err(d) => {
                problems.push(d);
                continue;
            }
        };
        let parsed = match syn::parse_file(&source.text) {
            Ok(f) => f,
            Err(e) => {
                problems.push(at(&source, e.span(), format!("cannot parse: {e}")));
                continue;
            }
        };
        let mut attrs = Vec::new();
        collect(&parsed.items, &mut attrs);
        for (attribute, attr, function) in attrs {
            let (result, id) = declaration(&source, &attr, attribute, function, target);
            let what = match attribute {
                Attribute::Delegate => "backend",
                Attribute::Kernel => "kernel",
            };
            // One declaration per backend (kernel), whether or not this one is otherwise valid.
            if let Some(id) = id {
                let here = origin(&source, attr.span());
                let mine = || seen.iter().filter(|(a, _, _)| *a == attribute);
                if let Some((_, _, first)) = mine().find(|(_, b, _)| *b == id) {
                    problems.push(
                        at(
                            &source,
                            attr.span(),
                            format!("{what} `{id}` is declared twice"),
                        )
                        .with_help(format!("the first declaration is at {first}; keep one")),
                    );
                    continue;
                }
                // Each declared backend (kernel) gets a module in the generated plan, named
                // after it, and a C symbol (`ap_backend_<id>`, `ap_kernel_<op>`).
                let module = backend_module(&id);
                let symbol = arenaplan_syntax::names::c_ident(&id);
                if let Some((_, other, first)) = mine().find(|(_, b, _)| {
                    backend_module(b) == module || arenaplan_syntax::names::c_ident(b) == symbol
                }) {
                    let clash = if backend_module(other) == module {
                        format!("`{module}` in the generated plan")
                    } else {
                        format!("C symbol `ap_{what}_{symbol}`")
                    };
                    problems.push(
                        at(
                            &source,
                            attr.span(),
                            format!("{what}s `{other}` and `{id}` would both be {clash}"),
                        )
                        .with_help(format!(
                            "`{other}` is declared at {first}; rename one of them"
                        )),
                    );
                    continue;
                }
                seen.push((attribute, id, here));
            }
            match result {
                Ok(f) => found.push(f),
                Err(mut d) => problems.append(&mut d),
            }
        }
    }
    if problems.is_empty() {
        Ok(found)
    } else {
        Err(problems)
    }
}

/// Every `.rs` file under `dir`, sorted (so the scan order, and any message, is stable).
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            // Not following links to folders: a link back up would never end.
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The `#[delegate]` and `#[kernel]` attributes of `items`, each with whether its item is a
/// function taking one argument (a Rust backend's signature).
fn collect(items: &[syn::Item], out: &mut Vec<(Attribute, syn::Attribute, bool)>) {
    for item in items {
        // A backend written in Rust takes its call (`fn(&mut Call<'_>) -> Result`); a stub
        // `fn x() {}` in a C integrator's declaration file declares a C backend's scratch.
        let function = matches!(item, syn::Item::Fn(f) if f.sig.inputs.len() == 1);
        let attrs: &[syn::Attribute] = match item {
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Enum(e) => &e.attrs,
            syn::Item::Mod(m) => {
                if let Some((_, inner)) = &m.content {
                    collect(inner, out);
                }
                &m.attrs
            }
            _ => &[],
        };
        out.extend(attrs.iter().filter_map(|a| {
            let last = a.path().segments.last()?;
            let attribute = if last.ident == "delegate" {
                Attribute::Delegate
            } else if last.ident == "kernel" {
                Attribute::Kernel
            } else {
                return None;
            };
            Some((attribute, a.clone(), function))
        }));
    }
}

fn at(source: &SourceText, span: proc_macro2::Span, message: impl Into<String>) -> Diagnostic {
    let start = span.start();
    let mut d = Diagnostic::at(source, 0, message);
    d.line = start.line;
    d.column = start.column + 1;
    d
}

fn origin(source: &SourceText, span: proc_macro2::Span) -> Origin {
    let start = span.start();
    Origin::File {
        path: source.path.clone(),
        line: start.line,
        column: start.column + 1,
    }
}

/// The declaration an attribute makes (or every problem with it), and its backend id (kernel
/// operator) if it names one.
fn declaration(
    source: &SourceText,
    attr: &syn::Attribute,
    attribute: Attribute,
    function: bool,
    target: &Target,
) -> (Result<Found, Vec<Diagnostic>>, Option<String>) {
    let errors = |e: syn::Error| {
        e.into_iter()
            .map(|e| at(source, e.span(), e.to_string()))
            .collect::<Vec<_>>()
    };
    let tokens = match &attr.meta {
        syn::Meta::List(list) => list.tokens.clone(),
        other => {
            let message = match attribute {
                Attribute::Delegate => "#[delegate] needs arguments: backend, scratch, mem_id",
                Attribute::Kernel => {
                    "#[kernel] needs arguments: op, and scratch with mem_id if it needs scratch"
                }
            };
            return (Err(vec![at(source, other.span(), message)]), None);
        }
    };
    // As in the macro: parse and check problems together.
    let (args, parse_errors) = parse_args_partial(tokens, attribute);
    let backend = args.id.as_ref().map(|b| b.0.clone());
    let blob = matches!(args.scratch, Some(Scratch::Blob(_)));
    // Sizes the build script cannot evaluate are reported along with the checks' findings.
    let mut problems: Vec<Diagnostic> = parse_errors.map(errors).unwrap_or_default();
    if let Some(Scratch::Sizes { sizes, .. }) = &args.scratch {
        for size in sizes.iter().filter(|s| s.value.is_none()) {
            problems.push(
                at(
                    source,
                    size.span(),
                    "the build script cannot evaluate this size",
                )
                .with_help(
                    "write it as an integer literal or arithmetic on literals, e.g. 4 * 1024",
                ),
            );
        }
    }
    let checked = match check_delegate(args, Some(target), attr.span()) {
        Ok(c) => c,
        Err(e) => {
            let mut all = errors(e);
            all.append(&mut problems);
            all.sort_by_key(|d| (d.line, d.column));
            return (Err(all), backend);
        }
    };
    if !problems.is_empty() {
        return (Err(problems), backend);
    }
    let where_ = origin(source, attr.span());
    let pools: Vec<PoolChoice> = checked
        .specs
        .iter()
        .map(|s| PoolChoice::Spec(s.name.clone()))
        .collect();
    let specs = || -> Vec<ScratchSpec> {
        checked
            .scratch
            .as_deref()
            .unwrap_or_default()
            .iter()
            .zip(pools.clone())
            .enumerate()
            .map(|(i, (size, pool))| ScratchSpec {
                size: size
                    .value
                    .map_or(0, |v| i64::try_from(v).unwrap_or(i64::MAX)),
                pool,
                label: Some(format!("scratch{i}")),
                origin: origin(source, size.span()),
                role: None,
            })
            .collect()
    };
    let declaration = match attribute {
        Attribute::Kernel => Declaration::Kernel(KernelScratch {
            op: checked.id.clone(),
            scratch: specs(),
        }),
        Attribute::Delegate => Declaration::Backend(BackendScratch {
            backend: checked.id.clone(),
            scratch: if blob {
                DeclaredScratch::Blob {
                    pools: pools.clone(),
                    origin: where_.clone(),
                }
            } else {
                DeclaredScratch::Sizes(specs())
            },
            rust: function,
        }),
    };
    (
        Ok(Found {
            declaration,
            origin: where_,
        }),
        backend,
    )
}
