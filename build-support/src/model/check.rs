//! The one semantic check of a program, whatever its format: [`check`].

use thiserror::Error;

use super::{DType, Instruction, Program, ValueId, ValueKind};

/// The longest name, in bytes, a model may give anything: four times the longest in the corpus
/// (TensorFlow's joined op paths reach 260 bytes), far below C's 4,095-byte string literals.
pub const MAX_NAME_BYTES: usize = 1024;

/// Why a program is not one arenaplan can plan, whichever format it came in.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ModelError {
    /// A name longer than [`MAX_NAME_BYTES`].
    #[error(
        "{what} is {bytes} bytes long; names may be at most {MAX_NAME_BYTES} bytes: shorten it"
    )]
    NameTooLong {
        /// Whose name (e.g. "value 3's name").
        what: String,
        /// Its length.
        bytes: usize,
    },
    /// A call reads a value that nothing wrote before it.
    #[error("instruction {instruction} reads `{name}` (value {value}) before any instruction writes it; reorder the instructions, add its producer, or make it an input (a call reading its own output is a cycle)")]
    ReadBeforeWrite {
        /// Flat instruction index.
        instruction: usize,
        /// The value.
        value: ValueId,
        /// Its name.
        name: String,
    },
    /// A call writes a constant.
    #[error("instruction {instruction} writes `{name}` (value {value}), which is constant; give the output its own tensor")]
    WritesConstant {
        /// Flat instruction index.
        instruction: usize,
        /// The value.
        value: ValueId,
        /// Its name.
        name: String,
    },
    /// A call writes a value it also passes again.
    #[error("instruction {instruction}: value {value} (`{name}`) is written by the call and also passed to it again; give the output its own tensor")]
    InPlace {
        /// Flat instruction index.
        instruction: usize,
        /// The value.
        value: ValueId,
        /// Its name.
        name: String,
    },
    /// A method's output is never written.
    #[error("{method}output `{name}` (value {value}) is never written; add the instruction that produces it, or make it an input")]
    OutputNeverWritten {
        /// `method `forward`: ` for a program with several methods, else empty.
        method: String,
        /// The value.
        value: ValueId,
        /// Its name.
        name: String,
    },
}

impl ModelError {
    /// The flat index of the instruction concerned, if one is (importers use it to point at
    /// the line).
    pub fn instruction(&self) -> Option<usize> {
        match self {
            ModelError::ReadBeforeWrite { instruction, .. }
            | ModelError::WritesConstant { instruction, .. }
            | ModelError::InPlace { instruction, .. } => Some(*instruction),
            _ => None,
        }
    }
}

/// One entry point: its name for messages, inputs, outputs and top-level instructions.
type Entry<'a> = (String, &'a [ValueId], &'a [ValueId], std::ops::Range<usize>);

