//! How a parameter layout is defined once and used twice: [`layouts!`] turns each layout of
//! `layouts.rs` into a Rust struct, which a lowering fills by field name and turns into the
//! constant's int32 words ([`Params::words`]), and into the [`Layout`] the C header
//! `arenaplan/tflite_params.h` is rendered from. A field set twice, misspelt or left out is a
//! compile error, and a field's position comes from the one definition, never from a
//! positional list kept in step with the header by hand.

/// A type a layout's field can have: its C declaration and its int32 words, in C's order.
pub(super) trait Field {
    /// The C declaration of a field `name` of this type (`int32_t name`, `int32_t name[5][3]`).
    fn c_declaration(name: &str) -> String;
    /// Appends its words, as the C struct lays them out (every field 32 bits, no padding).
    fn push_words(&self, words: &mut Vec<i32>);
    /// Reads it back from the next words, as the C kernel reads them (`None` when they run
    /// out): how the build checks a parameter block a model wrote itself.
    fn read_words(words: &mut std::slice::Iter<'_, i32>) -> Option<Self>
    where
        Self: Sized;
}

impl Field for i32 {
    fn c_declaration(name: &str) -> String {
        format!("int32_t {name}")
    }
    fn push_words(&self, words: &mut Vec<i32>) {
        words.push(*self);
    }
    fn read_words(words: &mut std::slice::Iter<'_, i32>) -> Option<Self> {
        words.next().copied()
    }
}

/// A `uint32_t` field: its bits, as the kernel reads them.
impl Field for u32 {
    fn c_declaration(name: &str) -> String {
        format!("uint32_t {name}")
    }
    fn push_words(&self, words: &mut Vec<i32>) {
        words.push(*self as i32);
    }
    fn read_words(words: &mut std::slice::Iter<'_, i32>) -> Option<Self> {
        words.next().map(|&w| w as u32)
    }
}

/// A fixed array: `[[i32; 3]; 5]` is C's `int32_t name[5][3]`, outer extent first.
impl<T: Field, const N: usize> Field for [T; N] {
    fn c_declaration(name: &str) -> String {
        T::c_declaration(&format!("{name}[{N}]"))
    }
    fn push_words(&self, words: &mut Vec<i32>) {
        for x in self {
            x.push_words(words);
        }
    }
    fn read_words(words: &mut std::slice::Iter<'_, i32>) -> Option<Self> {
        let items: Vec<T> = (0..N)
            .map(|_| T::read_words(words))
            .collect::<Option<_>>()?;
        items.try_into().ok()
    }
}

/// A parameter layout's words: the constant a kernel reads last among its inputs.
pub(super) trait Params {
    /// The fields' words, in order.
    fn words(&self) -> Vec<i32>;
}

impl<T: Field> Params for T {
    fn words(&self) -> Vec<i32> {
        let mut words = Vec::new();
        self.push_words(&mut words);
        words
    }
}

/// Reads layout `T` from the start of `words`: its fields and the words after them (a
/// layout's variable part), or `None` when there are fewer words than fields.
pub(super) fn read_params<T: Field>(words: &[i32]) -> Option<(T, &[i32])> {
    let mut iter = words.iter();
    let fixed = T::read_words(&mut iter)?;
    Some((fixed, iter.as_slice()))
}

/// One layout as the C header declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Layout {
    /// The struct's tag; its typedef adds `_t`.
    pub(super) c_name: &'static str,
    /// The comment above it, one line each (what reads it, what follows it in the constant).
    pub(super) about: Vec<&'static str>,
    /// Its fields, in order.
    pub(super) fields: Vec<FieldDecl>,
}

/// One field as the C header declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct FieldDecl {
    /// Its C declaration, without the `;`.
    pub(super) declaration: String,
    /// The comment beside it, empty for none.
    pub(super) comment: &'static str,
}

/// Trims the space `///` leaves before a doc line.
pub(super) fn doc_line(line: &'static str) -> &'static str {
    line.strip_prefix(' ').unwrap_or(line)
}

/// Defines each layout as a struct of its fields (the doc comments become the header's
/// comments: the struct's above it, a field's beside it), and `all()`, every layout in the
/// header's order.
macro_rules! layouts {
    ($(
        $(#[doc = $about:literal])*
        $name:ident = $c_name:literal {
            $( $(#[doc = $comment:literal])* $field:ident : $ty:ty ),* $(,)?
        }
    )*) => {
        $(
            $(#[doc = $about])*
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            pub(super) struct $name {
                $( $(#[doc = $comment])* pub(super) $field: $ty, )*
            }

            impl $crate::kernels::tflite::layout::Field for $name {
                fn c_declaration(name: &str) -> String {
                    format!("{}_t {name}", $c_name)
                }
                fn push_words(&self, words: &mut Vec<i32>) {
                    $( $crate::kernels::tflite::layout::Field::push_words(&self.$field, words); )*
                }
                fn read_words(words: &mut std::slice::Iter<'_, i32>) -> Option<Self> {
                    Some($name {
                        $( $field: <$ty as $crate::kernels::tflite::layout::Field>::read_words(words)?, )*
                    })
                }
            }

            impl $name {
                /// Its C declaration.
                #[allow(dead_code)]
                pub(super) fn layout() -> $crate::kernels::tflite::layout::Layout {
                    use $crate::kernels::tflite::layout::{doc_line, Field, FieldDecl, Layout};
                    Layout {
                        c_name: $c_name,
                        about: vec![$(doc_line($about)),*],
                        fields: vec![$(FieldDecl {
                            declaration: <$ty as Field>::c_declaration(stringify!($field)),
                            comment: concat!($($comment),*).trim(),
                        }),*],
                    }
                }
            }
        )*

        /// Every layout, in the header's order.
        pub(super) fn all() -> Vec<$crate::kernels::tflite::layout::Layout> {
            vec![$($name::layout()),*]
        }
    };
}

pub(super) use layouts;

#[cfg(test)]
mod tests {
    use super::*;

    layouts! {
        /// A test layout.
        Inner = "ap_test_inner" {
            /// one
            a: i32,
            b: u32,
        }

        /// Another.
        Outer = "ap_test_outer" {
            dims: [[i32; 3]; 2],
            inner: Inner,
            /// last
            z: i32,
        }
    }

    #[test]
    fn words_follow_the_declaration_order_and_c_lays_arrays_out_outer_first() {
        let outer = Outer {
            dims: [[1, 2, 3], [4, 5, 6]],
            inner: Inner { a: 7, b: u32::MAX },
            z: 9,
        };
        assert_eq!(outer.words(), [1, 2, 3, 4, 5, 6, 7, -1, 9]);
        // Read back as the kernel reads it, the words after it left over; too few: none.
        let mut words = outer.words();
        words.push(10);
        assert_eq!(read_params::<Outer>(&words), Some((outer, &[10][..])));
        assert_eq!(read_params::<Outer>(&words[..8]), None);
        let layout = Outer::layout();
        let decls: Vec<&str> = layout.fields.iter().map(|f| &*f.declaration).collect();
        assert_eq!(
            decls,
            ["int32_t dims[2][3]", "ap_test_inner_t inner", "int32_t z"]
        );
        assert_eq!(layout.fields[2].comment, "last");
        assert_eq!(layout.about, ["Another."]);
        assert_eq!(all().len(), 2);
        assert_eq!(Inner::layout().fields[1].comment, "");
    }
}
