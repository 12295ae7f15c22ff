//! Byte sizes as people write them: `2097152`, `0x200000`, `"2 MiB"`, `"512 KiB"`.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;

/// A size in bytes, read from an integer or a string with an optional binary unit.
///
/// ```
/// use arenaplan_syntax::targets::ByteSize;
/// assert_eq!("2 MiB".parse::<ByteSize>().unwrap().0, 2 * 1024 * 1024);
/// assert_eq!("0x200000".parse::<ByteSize>().unwrap().0, 0x200000);
/// assert_eq!("512KiB".parse::<ByteSize>().unwrap().0, 512 * 1024);
/// assert!("2 MB".parse::<ByteSize>().is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ByteSize(pub u64);

const UNITS: [(&str, u64); 5] = [
    ("B", 1),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
];

impl std::str::FromStr for ByteSize {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let s = s.trim();
        if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            return u64::from_str_radix(&hex.replace('_', ""), 16)
                .map(ByteSize)
                .map_err(|_| bad(s));
        }
        let digits_end = s
            .find(|c: char| !(c.is_ascii_digit() || c == '_'))
            .unwrap_or(s.len());
        let number: u64 = s[..digits_end]
            .replace('_', "")
            .parse()
            .map_err(|_| bad(s))?;
        let unit = s[digits_end..].trim();
        let factor = if unit.is_empty() {
            1
        } else {
            UNITS
                .iter()
                .find(|(name, _)| *name == unit)
                .map(|&(_, f)| f)
                .ok_or_else(|| bad(s))?
        };
        number
            .checked_mul(factor)
            .map(ByteSize)
            .ok_or_else(|| format!("`{s}` is too large"))
    }
}

fn bad(s: &str) -> String {
    format!("`{s}` is not a size: write bytes (2097152), hex (0x200000) or a number with B, KiB, MiB or GiB (\"2 MiB\")")
}

impl<'de> Deserialize<'de> for ByteSize {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = ByteSize;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a size: an integer, or a string such as \"2 MiB\" or \"0x200000\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<ByteSize, E> {
                u64::try_from(v)
                    .map(ByteSize)
                    .map_err(|_| E::custom("a size cannot be negative"))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<ByteSize, E> {
                Ok(ByteSize(v))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<ByteSize, E> {
                v.parse().map_err(E::custom)
            }
        }
        d.deserialize_any(V)
    }
}