/// The one semantic check of a program, whichever importer read it: a `.pte`, a `.tflite` and
/// a TOML model that say the same thing get the same verdict, because every importer ends
/// with [`check`] (and the pipeline begins with it, for programs built in code).
///
/// The rules, each in one place:
///
/// - **Bounded names.** Every name a file gives (the program's, values', delegates', backends',
///   operators', methods', labels, compile specs) is at most [`MAX_NAME_BYTES`] bytes. Names
///   reach generated C (string literals, comments, symbols): a longer one would give C that a
///   strict compiler refuses, or code no tool handles in reasonable time.
/// - **Reads after writes.** A call reads only values that hold something when it runs: its
///   method's inputs, constants, state (kept between runs), memory the runtime or caller owns
///   (unplanned values, such as TFLite's variable tensors), or values an earlier call wrote.
///   A byte buffer no call writes is a workspace its readers use as scratch (ExecuTorch's
///   Cortex-M kernels take theirs as an argument): it may be read. A
///   value written in either arm of a branch counts as written after it. A delegate call whose
///   outputs the file does not separate from its inputs (a backend arenaplan does not know) is
///   taken to write those of its arguments not yet written.
/// - **Constants are never written.**
/// - **No call writes a value it also passes again** (as an input, or as another output): the
///   runtime's argument contract gives every written argument memory of its own, since an NPU
///   streams and writes before it has read everything. (State updated in place is passed once,
///   as the output: [`crate::import::is_in_place_operator`].)
/// - **Outputs are written**: each output of a method is written by it, or is one of its
///   inputs, a constant or state.
///
/// ```
/// use arenaplan_build::model::{check, DType, Instruction, KernelCall, ModelError, Program, Value};
/// let mut p = Program::new("m");
/// let x = p.add_value(Value::planned("x", DType::Int8, vec![4]));
/// let y = p.add_value(Value::planned("y", DType::Int8, vec![4]));
/// p.inputs = vec![x];
/// p.outputs = vec![y];
/// p.body.push(Instruction::Kernel(KernelCall::new("relu", vec![y], vec![x])));
/// assert!(matches!(check(&p), Err(ModelError::ReadBeforeWrite { instruction: 0, .. })));
/// ```
///
/// Returns the first rule broken.
pub fn check(program: &Program) -> Result<(), ModelError> {
    check_names(program)?;
    let display = |v: ValueId| program.values[v].name.clone();
    // Each method runs on its own, from its inputs: check each over its own instructions.
    let entries: Vec<Entry<'_>> = if program.methods.is_empty() {
        vec![(
            String::new(),
            &program.inputs,
            &program.outputs,
            0..program.body.len(),
        )]
    } else {
        program
            .methods
            .iter()
            .map(|m| {
                (
                    format!("method `{}`: ", m.name),
                    &m.inputs[..],
                    &m.outputs[..],
                    m.body.clone(),
                )
            })
            .collect()
    };
    // Flat index of each top-level instruction, to name instructions as everyone else does.
    let mut flat_start = Vec::with_capacity(program.body.len());
    let mut next = 0;
    for instruction in &program.body {
        flat_start.push(next);
        next += flat_len(instruction);
    }
    let mut ever_written = vec![false; program.values.len()];
    for (_, instruction) in program.flat_instructions() {
        let outputs = match instruction {
            Instruction::Kernel(k) => &k.outputs,
            Instruction::Delegate(d) => &d.outputs,
            Instruction::Branch(_) => continue,
        };
        for &v in outputs {
            if let Some(w) = ever_written.get_mut(v) {
                *w = true;
            }
        }
    }
    // Workspaces: unsigned byte buffers nothing writes.
    let workspace: Vec<bool> = program
        .values
        .iter()
        .zip(&ever_written)
        .map(|(v, &ever)| {
            !ever && v.is_byte_buffer() && matches!(v.dtype, DType::UInt8 | DType::Bytes)
        })
        .collect();
    for (method, inputs, outputs, body) in entries {
        let mut written: Vec<bool> = program
            .values
            .iter()
            .map(|v| matches!(v.kind, ValueKind::Constant | ValueKind::Unmanaged))
            .collect();
        for &v in inputs.iter().chain(&program.state) {
            if let Some(w) = written.get_mut(v) {
                *w = true;
            }
        }
        let Some(instructions) = program.body.get(body.clone()) else {
            continue;
        };
        let mut flat = flat_start.get(body.start).copied().unwrap_or(0);
        dataflow(
            program,
            instructions,
            &mut flat,
            &mut written,
            &workspace,
            &display,
        )?;
        for &v in outputs {
            if !written.get(v).copied().unwrap_or(true) {
                return Err(ModelError::OutputNeverWritten {
                    method,
                    value: v,
                    name: display(v),
                });
            }
        }
    }
    Ok(())
}

fn flat_len(instruction: &Instruction) -> usize {
    match instruction {
        Instruction::Branch(b) => 1 + b.arms.iter().flatten().map(flat_len).sum::<usize>(),
        _ => 1,
    }
}

