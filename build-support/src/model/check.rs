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
    /// A view ([`crate::model::View`]) that cannot be one.
    #[error("value {value} (`{name}`) is declared a view of value {viewed}, but {why}")]
    BadView {
        /// The view.
        value: ValueId,
        /// The value it names as viewed.
        viewed: ValueId,
        /// Its name.
        name: String,
        /// The rule it breaks.
        why: &'static str,
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
/// - **Views are only read** ([`crate::model::View`]): a view and its viewed value are two
///   planned values, the view no larger, never written, not an input or state, not itself
///   viewed, and a view once. It holds what its viewed value holds, and counts as that value
///   for the rule above (a call writing a value may not read its view).
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
    check_views(program)?;
    // Ids out of range are the importers' business; a message never panics on one.
    let display = |v: ValueId| {
        program
            .values
            .get(v)
            .map_or_else(|| "?".into(), |x| x.name.clone())
    };
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
    let flat_start = program.top_level_starts();
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
    // One record of what holds something, for every method: what a method marks is logged
    // and undone after it (and what an arm marks, after the arm), so the work stays linear in
    // the program however many methods and branches a file gives it.
    let mut viewed = vec![None; program.values.len()];
    for view in &program.views {
        viewed[view.value] = Some(view.viewed);
    }
    let mut flow = Flow {
        program,
        viewed,
        written: program
            .values
            .iter()
            .map(|v| matches!(v.kind, ValueKind::Constant | ValueKind::Unmanaged))
            .collect(),
        log: Vec::new(),
        workspace,
        display: &display,
    };
    for (method, inputs, outputs, body) in entries {
        for &v in inputs.iter().chain(&program.state) {
            flow.mark(v);
        }
        if let Some(instructions) = program.body.get(body.clone()) {
            let mut flat = flat_start.get(body.start).copied().unwrap_or(0);
            flow.run(instructions, &mut flat)?;
        }
        for &v in outputs {
            if !flow.holds(v) {
                return Err(ModelError::OutputNeverWritten {
                    method,
                    value: v,
                    name: display(v),
                });
            }
        }
        flow.undo(0);
    }
    Ok(())
}

/// The dataflow rules' walk over one method.
struct Flow<'p> {
    program: &'p Program,
    /// Per value: whether it holds something at this point of the walk.
    written: Vec<bool>,
    /// The values marked since the method started, in order (to undo).
    log: Vec<ValueId>,
    /// Per value: a workspace, readable unwritten.
    workspace: Vec<bool>,
    /// Per value: the value it views (checked by [`check_views`]).
    viewed: Vec<Option<ValueId>>,
    display: &'p dyn Fn(ValueId) -> String,
}

