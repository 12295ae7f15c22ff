//! The one place names become generated code. A name from a model or a target reaches a
//! generated file in exactly one of these ways:
//!
//! - as an **identifier** (pool names, scratch labels, backend ids, the output's base name):
//!   mapped by [`ident`] / [`upper_ident`], and checked for collisions with [`distinct`] where two
//!   different names could map to the same identifier; target-file names already follow the
//!   grammar of [`arenaplan_syntax::names`], checked when the file was read;
//! - inside a **string literal**: [`c_string`], [`ld_string`] (Rust literals are
//!   `quote!` tokens, escaped by construction);
//! - inside a **comment**: [`comment`] (safe in `/* */` and `//` comments of C, Rust and linker
//!   scripts);
//! - inside **XML** (the SVG): [`xml`];
//! - in **text for a terminal or a report** (messages, `inspect`, `NAME.report.txt`, cargo's
//!   build output): [`display`], applied where the text leaves arenaplan.
//!
//! Emitters never write a model's or target's string any other way; `tests/hostile_names.rs`
//! puts hostile names in every field and checks the generated files.
//!
//! ```
//! use arenaplan_build::names::{c_string, comment, ident};
//! assert_eq!(c_string("a\"b"), r#""a\"b""#);
//! assert_eq!(comment("x */ int y; /*"), "x * / int y; / *");
//! assert_eq!(ident("my-pool.2"), "my_pool_2");
//! ```

/// `name` as a lower-case C and Rust identifier: letters and digits kept (lower-cased), every
/// other character `_`; a leading digit or an empty name gets a leading `_`; a C or Rust keyword
/// gets a trailing `_`.
pub fn ident(name: &str) -> String {
    arenaplan_syntax::names::c_ident(name)
}

/// The longest [`base_name`]: with the longest pool name (64 bytes) it still gives file names
/// within the 255 bytes file systems allow.
pub const MAX_BASE_NAME_BYTES: usize = 128;

/// The base name of a model's generated files and the prefix of its C symbols: `name` as an
/// [`ident`], refused when the files would stand in for others — a C standard header
/// (`stdint.h` on the include path would shadow the system's) or another model's tables (`m`
/// writes `m_program.h`, so no name may end in `_program`).
///
/// ```
/// use arenaplan_build::names::base_name;
/// assert_eq!(base_name("kws-ref").unwrap(), "kws_ref");
/// assert!(base_name("stdint").is_err());
/// assert!(base_name("m_program").is_err());
/// ```
pub fn base_name(name: &str) -> Result<String, String> {
    const C_HEADERS: &[&str] = &[
        "assert",
        "complex",
        "ctype",
        "errno",
        "fenv",
        "float",
        "inttypes",
        "iso646",
        "limits",
        "locale",
        "math",
        "setjmp",
        "signal",
        "stdalign",
        "stdarg",
        "stdatomic",
        "stdbool",
        "stddef",
        "stdint",
        "stdio",
        "stdlib",
        "stdnoreturn",
        "string",
        "tgmath",
        "threads",
        "time",
        "uchar",
        "wchar",
        "wctype",
    ];
    let base = ident(name);
    if C_HEADERS.contains(&base.as_str()) {
        return Err(format!(
            "the output name `{base}` would make `{base}.h`, which shadows the C standard header <{base}.h>; give another name"
        ));
    }
    if base.len() > MAX_BASE_NAME_BYTES {
        return Err(format!(
            "the output name is {} bytes long; the generated files are named after it (`NAME.<pool>.ld` must fit a file system's 255-byte file names), so it may be at most {MAX_BASE_NAME_BYTES} bytes: give a shorter name",
            base.len()
        ));
    }
    if base.ends_with("_program") {
        return Err(format!(
            "the output name `{base}` ends in `_program`, which names another model's tables; give another name"
        ));
    }
    Ok(base)
}

/// `name` as an upper-case identifier ([`ident`], upper-cased).
pub fn upper_ident(name: &str) -> String {
    ident(name).to_ascii_uppercase()
}

/// Checks that names map to distinct identifiers: `Err((a, b, ident))` names the first two that
/// collide (e.g. `a-b` and `a_b`, or the same name twice).
pub fn distinct<'a>(
    names: impl IntoIterator<Item = &'a str>,
    map: impl Fn(&str) -> String,
) -> Result<(), (String, String, String)> {
    let mut seen: Vec<(&str, String)> = Vec::new();
    for name in names {
        let id = map(name);
        if let Some((other, _)) = seen.iter().find(|(_, i)| *i == id) {
            return Err(((*other).to_owned(), name.to_owned(), id));
        }
        seen.push((name, id));
    }
    Ok(())
}

