//! Selective build by dtype: each kernel file compiled for the element types the program's
//! calls of its operators use, not for all twelve.
//!
//! ExecuTorch's kernels dispatch on dtype through `ET_SWITCH_*` macros, each case checked with
//! `should_include_kernel_dtype(name, dtype)` when `EXECUTORCH_SELECTIVE_BUILD_DTYPE` is on.
//! ExecuTorch's own generator writes that function as a `std::string_view` comparison that
//! GCC does not fold at `-Os`, so its selective build keeps every case (and, instantiating per
//! operator, grows). Here each kernel file is compiled through a generated *unit*
//! ([`render_unit`]): the selection for that file's operators as a comparison GCC folds
//! (`__builtin_strcmp` of two constants, always inlined), then the bridge's
//! `ap_et_selective.h` (ExecuTorch's check made non-returning, so an unselected case is dead
//! code), then the kernel file itself. Host runner and firmware compile the same units.
//!
//! Which dtypes ([`Dtypes::of`]): for every call of the operator, the dtypes of its tensors,
//! the promotions among them and with its scalar arguments (the type ExecuTorch computes
//! in: `int8 + uint8` computes in `int16`, an integer tensor with a float scalar in `float`),
//! and `float` where a tensor is half or bfloat16 (the portable kernels compute those in
//! float). A switch whose name is not one of the program's operators keeps every case. A case
//! the rule missed stops its call with ExecuTorch's "dtype not selected" (the runtime's
//! `AP_ERR_BACKEND`), on the host as on the board: the exported fixtures run through it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::signatures::Signature;
use crate::model::{DType, EValue, Instruction, Program};

/// The dtypes each operator's kernel is compiled for, by operator (`aten::add.out`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dtypes {
    by_op: BTreeMap<String, BTreeSet<DType>>,
}

impl Dtypes {
    /// The dtypes `program`'s calls of `ops` use (see the module's rule).
    ///
    /// ```
    /// use arenaplan_build::executorch::{signature, Dtypes};
    /// use arenaplan_build::model::{DType, Instruction, KernelCall, Program, Value};
    /// let mut p = Program::new("p");
    /// let a = p.add_value(Value::planned("a", DType::Int8, vec![4]));
    /// let b = p.add_value(Value::planned("b", DType::UInt8, vec![4]));
    /// let y = p.add_value(Value::planned("y", DType::Int16, vec![4]));
    /// p.body.push(Instruction::Kernel(KernelCall::new("aten::add.out", vec![a, b], vec![y])));
    /// let dtypes = Dtypes::of(&p, &[signature("aten::add.out").unwrap()]);
    /// // In ExecuTorch's order (Byte, Char, Short): int8 + uint8 computes in int16.
    /// assert_eq!(dtypes.of_op("aten::add.out"), vec![DType::UInt8, DType::Int8, DType::Int16]);
    /// ```
    pub fn of(program: &Program, ops: &[&Signature]) -> Dtypes {
        let mut by_op: BTreeMap<String, BTreeSet<DType>> = BTreeMap::new();
        for (_, instruction) in program.flat_instructions() {
            let Instruction::Kernel(call) = instruction else {
                continue;
            };
            if !ops.iter().any(|s| s.op == call.op) {
                continue;
            }
            let mut tensors: BTreeSet<DType> = BTreeSet::new();
            let mut scalars: Vec<EValue> = Vec::new();
            for &v in call.inputs.iter().chain(&call.outputs) {
                let value = &program.values[v];
                match value.evalue {
                    EValue::Tensor if value.dtype != DType::Bytes => {
                        tensors.insert(value.dtype);
                    }
                    e @ (EValue::Int | EValue::Double | EValue::Bool) => scalars.push(e),
                    _ => {}
                }
            }
            let set = by_op.entry(call.op.clone()).or_default();
            let list: Vec<DType> = tensors.iter().copied().collect();
            for (i, &a) in list.iter().enumerate() {
                set.insert(a);
                for &b in &list[i + 1..] {
                    set.extend(promote(a, b));
                }
                for &s in &scalars {
                    set.insert(promote_with_scalar(a, s));
                }
            }
            let computed: Vec<DType> = set.iter().map(|&t| compute_type(t)).collect();
            set.extend(computed);
        }
        Dtypes { by_op }
    }

