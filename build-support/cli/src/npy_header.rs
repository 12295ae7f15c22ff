//! The header of a `.npy` file: a Python literal dict, read as NumPy reads it
//! (`ast.literal_eval`, then `numpy.lib.format`'s checks), not searched for substrings.
//!
//! The literal grammar is the part of Python's that a header can hold: dicts, tuples, lists,
//! strings (single or double quoted, with backslash escapes), integers (a trailing `L`, as
//! Python 2's NumPy wrote, is accepted as NumPy's reader accepts it), `True`, `False`, `None`.
//! Then NumPy's rules: a dict whose keys are exactly `descr`, `fortran_order` and `shape`
//! (a key written twice: the last one wins, as in Python), `shape` a tuple of integers,
//! `fortran_order` a bool, `descr` a type string (a list is a structured type, not read here).
//! Nesting is bounded, so a hostile header cannot exhaust the stack.

/// What a header says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    /// The element type's string (`<f4`).
    pub(crate) descr: String,
    /// Whether the data is in Fortran order.
    pub(crate) fortran_order: bool,
    /// The dimensions.
    pub(crate) shape: Vec<u64>,
}

/// A Python literal.
#[derive(Clone, Debug, PartialEq)]
enum Literal {
    Str(String),
    Int(i128),
    Bool(bool),
    None,
    Tuple(Vec<Literal>),
    List(Vec<Literal>),
    Dict(Vec<(Literal, Literal)>),
}

impl Literal {
    /// What it is, for messages.
    fn kind(&self) -> &'static str {
        match self {
            Literal::Str(_) => "a string",
            Literal::Int(_) => "an integer",
            Literal::Bool(_) => "a bool",
            Literal::None => "None",
            Literal::Tuple(_) => "a tuple",
            Literal::List(_) => "a list",
            Literal::Dict(_) => "a dict",
        }
    }
}

/// How deep brackets may nest: a header needs 2 (the dict, the shape's tuple).
const MAX_DEPTH: usize = 16;

