//! The C++ signatures of ExecuTorch's kernels, as `scripts/make_et_signatures.py` wrote them
//! (`signatures.tsv`, from ExecuTorch's yaml and torch's schemas through ExecuTorch's own code
//! generator): one line per operator with the function, the file that defines it, its return
//! type and each argument's C++ type and name.

use std::sync::OnceLock;

/// One kernel's signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The operator as a program names it (`aten::add.out`).
    pub op: &'static str,
    /// The C++ function, qualified (`torch::executor::native::add_out`).
    pub function: &'static str,
    /// The file defining it, relative to ExecuTorch's source root.
    pub file: &'static str,
    /// The C++ return type.
    pub returns: &'static str,
    /// Each schema argument in order: its C++ type and its name.
    pub args: Vec<(&'static str, &'static str)>,
}

const TABLE: &str = include_str!("signatures.tsv");

/// Every signature of the table, in its order.
///
/// ```
/// let add = arenaplan_build::executorch::signature("aten::add.out").unwrap();
/// assert_eq!(add.function, "torch::executor::native::add_out");
/// assert_eq!(add.args.len(), 4);
/// ```
pub fn all() -> &'static [Signature] {
    static PARSED: OnceLock<Vec<Signature>> = OnceLock::new();
    PARSED.get_or_init(|| {
        TABLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .map(|l| parse(l).unwrap_or_else(|| panic!("signatures.tsv: malformed line {l:?}")))
            .collect()
    })
}

/// The signature of `op`, if ExecuTorch has a kernel for it.
pub fn signature(op: &str) -> Option<&'static Signature> {
    all().iter().find(|s| s.op == op)
}

fn parse(line: &'static str) -> Option<Signature> {
    let mut fields = line.split('\t');
    let op = fields.next()?;
    let function = fields.next()?;
    let file = fields.next()?;
    let returns = fields.next()?;
    let args = fields.next()?;
    if fields.next().is_some() {
        return None;
    }
    let args = if args.is_empty() {
        Vec::new()
    } else {
        args.split('|')
            .map(|a| a.rsplit_once(' '))
            .collect::<Option<Vec<_>>>()?
    };
    Some(Signature {
        op,
        function,
        file,
        returns,
        args,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_parses_and_names_one_operator_once() {
        let all = all();
        assert!(all.len() > 200, "{}", all.len());
        for (i, s) in all.iter().enumerate() {
            assert!(
                all[..i].iter().all(|o| o.op != s.op),
                "{} listed twice",
                s.op
            );
            assert!(s.file.ends_with(".cpp"), "{}", s.file);
            assert!(s.function.contains("::native::"), "{}", s.function);
        }
    }

    #[test]
    fn the_out_argument_comes_last() {
        let cat = signature("aten::cat.out").unwrap();
        assert_eq!(
            cat.args,
            [
                ("torch::executor::TensorList", "tensors"),
                ("int64_t", "dim"),
                ("torch::executor::Tensor &", "out")
            ]
        );
    }
}