    /// The dtypes selected for `op`, in ExecuTorch's `ScalarType` order (empty: none of its
    /// calls).
    pub fn of_op(&self, op: &str) -> Vec<DType> {
        let mut v: Vec<DType> = self.by_op.get(op).into_iter().flatten().copied().collect();
        v.sort_by_key(|t| t.scalar_type());
        v
    }
}

/// The name ExecuTorch's kernels give their dtype switches for `op`: the schema name without
/// its namespace (`aten::add.out` switches as `add.out`).
pub fn switch_name(op: &str) -> &str {
    op.rsplit_once("::").map_or(op, |(_, name)| name)
}

/// The file compiling kernel file `file` (`kernels/portable/cpu/op_add.cpp`) for the build
/// named `name`: `NAME_et_portable_cpu_op_add.cpp`. Distinct per kernel file (ExecuTorch has an
/// `op_add.cpp` both in `portable` and in `quantized`).
pub fn unit_file(name: &str, file: &str) -> String {
    let tail = file
        .strip_prefix("kernels/")
        .or_else(|| file.strip_prefix("backends/"))
        .unwrap_or(file);
    format!("{name}_et_{}", tail.replace('/', "_"))
}

/// The unit compiling kernel file `file` for `ops` (the program's operators it defines) with
/// `dtypes`; with `None`, for every dtype (`EXECUTORCH_SELECTIVE_BUILD_DTYPE` off).
pub fn render_unit(file: &str, ops: &[&Signature], dtypes: Option<&Dtypes>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "/* Generated by arenaplan-build: ExecuTorch's {file}, compiled {}. Do not edit. */",
        if dtypes.is_some() {
            "for the dtypes the program's calls use (see ap_et_selective.h)"
        } else {
            "for every dtype"
        }
    );
    if let Some(dtypes) = dtypes {
        out.push_str("#include \"ap_et_selective.h\"\n");
        out.push_str(
            "AP_ET_INLINE constexpr bool should_include_kernel_dtype(const char *op, AP_ET_DTYPE t) {\n",
        );
        out.push_str("    return ");
        let mut names: Vec<&str> = Vec::new();
        for sig in ops.iter().filter(|s| s.file == file) {
            let name = switch_name(sig.op);
            if names.contains(&name) {
                continue;
            }
            names.push(name);
            // Every operator of the program sharing this switch name (a namespace apart).
            let mut selected: Vec<DType> = ops
                .iter()
                .filter(|s| switch_name(s.op) == name)
                .flat_map(|s| dtypes.of_op(s.op))
                .collect();
            selected.sort_by_key(|t| t.scalar_type());
            selected.dedup();
            let cases: Vec<String> = selected
                .iter()
                .map(|t| format!("t == AP_ET_DTYPE::{}", scalar_type_name(*t)))
                .collect();
            let test = if cases.is_empty() {
                "false".to_string()
            } else {
                cases.join(" || ")
            };
            let _ = write!(out, "AP_ET_NAMED(op, \"{name}\") ? ({test})\n         : ");
        }
        out.push_str("true;\n}\n#include \"ap_et_selective_end.h\"\n");
    }
    let _ = writeln!(out, "#include <executorch/{file}>");
    out
}

/// ExecuTorch's `ScalarType` enumerator for `t`.
pub fn scalar_type_name(t: DType) -> &'static str {
    match t {
        DType::UInt8 | DType::Bytes => "Byte",
        DType::Int8 => "Char",
        DType::Int16 => "Short",
        DType::Int32 => "Int",
        DType::Int64 => "Long",
        DType::Float16 => "Half",
        DType::Float32 => "Float",
        DType::Float64 => "Double",
        DType::Bool => "Bool",
        DType::BFloat16 => "BFloat16",
        DType::UInt16 => "UInt16",
        DType::UInt32 => "UInt32",
        DType::UInt64 => "UInt64",
    }
}