impl Flow<'_> {
    /// Whether `v` holds something (an id out of range is another check's business).
    fn holds(&self, v: ValueId) -> bool {
        self.written.get(self.root(v)).copied().unwrap_or(true)
    }

    /// The value whose bytes `v` is: its viewed value for a view, else itself.
    fn root(&self, v: ValueId) -> ValueId {
        self.viewed.get(v).copied().flatten().unwrap_or(v)
    }

    fn mark(&mut self, v: ValueId) {
        if let Some(w) = self.written.get_mut(v) {
            if !*w {
                *w = true;
                self.log.push(v);
            }
        }
    }

    /// Unmarks what was marked after the log had `len` entries.
    fn undo(&mut self, len: usize) {
        for v in self.log.drain(len..) {
            self.written[v] = false;
        }
    }

    fn run(&mut self, body: &[Instruction], flat: &mut usize) -> Result<(), ModelError> {
        for instruction in body {
            let at = *flat;
            *flat += 1;
            let error = |value: ValueId, make: fn(usize, ValueId, String) -> ModelError| {
                make(at, value, (self.display)(value))
            };
            let (inputs, outputs): (&[ValueId], &[ValueId]) = match instruction {
                Instruction::Kernel(k) => (&k.inputs, &k.outputs),
                Instruction::Delegate(d) => (&d.inputs, &d.outputs),
                Instruction::Branch(b) => {
                    if !self.holds(b.predicate) {
                        return Err(error(b.predicate, read_before_write));
                    }
                    // Written in any arm counts as written after the branch.
                    let mut union = Vec::new();
                    for arm in &b.arms {
                        let start = self.log.len();
                        self.run(arm, flat)?;
                        union.extend_from_slice(&self.log[start..]);
                        self.undo(start);
                    }
                    for v in union {
                        self.mark(v);
                    }
                    continue;
                }
            };
            let unseparated = matches!(instruction, Instruction::Delegate(_)) && outputs.is_empty();
            for &v in inputs {
                if self.holds(v) {
                    continue;
                }
                if unseparated {
                    self.mark(v);
                } else if !self.workspace.get(v).copied().unwrap_or(false) {
                    return Err(error(v, read_before_write));
                }
            }
            // Hashed, so that a call with many arguments costs what it has.
            let mut passed: std::collections::HashSet<ValueId> =
                inputs.iter().map(|&v| self.root(v)).collect();
            for &v in outputs {
                if !passed.insert(self.root(v)) {
                    return Err(error(v, |instruction, value, name| ModelError::InPlace {
                        instruction,
                        value,
                        name,
                    }));
                }
                if self
                    .program
                    .values
                    .get(v)
                    .is_some_and(|x| x.kind == ValueKind::Constant)
                {
                    return Err(error(v, |instruction, value, name| {
                        ModelError::WritesConstant {
                            instruction,
                            value,
                            name,
                        }
                    }));
                }
            }
            for &v in outputs {
                self.mark(v);
            }
        }
        Ok(())
    }
}

/// The views rule (see [`check`]).
fn check_views(program: &Program) -> Result<(), ModelError> {
    let mut seen = std::collections::HashSet::new();
    let written: std::collections::HashSet<ValueId> = program
        .flat_instructions()
        .into_iter()
        .flat_map(|(_, i)| match i {
            Instruction::Kernel(k) => k.outputs.clone(),
            Instruction::Delegate(d) => d.outputs.clone(),
            Instruction::Branch(_) => Vec::new(),
        })
        .collect();
    let inputs: std::collections::HashSet<ValueId> = program
        .inputs
        .iter()
        .chain(program.methods.iter().flat_map(|m| &m.inputs))
        .chain(&program.state)
        .copied()
        .collect();
    for view in &program.views {
        let (v, w) = (view.value, view.viewed);
        let planned = |x: ValueId| program.values.get(x).is_some_and(|x| x.is_planned());
        let why = if !planned(v) || !planned(w) {
            Some("a view and its viewed value are planned values of the program")
        } else if v == w {
            Some("a value cannot view itself")
        } else if program.values[v].pool != program.values[w].pool {
            Some("it is asked for another pool than the value it views (a view is its bytes)")
        } else if program.values[v].bytes > program.values[w].bytes {
            Some("it has more bytes than the value it views")
        } else if written.contains(&v) {
            Some("an instruction writes it (a view is only read)")
        } else if inputs.contains(&v) {
            Some("it is an input or state (a view holds its viewed value's bytes)")
        } else if program.viewed(w).is_some() {
            Some("that value is itself a view (name the value it views)")
        } else if !seen.insert(v) {
            Some("it is declared a view twice")
        } else {
            None
        };
        if let Some(why) = why {
            return Err(ModelError::BadView {
                value: v,
                viewed: w,
                name: program
                    .values
                    .get(v)
                    .map_or_else(|| "?".into(), |x| x.name.clone()),
                why,
            });
        }
    }
    Ok(())
}

fn read_before_write(instruction: usize, value: ValueId, name: String) -> ModelError {
    ModelError::ReadBeforeWrite {
        instruction,
        value,
        name,
    }
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
