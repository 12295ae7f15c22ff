//! The grammar of names that reach generated code from a target file, checked when the file is
//! read. Generated C, Rust and linker scripts use these names as identifiers, section names and
//! memory regions, unquoted; the grammar is what keeps a name from changing their meaning. Names
//! from models (tensors, delegates, operators, backends) follow no grammar: the emitters escape
//! them for the language they land in.
//!
//! | what | grammar | example |
//! |---|---|---|
//! | target name | `[a-z0-9][a-z0-9-]*`, at most 64 bytes | `corstone-300` |
//! | pool name, compile spec | `[a-z][a-z0-9]*(_[a-z0-9]+)*`, not a keyword, at most 64 bytes | `fast_sram` |
//! | linker section | `.arenaplan.` then `[A-Za-z0-9_.]+`, at most 64 bytes | `.arenaplan.sram` |
//! | blob section | `[A-Za-z0-9_.]+` starting with `.` or a letter, not under `.arenaplan`, `.bss`, `.tbss` or `.noinit`, at most 64 bytes | `.rodata.model`, `network_model_sec` |
//! | memory region | `[A-Za-z_][A-Za-z0-9_]*`, at most 64 bytes | `SRAM_SHARED` |
//!
//! ```
//! use arenaplan_syntax::names::{check, NameKind};
//! assert!(check(NameKind::Pool, "fast_sram").is_ok());
//! assert!(check(NameKind::Pool, "a-b").is_err());
//! assert!(check(NameKind::Section, ".arenaplan.sram").is_ok());
//! ```

/// Longest name accepted (bytes).
pub const MAX_LEN: usize = 64;

/// What every arena section name starts with.
pub const SECTION_PREFIX: &str = ".arenaplan.";

/// Which grammar a name follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    /// A target's name (C and Rust string constants, file comments).
    Target,
    /// A pool's name (C and Rust identifiers, file names, linker sections).
    Pool,
    /// A compile spec's name (`spec!(name)` in firmware).
    Spec,
    /// A linker input section (`#[link_section]`, `__attribute__((section))`, linker scripts).
    Section,
    /// A linker memory region (`> REGION` in linker scripts).
    Region,
    /// The input section delegate blobs are linked in (`.pushsection` in generated assembly,
    /// `__attribute__((section))`): loaded data the main linker script places, never a NOLOAD
    /// or zeroed section.
    BlobSection,
}

/// Section prefixes a blob may not take: the arenas' NOLOAD namespace, and sections a start-up
/// zeroes or leaves uninitialised (a blob there would be lost before the first inference).
const UNLOADED_PREFIXES: [&str; 4] = [".arenaplan", ".bss", ".tbss", ".noinit"];

impl NameKind {
    /// The grammar, as the error message states it.
    pub fn grammar(self) -> &'static str {
        match self {
            NameKind::Target => {
                "lower-case letters, digits and `-`, starting with a letter or digit"
            }
            NameKind::Pool | NameKind::Spec => {
                "lower-case letters, digits and single `_` between them, starting with a letter, not a C or Rust keyword"
            }
            NameKind::Section => "`.arenaplan.` followed by letters, digits, `_` and `.`",
            NameKind::Region => "letters, digits and `_`, not starting with a digit",
            NameKind::BlobSection => {
                "letters, digits, `_` and `.`, starting with `.` or a letter, not under `.arenaplan`, `.bss`, `.tbss` or `.noinit` (a loaded section, such as `.rodata.model`)"
            }
        }
    }
}

/// `Ok` when `name` follows the grammar of `kind`; otherwise what is wrong, ready for an error
/// message after the field's name.
pub fn check(kind: NameKind, name: &str) -> Result<(), String> {
    let bytes = name.as_bytes();
    let ok = !bytes.is_empty()
        && bytes.len() <= MAX_LEN
        && match kind {
            NameKind::Target => {
                (bytes[0].is_ascii_lowercase() || bytes[0].is_ascii_digit())
                    && bytes
                        .iter()
                        .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            }
            NameKind::Pool | NameKind::Spec => {
                // No `__`, no trailing `_` and no keyword: each name stays its own identifier
                // in C and Rust, and no two names map to one.
                bytes[0].is_ascii_lowercase()
                    && bytes
                        .iter()
                        .all(|&b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                    && !name.contains("__")
                    && !name.ends_with('_')
                    && !is_keyword(name)
            }
            NameKind::Section => {
                // Its own namespace: `.bss`, `.data` or `.text` would move the firmware's own
                // sections into a NOLOAD arena.
                name.len() > SECTION_PREFIX.len()
                    && name.starts_with(SECTION_PREFIX)
                    && bytes
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
            }
            NameKind::Region => {
                !bytes[0].is_ascii_digit()
                    && bytes
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b == b'_')
            }
            NameKind::BlobSection => {
                (bytes[0] == b'.' || bytes[0].is_ascii_alphabetic())
                    && bytes
                        .iter()
                        .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
                    && !UNLOADED_PREFIXES.iter().any(|p| {
                        name.strip_prefix(p)
                            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
                    })
            }
        };
    if ok {
        Ok(())
    } else if bytes.len() > MAX_LEN {
        Err(format!(
            "is {} bytes long; at most {MAX_LEN} are accepted",
            bytes.len()
        ))
    } else {
        Err(format!(
            "{name:?} is not a valid name: use {}",
            kind.grammar()
        ))
    }
}

