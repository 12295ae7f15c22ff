//! Which of the bridge's readers (`ap_et_call.h`, `arenaplan::et::Call`) takes an argument of
//! each C++ type a kernel signature names: the one place the two meet. A type missing here
//! makes its operator unbindable (the plan says so), never a guess.

/// The `Call` method that reads an argument of C++ type `cxx` named `name`, or `None` when the
/// bridge has none for it.
///
/// ```
/// use arenaplan_build::executorch::reader;
/// assert_eq!(reader("const torch::executor::Scalar &", "alpha"), Some("scalar"));
/// assert_eq!(reader("torch::executor::TensorList", "out"), Some("out_tensor_list"));
/// assert_eq!(reader("c10::Generator", "g"), None);
/// ```
pub fn reader(cxx: &str, name: &str) -> Option<&'static str> {
    Some(match cxx {
        "const torch::executor::Tensor &" | "torch::executor::Tensor &" => "tensor",
        "const std::optional<torch::executor::Tensor> &" => "opt_tensor",
        // A list the kernel writes is the call's remaining outputs (the program passes its
        // items, not the list); a list it reads arrives as its count, then the tensors.
        "torch::executor::TensorList" if name == "out" => "out_tensor_list",
        "torch::executor::TensorList" => "tensor_list",
        "torch::executor::ArrayRef<std::optional<torch::executor::Tensor>>" => "opt_tensor_list",
        "const torch::executor::Scalar &" => "scalar",
        "const std::optional<torch::executor::Scalar> &" => "opt_scalar",
        "int64_t" => "int64",
        "std::optional<int64_t>" => "opt_int64",
        "double" => "float64",
        "std::optional<double>" => "opt_float64",
        "bool" => "boolean",
        "std::optional<bool>" => "opt_boolean",
        "torch::executor::ScalarType" => "scalar_type",
        "std::optional<torch::executor::ScalarType>" => "opt_scalar_type",
        "std::optional<torch::executor::MemoryFormat>" => "opt_memory_format",
        "std::optional<torch::executor::Layout>" => "opt_layout",
        "std::optional<torch::executor::Device>" => "opt_device",
        "std::string_view" => "string",
        "std::optional<std::string_view>" => "opt_string",
        "torch::executor::ArrayRef<int64_t>" => "int_list",
        "std::optional<torch::executor::ArrayRef<int64_t>>" => "opt_int_list",
        "std::optional<torch::executor::ArrayRef<double>>" => "opt_float_list",
        "torch::executor::ArrayRef<bool>" => "bool_list",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_signature_in_the_table_has_readers() {
        for s in super::super::signatures::all() {
            for (cxx, name) in &s.args {
                assert!(reader(cxx, name).is_some(), "{}: {cxx} {name}", s.op);
            }
        }
    }
}
