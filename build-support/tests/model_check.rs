//! One semantic check for every importer: the same program gets the same verdict whether it
//! came as TOML or as the IR a `.pte` or `.tflite` importer builds, and every name a file
//! controls is bounded before any code is generated.

use arenaplan_build::diagnostic::SourceText;
use arenaplan_build::import::parse_toml_model;
use arenaplan_build::model::{
    check, DType, Instruction, KernelCall, ModelError, Program, Value, MAX_NAME_BYTES,
};
use arenaplan_build::names::{base_name, MAX_BASE_NAME_BYTES};

fn toml(body: &str) -> Result<Program, String> {
    let text = format!(
        "name = \"m\"\ninputs = [\"x\"]\noutputs = [\"y\"]\n\
         [[tensor]]\nname = \"x\"\ndtype = \"int8\"\nshape = [4]\n\
         [[tensor]]\nname = \"y\"\ndtype = \"int8\"\nshape = [4]\n{body}"
    );
    parse_toml_model(&SourceText::new("m.toml", &text), None).map_err(|d| d.to_string())
}

fn kernel(op: &str, inputs: &str, outputs: &str) -> String {
    format!("[[instruction]]\nkind = \"kernel\"\nop = \"{op}\"\ninputs = [{inputs}]\noutputs = [{outputs}]\n")
}

/// The program an importer of a binary format builds: x in, y out, `body` between.
fn ir(body: Vec<(&str, Vec<usize>, Vec<usize>)>) -> Program {
    let mut p = Program::new("m");
    let x = p.add_value(Value::planned("x", DType::Int8, vec![4]));
    let y = p.add_value(Value::planned("y", DType::Int8, vec![4]));
    p.inputs = vec![x];
    p.outputs = vec![y];
    for (op, inputs, outputs) in body {
        p.body
            .push(Instruction::Kernel(KernelCall::new(op, inputs, outputs)));
    }
    p
}

#[test]
fn a_pte_in_place_kernel_gets_the_toml_verdict() {
    // relu into y, then relu_ on y: y read and written by one call.
    let e = toml(&format!(
        "{}{}",
        kernel("relu", "\"x\"", "\"y\""),
        kernel("aten::relu_", "\"y\"", "\"y\"")
    ))
    .unwrap_err();
    assert!(
        e.contains(
            "instruction 1: value 1 (`y`) is written by the call and also passed to it again"
        ),
        "{e}"
    );
    let program = ir(vec![
        ("relu", vec![0], vec![1]),
        ("aten::relu_", vec![1], vec![1]),
    ]);
    assert!(matches!(
        check(&program),
        Err(ModelError::InPlace {
            instruction: 1,
            value: 1,
            ..
        })
    ));
}

#[test]
fn a_read_before_any_write_is_refused_in_every_format() {
    let e = toml(&format!(
        "{}{}",
        kernel("copy", "\"y\"", "\"x\""),
        kernel("relu", "\"x\"", "\"y\"")
    ))
    .unwrap_err();
    assert!(e.starts_with("m.toml:"), "located: {e}");
    assert!(
        e.contains("instruction 0 reads `y` (value 1) before any instruction writes it"),
        "{e}"
    );
    let program = ir(vec![("copy", vec![1], vec![0]), ("relu", vec![0], vec![1])]);
    assert!(matches!(
        check(&program),
        Err(ModelError::ReadBeforeWrite {
            instruction: 0,
            value: 1,
            ..
        })
    ));
}

#[test]
fn a_workspace_nothing_writes_may_be_read() {
    // ExecuTorch's Cortex-M kernels take their scratch as a uint8 argument nothing writes.
    let mut program = ir(vec![("cortex_m::avg_pool.out", vec![0, 2], vec![1])]);
    program.add_value(Value::planned("scratch", DType::UInt8, vec![256]));
    assert_eq!(check(&program), Ok(()));
    // An int8 activation is not a workspace: reading it unwritten is refused.
    program.values[2].dtype = DType::Int8;
    assert!(matches!(
        check(&program),
        Err(ModelError::ReadBeforeWrite { value: 2, .. })
    ));
}

#[test]
fn a_name_over_the_limit_is_refused_at_import() {
    let long = "n".repeat(MAX_NAME_BYTES + 1);
    let e = toml(&kernel(&long, "\"x\"", "\"y\"")).unwrap_err();
    assert!(
        e.contains("instruction 0's operator is 1025 bytes long; names may be at most 1024 bytes"),
        "{e}"
    );
    let mut program = ir(vec![("relu", vec![0], vec![1])]);
    program.values[0].name = long.clone();
    assert!(matches!(
        check(&program),
        Err(ModelError::NameTooLong { .. })
    ));
    // Exactly the limit is fine.
    program.values[0].name.pop();
    assert_eq!(check(&program), Ok(()));
}