fn dataflow(
    program: &Program,
    body: &[Instruction],
    flat: &mut usize,
    written: &mut [bool],
    workspace: &[bool],
    display: &dyn Fn(ValueId) -> String,
) -> Result<(), ModelError> {
    for instruction in body {
        let at = *flat;
        *flat += 1;
        let (inputs, outputs): (&[ValueId], &[ValueId]) = match instruction {
            Instruction::Kernel(k) => (&k.inputs, &k.outputs),
            Instruction::Delegate(d) => (&d.inputs, &d.outputs),
            Instruction::Branch(b) => {
                if !written.get(b.predicate).copied().unwrap_or(true) {
                    return Err(ModelError::ReadBeforeWrite {
                        instruction: at,
                        value: b.predicate,
                        name: display(b.predicate),
                    });
                }
                let before = written.to_vec();
                for arm in &b.arms {
                    let mut in_arm = before.clone();
                    dataflow(program, arm, flat, &mut in_arm, workspace, display)?;
                    for (w, a) in written.iter_mut().zip(in_arm) {
                        *w |= a;
                    }
                }
                continue;
            }
        };
        let unseparated = matches!(instruction, Instruction::Delegate(_)) && outputs.is_empty();
        for &v in inputs {
            match written.get_mut(v) {
                Some(w) if !*w && unseparated => *w = true,
                Some(false) if !workspace.get(v).copied().unwrap_or(false) => {
                    return Err(ModelError::ReadBeforeWrite {
                        instruction: at,
                        value: v,
                        name: display(v),
                    })
                }
                _ => {}
            }
        }
        for (i, &v) in outputs.iter().enumerate() {
            if inputs.contains(&v) || outputs[..i].contains(&v) {
                return Err(ModelError::InPlace {
                    instruction: at,
                    value: v,
                    name: display(v),
                });
            }
            if program
                .values
                .get(v)
                .is_some_and(|x| x.kind == ValueKind::Constant)
            {
                return Err(ModelError::WritesConstant {
                    instruction: at,
                    value: v,
                    name: display(v),
                });
            }
        }
        for &v in outputs {
            if let Some(w) = written.get_mut(v) {
                *w = true;
            }
        }
    }
    Ok(())
}

/// Every name the program carries, bounded.
fn check_names(program: &Program) -> Result<(), ModelError> {
    let bounded = |what: &dyn Fn() -> String, name: &str| {
        if name.len() > MAX_NAME_BYTES {
            Err(ModelError::NameTooLong {
                what: what(),
                bytes: name.len(),
            })
        } else {
            Ok(())
        }
    };
    bounded(&|| "the program's name".into(), &program.name)?;
    if let Some(entry) = &program.entry_name {
        bounded(&|| "the method's name".into(), entry)?;
    }
    for (i, m) in program.methods.iter().enumerate() {
        bounded(&|| format!("method {i}'s name"), &m.name)?;
    }
    for (i, v) in program.values.iter().enumerate() {
        bounded(&|| format!("value {i}'s name"), &v.name)?;
        if let ValueKind::Scratch { label, .. } = &v.kind {
            bounded(&|| format!("value {i}'s label"), label)?;
        }
    }
    for (i, d) in program.delegates.iter().enumerate() {
        bounded(&|| format!("delegate {i}'s name"), &d.name)?;
        bounded(&|| format!("delegate {i}'s backend"), &d.backend)?;
        for (key, value) in &d.compile_specs {
            bounded(&|| format!("a compile spec key of delegate {i}"), key)?;
            bounded(&|| format!("compile spec `{key}` of delegate {i}"), value)?;
        }
        for s in &d.scratch {
            if let Some(label) = &s.label {
                bounded(&|| format!("a scratch label of delegate {i}"), label)?;
            }
        }
    }
    for (at, instruction) in program.flat_instructions() {
        if let Instruction::Kernel(k) = instruction {
            bounded(&|| format!("instruction {at}'s operator"), &k.op)?;
        }
    }
    Ok(())
}