/// A C string literal (quotes included) holding `s`: `"` and `\` escaped, `?` escaped (no
/// trigraph can form), anything outside printable ASCII as a three-digit octal escape (which,
/// unlike `\x`, cannot swallow the characters after it).
pub fn c_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for &b in s.as_bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'?' => out.push_str("\\?"),
            0x20..=0x7E => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    out
}

/// `s` for a linker-script string (which has no escapes): characters other than letters,
/// digits and ` _.,:;()-+=/` become `?`.
pub fn ld_string(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || " _.,:;()-+=/".contains(c) {
                c
            } else {
                '?'
            }
        })
        .collect()
}

/// `s` as text inside a comment of C, Rust or a linker script: printable ASCII only (anything
/// else `?`, so no line break can end a `//` comment), and no `*/` or `/*` (which would end a
/// `/* */` comment or open a nested one).
pub fn comment(s: &str) -> String {
    let printable: String = s
        .chars()
        .map(|c| if (' '..='~').contains(&c) { c } else { '?' })
        .collect();
    printable.replace("*/", "* /").replace("/*", "/ *")
}

/// `s` as XML character data or an attribute value: `& < > " '` as entities, characters XML 1.0
/// does not allow as `?`.
pub fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('?'),
            c => out.push(c),
        }
    }
    out
}

/// `text` safe to show on a terminal or in a report: line breaks and tabs stay; every other
/// control character (ESC sequences, carriage returns, NUL) and every invisible formatting
/// character that can reorder or hide text (bidi overrides and isolates such as U+202E,
/// zero-width characters, line separators) is shown escaped as `\u{…}`, so a model's names
/// can neither drive the terminal nor make a line read differently from what it holds.
///
/// ```
/// use arenaplan_build::names::display;
/// assert_eq!(display("conv\u{1b}[2J"), "conv\\u{1b}[2J");
/// assert_eq!(display("abc\u{202e}fed"), "abc\\u{202e}fed");
/// assert_eq!(display("line 1\nline 2 \"é\""), "line 1\nline 2 \"é\"");
/// ```
pub fn display(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c != '\n' && c != '\t' && (c.is_control() || is_invisible_format(c)) {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// Unicode format characters that change how text around them is shown while showing nothing
/// themselves: bidi marks, embeddings, overrides and isolates; zero-width spaces and joiners;
/// line and paragraph separators; the byte-order mark; interlinear annotation marks.
fn is_invisible_format(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{2069}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_escapes_what_a_terminal_would_act_on() {
        for c in [
            '\u{1b}', '\r', '\0', '\u{7f}', '\u{85}', '\u{202e}', '\u{2066}', '\u{200b}',
            '\u{feff}',
        ] {
            let shown = display(&format!("a{c}b"));
            assert!(!shown.contains(c), "{c:?}: {shown}");
            assert!(shown.starts_with("a\\u{"), "{shown}");
        }
        assert_eq!(display("tab\there\nnext"), "tab\there\nnext");
        assert_eq!(display("中文 ünïcode"), "中文 ünïcode");
    }

    #[test]
    fn identifiers_avoid_keywords_and_digits() {
        assert_eq!(ident("type"), "type_");
        assert_eq!(ident("2x"), "_2x");
        // `_` alone is no identifier in Rust.
        assert_eq!(ident(""), "__");
        assert_eq!(ident("_"), "__");
        assert_eq!(upper_ident("a-b"), "A_B");
    }

    #[test]
    fn collisions_name_both() {
        let e = distinct(["a_b", "c", "a-b"], upper_ident).unwrap_err();
        assert_eq!(e, ("a_b".into(), "a-b".into(), "A_B".into()));
        assert!(distinct(["a", "a"], upper_ident).is_err());
        assert!(distinct(["a", "b"], upper_ident).is_ok());
    }

    #[test]
    fn literals_and_comments_cannot_be_left() {
        assert_eq!(c_string("\"};int x;//??/"), r#""\"};int x;//\?\?/""#);
        assert_eq!(c_string("\u{1}é"), r#""\001\303\251""#);
        assert_eq!(ld_string("a\"b\n"), "a?b?");
        assert_eq!(comment("a\nb*/c/*"), "a?b* /c/ *");
        assert_eq!(xml("<a x='1'>&\u{1}"), "&lt;a x=&apos;1&apos;&gt;&amp;?");
    }
}