#[test]
fn an_eight_megabyte_name_is_refused_without_generating_code() {
    let huge = "n".repeat(8 << 20);
    let text = format!("name = \"{huge}\"\n");
    let e = parse_toml_model(&SourceText::new("m.toml", &text), None)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the program's name is 8388608 bytes long"),
        "{}",
        &e[..200.min(e.len())]
    );
}

#[test]
fn a_program_name_too_long_for_a_file_name_is_bad_input() {
    assert!(base_name(&"m".repeat(MAX_BASE_NAME_BYTES)).is_ok());
    let e = base_name(&"m".repeat(MAX_BASE_NAME_BYTES + 1)).unwrap_err();
    assert!(e.contains("give a shorter name"), "{e}");
}

#[test]
fn what_one_arm_writes_is_not_written_in_the_other_but_is_after_the_branch() {
    use arenaplan_build::model::Branch;
    let mut p = ir(vec![]);
    let c = p.add_value(Value::planned("c", DType::Bool, vec![1]));
    let t = p.add_value(Value::planned("t", DType::Int8, vec![4]));
    let k = |op: &str, inputs: Vec<usize>, outputs: Vec<usize>| {
        Instruction::Kernel(KernelCall::new(op, inputs, outputs))
    };
    p.body = vec![
        k("gt", vec![0], vec![c]),
        Instruction::Branch(Branch {
            predicate: c,
            arms: vec![
                vec![k("relu", vec![0], vec![t])],
                vec![k("copy", vec![t], vec![1])],
            ],
        }),
    ];
    // The second arm reads t, which only the first arm writes: instruction 3 (flat order).
    assert!(matches!(
        check(&p),
        Err(ModelError::ReadBeforeWrite {
            instruction: 3,
            value,
            ..
        }) if value == t
    ));
    // Read after the branch, what either arm wrote holds something.
    p.body[1] = Instruction::Branch(Branch {
        predicate: c,
        arms: vec![
            vec![k("relu", vec![0], vec![t])],
            vec![k("zeros", vec![], vec![t])],
        ],
    });
    p.body.push(k("copy", vec![t], vec![1]));
    assert_eq!(check(&p), Ok(()));
}

/// `x` in, `y = relu(flat)` out, with `flat` declared a view of `viewed`.
fn with_view(viewed: usize, body: Vec<(&str, Vec<usize>, Vec<usize>)>) -> Program {
    let mut p = ir(body);
    let flat = p.add_value(Value::planned("flat", DType::Int8, vec![2, 2]));
    p.views.push(arenaplan_build::model::View {
        value: flat,
        viewed,
    });
    p
}

#[test]
fn a_view_holds_what_its_viewed_value_holds() {
    // flat views x (an input): readable at once.
    assert_eq!(
        check(&with_view(0, vec![("relu", vec![2], vec![1])])),
        Ok(())
    );
    // flat views y: read before y is written, then by a call that writes y again.
    let p = with_view(1, vec![("relu", vec![2], vec![1])]);
    assert!(matches!(
        check(&p),
        Err(ModelError::ReadBeforeWrite { value: 2, .. })
    ));
    let p = with_view(
        1,
        vec![("relu", vec![0], vec![1]), ("relu", vec![2], vec![1])],
    );
    assert!(
        matches!(check(&p), Err(ModelError::InPlace { value: 1, .. })),
        "a call writing y while reading its view passes y twice: {:?}",
        check(&p)
    );
}

#[test]
fn a_view_that_cannot_be_one_is_refused_naming_the_rule() {
    let why = |p: &Program| match check(p) {
        Err(ModelError::BadView { why, .. }) => why,
        other => panic!("{other:?}"),
    };
    // Written by an instruction.
    let p = with_view(0, vec![("relu", vec![0], vec![2])]);
    assert!(why(&p).contains("writes it"));
    // A view of itself, of a value out of range, of a view, twice.
    let mut p = with_view(0, vec![]);
    p.views[0].viewed = 2;
    assert!(why(&p).contains("itself"));
    p.views[0].viewed = 99;
    assert!(why(&p).contains("planned values"));
    let mut p = with_view(0, vec![]);
    let again = p.add_value(Value::planned("again", DType::Int8, vec![4]));
    p.views.push(arenaplan_build::model::View {
        value: again,
        viewed: 2,
    });
    assert!(why(&p).contains("itself a view"));
    let mut p = with_view(0, vec![]);
    p.views.push(p.views[0]);
    assert!(why(&p).contains("twice"));
    // Larger than what it views, or an input.
    let mut p = with_view(0, vec![]);
    p.values[2] = Value::planned("flat", DType::Int8, vec![8]);
    assert!(why(&p).contains("more bytes"));
    let mut p = with_view(0, vec![]);
    p.inputs.push(2);
    assert!(why(&p).contains("input or state"));
    // Asked for another pool than what it views.
    let mut p = with_view(0, vec![]);
    p.values[2].pool = Some(arenaplan_build::model::PoolChoice::MemId(2));
    assert!(why(&p).contains("another pool"));
}