/// Whether `s` is a Rust keyword (strict or reserved) or a C99 keyword: no generated identifier
/// may be one.
///
/// ```
/// assert!(arenaplan_syntax::names::is_keyword("type"));
/// assert!(!arenaplan_syntax::names::is_keyword("sram"));
/// ```
pub fn is_keyword(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum",
        "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move",
        "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
        "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do",
        "final", "gen", "macro", "override", "priv", "try", "typeof", "unsized", "virtual",
        "yield", "auto", "case", "char", "default", "double", "float", "goto", "inline", "int",
        "long", "register", "restrict", "short", "signed", "sizeof", "switch", "typedef", "union",
        "unsigned", "void", "volatile",
    ];
    WORDS.contains(&s)
}

/// `name` as the tail of a linker symbol, by a rule that is total and injective: two different
/// names never give one symbol, so two operators or backends can never bind to one function
/// (`my.relu` and `my_relu` once both became `ap_kernel_my_relu`). ASCII letters and digits
/// stay as they are; `_` becomes `__`; every other byte of the name's UTF-8 becomes `_` and
/// its two lower-case hex digits. (Decoding reads `_` then either `_` or two hex digits, so
/// no two names meet.) The one rule for the symbols a program's tables name and a crate's
/// `#[kernel]` and `#[delegate] fn` define: `ap_kernel_<op>`, `ap_backend_<id>`.
///
/// ```
/// use arenaplan_syntax::names::symbol;
/// assert_eq!(symbol("relu"), "relu");
/// assert_eq!(symbol("aten::add.out"), "aten_3a_3aadd_2eout");
/// assert_ne!(symbol("my.relu"), symbol("my_relu"));
/// assert_eq!(symbol("my_relu"), "my__relu");
/// ```
pub fn symbol(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for &b in name.as_bytes() {
        match b {
            b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' => out.push(b as char),
            b'_' => out.push_str("__"),
            _ => out.push_str(&format!("_{b:02x}")),
        }
    }
    out
}

/// The symbol of the `ap_kernel_t` that runs kernel `op`, as the build's tables name it and
/// `#[kernel]` and the shipped kernels define it: `ap_kernel_` and [`symbol`] of the op.
///
/// ```
/// assert_eq!(arenaplan_syntax::names::kernel_symbol("aten::add.out"), "ap_kernel_aten_3a_3aadd_2eout");
/// ```
pub fn kernel_symbol(op: &str) -> String {
    format!("ap_kernel_{}", symbol(op))
}

/// The symbol of the `ap_backend_t` of backend `id` written by the firmware (a `#[delegate]
/// fn`, or an integrator's C): `ap_backend_` and [`symbol`] of the id. (The runtime's own
/// backends have names of their own: the build's `backend_symbol`.)
///
/// ```
/// assert_eq!(arenaplan_syntax::names::backend_symbol("ConvIm2col"), "ap_backend_ConvIm2col");
/// ```
pub fn backend_symbol(id: &str) -> String {
    format!("ap_backend_{}", symbol(id))
}

/// `name` as a C and Rust identifier, readable rather than injective (callers that need
/// distinct identifiers check for clashes; symbols use [`symbol`]): ASCII letters and digits
/// lower-cased, anything else `_`, a leading digit or an empty name prefixed with `_`, a
/// keyword or all-underscore name suffixed with `_`.
///
/// ```
/// use arenaplan_syntax::names::c_ident;
/// assert_eq!(c_ident("ConvIm2col"), "convim2col");
/// assert_eq!(c_ident("npu-scratch"), "npu_scratch");
/// assert_eq!(c_ident("2d"), "_2d");
/// assert_eq!(c_ident("type"), "type_");
/// ```
pub fn c_ident(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    if is_keyword(&s) || s.chars().all(|c| c == '_') {
        s.push('_');
    }
    s
}

#[cfg(test)]
mod symbol_rule {
    use super::symbol;
    use proptest::prelude::*;

    /// The inverse of [`symbol`]: that it exists proves the rule injective.
    fn decode(s: &str) -> Option<String> {
        let b = s.as_bytes();
        let (mut out, mut i) = (Vec::new(), 0);
        while i < b.len() {
            match b[i] {
                b'_' if b.get(i + 1) == Some(&b'_') => {
                    out.push(b'_');
                    i += 2;
                }
                b'_' => {
                    let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
                    out.push(u8::from_str_radix(hex, 16).ok()?);
                    i += 3;
                }
                c => {
                    out.push(c);
                    i += 1;
                }
            }
        }
        String::from_utf8(out).ok()
    }

    proptest! {
        #[test]
        fn symbols_decode_back_to_their_names(name in any::<String>()) {
            let s = symbol(&name);
            prop_assert!(s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
            prop_assert_eq!(decode(&s), Some(name));
        }

        #[test]
        fn names_made_of_underscores_dots_and_colons_never_meet(
            a in "[a-z_.:]{0,8}", b in "[a-z_.:]{0,8}"
        ) {
            prop_assert_eq!(a == b, symbol(&a) == symbol(&b));
        }
    }

    #[test]
    fn the_clash_that_was() {
        assert_ne!(symbol("my.relu"), symbol("my_relu"));
    }
}