/// Bool, then the integers, then the floating types: a promotion takes the higher kind.
fn kind(t: DType) -> u8 {
    match t {
        DType::Bool => 0,
        DType::Float16 | DType::BFloat16 | DType::Float32 | DType::Float64 => 2,
        _ => 1,
    }
}

fn signed(t: DType) -> bool {
    matches!(t, DType::Int8 | DType::Int16 | DType::Int32 | DType::Int64)
}

/// The types two tensors of types `a` and `b` may compute in (torch's `promoteTypes`, erring
/// wide where it has no answer).
fn promote(a: DType, b: DType) -> Vec<DType> {
    if a == b {
        return vec![a];
    }
    let (lo, hi) = if kind(a) <= kind(b) { (a, b) } else { (b, a) };
    if kind(lo) != kind(hi) {
        return vec![hi];
    }
    if kind(hi) == 2 {
        if lo.size() == hi.size() {
            // half with bfloat16
            return vec![DType::Float32];
        }
        return vec![if a.size() > b.size() { a } else { b }];
    }
    // Two integers.
    if signed(a) == signed(b) {
        return vec![if a.size() > b.size() { a } else { b }];
    }
    let (s, u) = if signed(a) { (a, b) } else { (b, a) };
    match (u, s.size() > u.size()) {
        (_, true) => vec![s],
        (DType::UInt8, false) => vec![DType::Int16],
        // uint16/32/64 with a signed type: torch refuses some; keep the widest candidates.
        _ => vec![s, u, DType::Int64],
    }
}

/// The type a tensor of type `t` computes in with a scalar of kind `s`.
fn promote_with_scalar(t: DType, s: EValue) -> DType {
    match s {
        EValue::Double if kind(t) < 2 => DType::Float32,
        EValue::Int if kind(t) == 0 => DType::Int64,
        _ => t,
    }
}

/// The type ExecuTorch's portable kernels compute `t` in (half precision in float).
fn compute_type(t: DType) -> DType {
    match t {
        DType::Float16 | DType::BFloat16 => DType::Float32,
        t => t,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotions_follow_torch() {
        assert_eq!(promote(DType::Int8, DType::UInt8), vec![DType::Int16]);
        assert_eq!(promote(DType::Int32, DType::Float16), vec![DType::Float16]);
        assert_eq!(
            promote(DType::Float16, DType::BFloat16),
            vec![DType::Float32]
        );
        assert_eq!(promote(DType::Bool, DType::Int8), vec![DType::Int8]);
        assert_eq!(promote(DType::UInt8, DType::Int32), vec![DType::Int32]);
        assert_eq!(
            promote_with_scalar(DType::Int32, EValue::Double),
            DType::Float32
        );
        assert_eq!(promote_with_scalar(DType::Bool, EValue::Int), DType::Int64);
        assert_eq!(
            promote_with_scalar(DType::Float32, EValue::Int),
            DType::Float32
        );
        assert_eq!(compute_type(DType::BFloat16), DType::Float32);
    }

    #[test]
    fn unit_files_are_distinct_per_kernel_file() {
        assert_eq!(
            unit_file("kws", "kernels/portable/cpu/op_add.cpp"),
            "kws_et_portable_cpu_op_add.cpp"
        );
        assert_ne!(
            unit_file("kws", "kernels/portable/cpu/op_add.cpp"),
            unit_file("kws", "kernels/quantized/cpu/op_add.cpp")
        );
        assert_eq!(
            unit_file("kws", "backends/cortex_m/ops/op_quantized_add.cpp"),
            "kws_et_cortex_m_ops_op_quantized_add.cpp"
        );
    }
}