/// Reads a header's text; the message says what is wrong.
pub(crate) fn parse_header(text: &str) -> Result<Header, String> {
    let mut p = Parser { text, at: 0 };
    let value = p.value(0)?;
    p.skip_space();
    if p.at != text.len() {
        return Err(format!(
            "text after the header's dict (at byte {}): a header is one dict",
            p.at
        ));
    }
    let Literal::Dict(pairs) = value else {
        return Err(format!(
            "the header is {}, not a dict (write the file with numpy.save)",
            value.kind()
        ));
    };
    // Python's dict: a key written twice keeps its last value.
    let mut descr = None;
    let mut fortran = None;
    let mut shape = None;
    for (key, value) in pairs {
        let Literal::Str(key) = key else {
            return Err(format!("a key that is {}, not a string", key.kind()));
        };
        match key.as_str() {
            "descr" => descr = Some(value),
            "fortran_order" => fortran = Some(value),
            "shape" => shape = Some(value),
            other => {
                return Err(format!(
                    "key '{other}': NumPy's header has exactly 'descr', 'fortran_order' and 'shape'"
                ))
            }
        }
    }
    let missing = |key: &str| format!("no '{key}' in the header");
    let descr = match descr.ok_or_else(|| missing("descr"))? {
        Literal::Str(s) => s,
        Literal::List(_) => {
            return Err("a structured element type (a list of fields): save one plain array".into())
        }
        other => return Err(format!("'descr' is {}, not a type string", other.kind())),
    };
    let fortran_order = match fortran.ok_or_else(|| missing("fortran_order"))? {
        Literal::Bool(b) => b,
        other => {
            return Err(format!(
                "'fortran_order' is {}, not True or False",
                other.kind()
            ))
        }
    };
    let shape = match shape.ok_or_else(|| missing("shape"))? {
        Literal::Tuple(dims) => dims
            .into_iter()
            .map(|d| match d {
                Literal::Int(n) => u64::try_from(n).map_err(|_| format!("a dimension of {n}")),
                other => Err(format!("a dimension that is {}", other.kind())),
            })
            .collect::<Result<Vec<_>, _>>()?,
        other => {
            return Err(format!(
                "'shape' is {}, not a tuple (one dimension is written `(n,)`)",
                other.kind()
            ))
        }
    };
    Ok(Header {
        descr,
        fortran_order,
        shape,
    })
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.at..].chars().next()
    }

    fn skip_space(&mut self) {
        while let Some(c) = self
            .peek()
            .filter(|c| matches!(c, ' ' | '\t' | '\n' | '\r'))
        {
            self.at += c.len_utf8();
        }
    }

    fn error(&self, what: &str) -> String {
        format!("{what} at byte {} of the header", self.at)
    }

    fn value(&mut self, depth: usize) -> Result<Literal, String> {
        if depth > MAX_DEPTH {
            return Err(self.error(&format!("brackets nested more than {MAX_DEPTH} deep")));
        }
        self.skip_space();
        match self.peek() {
            Some('{') => self.dict(depth),
            Some('(') => self.tuple(depth),
            Some('[') => {
                self.at += 1;
                Ok(Literal::List(self.items(']', depth)?.0))
            }
            Some(q @ ('\'' | '"')) => self.string(q),
            Some(c) if c.is_ascii_digit() || c == '-' || c == '+' => self.int(),
            Some(c) if c.is_ascii_alphabetic() => self.word(),
            Some(c) => Err(self.error(&format!("`{c}`, which starts no Python literal"))),
            None => Err(self.error("the header ends where a value belongs")),
        }
    }

    /// Values up to `close`, comma-separated, a trailing comma allowed; and whether any comma
    /// was written (which makes `(x,)` a tuple).
    fn items(&mut self, close: char, depth: usize) -> Result<(Vec<Literal>, bool), String> {
        let mut items = Vec::new();
        let mut comma = false;
        loop {
            self.skip_space();
            if self.peek() == Some(close) {
                self.at += 1;
                return Ok((items, comma));
            }
            items.push(self.value(depth + 1)?);
            self.skip_space();
            match self.peek() {
                Some(',') => {
                    self.at += 1;
                    comma = true;
                }
                Some(c) if c == close => {}
                _ => return Err(self.error(&format!("no `,` or `{close}` after an item"))),
            }
        }
    }

    fn tuple(&mut self, depth: usize) -> Result<Literal, String> {
        self.at += 1;
        let (mut items, comma) = self.items(')', depth)?;
        // `(x)` is x itself; `()` and `(x,)` are tuples.
        Ok(if items.len() == 1 && !comma {
            items.remove(0)
        } else {
            Literal::Tuple(items)
        })
    }

    fn dict(&mut self, depth: usize) -> Result<Literal, String> {
        self.at += 1;
        let mut pairs = Vec::new();
        loop {
            self.skip_space();
            if self.peek() == Some('}') {
                self.at += 1;
                return Ok(Literal::Dict(pairs));
            }
            let key = self.value(depth + 1)?;
            self.skip_space();
            if self.peek() != Some(':') {
                return Err(self.error("no `:` after a key"));
            }
            self.at += 1;
            let value = self.value(depth + 1)?;
            pairs.push((key, value));
            self.skip_space();
            match self.peek() {
                Some(',') => self.at += 1,
                Some('}') => {}
                _ => return Err(self.error("no `,` or `}` after a value")),
            }
        }
    }

    fn string(&mut self, quote: char) -> Result<Literal, String> {
        self.at += 1;
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.error("a string without its closing quote"));
            };
            self.at += c.len_utf8();
            match c {
                c if c == quote => return Ok(Literal::Str(out)),
                '\n' => return Err(self.error("a line break inside a string")),
                '\\' => {
                    let Some(e) = self.peek() else {
                        return Err(self.error("a string without its closing quote"));
                    };
                    self.at += e.len_utf8();
                    out.push(match e {
                        '\\' | '\'' | '"' => e,
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        '0' => '\0',
                        'x' => {
                            let hex = self.text.get(self.at..self.at + 2).unwrap_or("");
                            let byte = u8::from_str_radix(hex, 16)
                                .map_err(|_| self.error("a `\\x` escape without two hex digits"))?;
                            self.at += 2;
                            char::from(byte)
                        }
                        other => {
                            return Err(self.error(&format!(
                                "the escape `\\{other}`, which no NumPy header holds"
                            )))
                        }
                    });
                }
                c => out.push(c),
            }
        }
    }

    fn int(&mut self) -> Result<Literal, String> {
        let start = self.at;
        if matches!(self.peek(), Some('-' | '+')) {
            self.at += 1;
        }
        let digits_at = self.at;
        while let Some(c) = self.peek().filter(|c| c.is_ascii_digit() || *c == '_') {
            self.at += c.len_utf8();
        }
        let digits: String = self.text[digits_at..self.at].replace('_', "");
        // Python 2's long integers (`3L`), which NumPy's reader strips from old headers.
        if matches!(self.peek(), Some('L' | 'l')) {
            self.at += 1;
        }
        if digits.is_empty() || self.text[digits_at..].starts_with('_') {
            return Err(self.error("a number without digits"));
        }
        if matches!(self.peek(), Some('.' | 'e' | 'E' | 'j')) {
            return Err(self.error("a number that is not an integer"));
        }
        let negative = self.text[start..].starts_with('-');
        let value: i128 = digits
            .parse()
            .map_err(|_| self.error("an integer too large"))?;
        Ok(Literal::Int(if negative { -value } else { value }))
    }

    fn word(&mut self) -> Result<Literal, String> {
        let start = self.at;
        while let Some(c) = self
            .peek()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
        {
            self.at += c.len_utf8();
        }
        match &self.text[start..self.at] {
            "True" => Ok(Literal::Bool(true)),
            "False" => Ok(Literal::Bool(false)),
            "None" => Ok(Literal::None),
            w => Err(format!(
                "`{w}` at byte {start} of the header: only literals (strings, numbers, True, False, None) are read"
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(descr: &str, fortran: bool, shape: &[u64]) -> Header {
        Header {
            descr: descr.into(),
            fortran_order: fortran,
            shape: shape.to_vec(),
        }
    }

    #[test]
    fn numpys_own_headers_are_read() {
        // As numpy.save writes them, padded with spaces and a newline.
        let text = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 49, 10), }          \n";
        assert_eq!(
            parse_header(text).unwrap(),
            header("<f4", false, &[1, 49, 10])
        );
        assert_eq!(
            parse_header("{'descr': '|i1', 'fortran_order': False, 'shape': (4,), }").unwrap(),
            header("|i1", false, &[4])
        );
        assert_eq!(
            parse_header("{'descr': '<f8', 'fortran_order': False, 'shape': (), }").unwrap(),
            header("<f8", false, &[])
        );
        // Double quotes, other key orders, Python 2's longs, no trailing comma.
        assert_eq!(
            parse_header("{\"shape\": (2L, 3L), \"fortran_order\": True, \"descr\": \"<i2\"}")
                .unwrap(),
            header("<i2", true, &[2, 3])
        );
    }

    #[test]
    fn a_key_inside_a_string_is_no_key() {
        // The substring search took this `'descr'` for the key: the real one is an object.
        let text =
            "{'fortran_order': False, 'shape': (2,), 'descr': '|O', 'x': \"'descr': '<f4'\"}";
        assert!(parse_header(text).unwrap_err().contains("key 'x'"));
        let text = "{'fortran_order': False, 'shape': (2,), 'descr': \"'descr': '<f4'\"}";
        assert_eq!(parse_header(text).unwrap().descr, "'descr': '<f4'");
    }

    #[test]
    fn a_key_written_twice_keeps_its_last_value() {
        let text = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'descr': '<i4'}";
        assert_eq!(parse_header(text).unwrap().descr, "<i4");
    }

    #[test]
    fn what_is_not_a_header_dict_is_refused() {
        let refused = [
            (
                "'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
                "text after",
            ),
            ("('<f4', False, (2,))", "not a dict"),
            ("{'descr': '<f4', 'fortran_order': False}", "no 'shape'"),
            (
                "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",
                "not True or False",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2)}",
                "not a tuple",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}",
                "not a tuple",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,)}",
                "a dimension of -2",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}",
                "not an integer",
            ),
            (
                "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
                "structured",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} x",
                "text after",
            ),
            (
                "{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}",
                "no `,` or `}`",
            ),
            (
                "{'descr' '<f4', 'fortran_order': False, 'shape': (2,)}",
                "no `:`",
            ),
            (
                "{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}",
                "`false`",
            ),
            (
                "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 3: 1}",
                "not a string",
            ),
            (
                "{'descr': '<f\\q4', 'fortran_order': False, 'shape': (2,)}",
                "escape",
            ),
            ("{'descr': '<f4'", "no `,` or `}`"),
            ("", "ends where a value belongs"),
        ];
        for (text, why) in refused {
            let e = parse_header(text).unwrap_err();
            assert!(e.contains(why), "{text}: {e}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_without_recursing_further() {
        let text = format!("{}{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(parse_header(&text).unwrap_err().contains("nested"));
    }
}
