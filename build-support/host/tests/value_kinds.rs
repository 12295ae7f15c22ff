//! One set of value kinds: the build's `EValue` discriminants (what the host tables write)
//! are the runtime's `AP_VALUE_*` codes, `EValue::c_name` (what generated C writes) names the
//! same code, and the Rust `Kind` a kernel sees reads each back.

use arenaplan::{sys, Kind};
use arenaplan_build::model::EValue;

#[test]
fn every_value_kind_has_one_code_in_rust_and_c() {
    let kinds = [
        (EValue::Tensor, sys::AP_VALUE_TENSOR, Kind::Tensor),
        (EValue::None, sys::AP_VALUE_NONE, Kind::None),
        (EValue::Int, sys::AP_VALUE_INT, Kind::Int),
        (EValue::Double, sys::AP_VALUE_DOUBLE, Kind::Double),
        (EValue::Bool, sys::AP_VALUE_BOOL, Kind::Bool),
        (EValue::String, sys::AP_VALUE_STRING, Kind::String),
        (EValue::IntList, sys::AP_VALUE_INT_LIST, Kind::IntList),
        (
            EValue::DoubleList,
            sys::AP_VALUE_DOUBLE_LIST,
            Kind::DoubleList,
        ),
        (EValue::BoolList, sys::AP_VALUE_BOOL_LIST, Kind::BoolList),
        (
            EValue::TensorList,
            sys::AP_VALUE_TENSOR_LIST,
            Kind::TensorList,
        ),
    ];
    let header = include_str!("../../../runtime-c/include/arenaplan/runtime.h");
    for (evalue, code, kind) in kinds {
        assert_eq!(evalue as u32, code, "{evalue:?}");
        assert_eq!(Kind::from_code(code as u8), Some(kind), "{evalue:?}");
        assert!(
            header.contains(&format!("{} = {code}", evalue.c_name())),
            "{} is not {code} in runtime.h",
            evalue.c_name()
        );
    }
    assert_eq!(Kind::from_code(kinds.len() as u8), None);
}
