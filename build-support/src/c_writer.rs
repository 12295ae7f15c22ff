//! The one writer of generated C (and of linker scripts, which share C's comment syntax). It
//! owns indentation, include guards, `extern "C"` wrappers, arrays and the escaping of
//! everything that comes from a model or target: text reaches a comment only through
//! [`CWriter::comment`] and a string literal only through [`CWriter::string`], so no name can
//! end a comment or a literal and change what the file means.

use std::fmt::Display;

use crate::names::{c_string, comment};

/// Generated C text, built line by line.
pub(crate) struct CWriter {
    out: String,
    indent: usize,
}

impl CWriter {
    /// A file starting with the `@generated` banner as a comment.
    pub(crate) fn new(banner: &str) -> Self {
        let mut w = CWriter {
            out: String::new(),
            indent: 0,
        };
        w.comment(banner);
        w
    }

    /// A file with no banner (a header of the runtime's own, written by its own comment).
    pub(crate) fn without_banner() -> Self {
        CWriter {
            out: String::new(),
            indent: 0,
        }
    }

    /// One line at the current indentation. `text` must be made of generated tokens and of
    /// values passed through [`CWriter::string`].
    pub(crate) fn line(&mut self, text: impl Display) -> &mut Self {
        let text = text.to_string();
        if !text.is_empty() {
            for _ in 0..self.indent {
                self.out.push_str("    ");
            }
        }
        self.out.push_str(&text);
        self.out.push('\n');
        self
    }

    /// An empty line.
    pub(crate) fn blank(&mut self) -> &mut Self {
        self.line("")
    }

    /// `/* text */`, with `text` made safe for a comment.
    pub(crate) fn comment(&mut self, text: &str) -> &mut Self {
        self.line(format!("/* {} */", comment(text)))
    }

    /// `text` as a C string literal (quotes included).
    pub(crate) fn string(text: &str) -> String {
        c_string(text)
    }

    /// `#define NAME VALUE`.
    pub(crate) fn define(&mut self, name: &str, value: impl Display) -> &mut Self {
        self.line(format!("#define {name} {value}"))
    }

    /// `#define NAME Nu`: an unsigned constant.
    pub(crate) fn define_unsigned(&mut self, name: &str, value: impl Display) -> &mut Self {
        self.line(format!("#define {name} {value}u"))
    }

    /// `#include "file"` for a file name the generator chose.
    pub(crate) fn include(&mut self, file: &str) -> &mut Self {
        self.line(format!("#include \"{file}\""))
    }

    /// `body` inside `#ifndef guard` / `#define guard` ... `#endif /* guard */`.
    pub(crate) fn guarded(&mut self, guard: &str, body: impl FnOnce(&mut Self)) -> &mut Self {
        self.line(format!("#ifndef {guard}"));
        self.line(format!("#define {guard}"));
        body(self);
        self.line(format!("#endif /* {guard} */"))
    }

    /// `body` with C linkage when compiled as C++.
    pub(crate) fn extern_c(&mut self, body: impl FnOnce(&mut Self)) -> &mut Self {
        self.line("#ifdef __cplusplus")
            .line("extern \"C\" {")
            .line("#endif")
            .blank();
        body(self);
        self.blank()
            .line("#ifdef __cplusplus")
            .line("}")
            .line("#endif")
    }

    /// `head {`, `body` indented, then `}tail` (`tail` is `;` for an initializer).
    pub(crate) fn block(
        &mut self,
        head: impl Display,
        tail: &str,
        body: impl FnOnce(&mut Self),
    ) -> &mut Self {
        self.line(format!("{head} {{"));
        self.indent += 1;
        body(self);
        self.indent -= 1;
        self.line(format!("}}{tail}"))
    }

    /// `decl = {` one `entry,` per line `};`. ISO C has no empty initializer: with no entries
    /// it holds one zeroed entry, `{0}, /* none */` (the count beside it says 0).
    pub(crate) fn array(
        &mut self,
        decl: impl Display,
        entries: impl IntoIterator<Item = String>,
    ) -> &mut Self {
        self.annotated_array(decl, entries.into_iter().map(|e| (e, None)))
    }

    /// [`CWriter::array`] with a fixed note after some entries: `entry, /* note */`.
    pub(crate) fn annotated_array(
        &mut self,
        decl: impl Display,
        entries: impl IntoIterator<Item = (String, Option<&'static str>)>,
    ) -> &mut Self {
        self.block(format!("{decl} ="), ";", |w| {
            let mut any = false;
            for (entry, note) in entries {
                match note {
                    Some(note) => w.line(format!("{entry}, /* {note} */")),
                    None => w.line(format!("{entry},")),
                };
                any = true;
            }
            if !any {
                w.line("{0}, /* none */");
            }
        })
    }

    /// `decl = {a, b, c};` on one line; `{0u}` when empty (no empty initializer in ISO C).
    pub(crate) fn inline_array(
        &mut self,
        decl: impl Display,
        entries: impl IntoIterator<Item = String>,
        empty: &str,
    ) -> &mut Self {
        let entries: Vec<String> = entries.into_iter().collect();
        let list = if entries.is_empty() {
            empty.to_owned()
        } else {
            entries.join(", ")
        };
        self.line(format!("{decl} = {{{list}}};"))
    }

    /// The text.
    pub(crate) fn finish(self) -> String {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::CWriter;

    #[test]
    fn comments_and_strings_cannot_break_out() {
        let mut w = CWriter::new("model `*/ int x; /*`");
        w.line(format!(
            "const char *s = {};",
            CWriter::string("\"; int y; \"")
        ));
        let text = w.finish();
        assert_eq!(
            text,
            "/* model `* / int x; / *` */\nconst char *s = \"\\\"; int y; \\\"\";\n"
        );
    }

    #[test]
    fn blocks_indent_and_empty_arrays_stay_iso_c() {
        let mut w = CWriter::new("b");
        w.guarded("G_H", |w| {
            w.array("static const int a[1]", Vec::new());
        });
        assert_eq!(
            w.finish(),
            "/* b */\n#ifndef G_H\n#define G_H\nstatic const int a[1] = {\n    {0}, /* none */\n};\n#endif /* G_H */\n"
        );
    }
}
